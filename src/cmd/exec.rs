//! `pisa exec`: JSON Lines cases on stdin, one answer per line on stdout.
//!
//! Input line: `{"program": "...", "activemask": <u32|"0x..">, "regs": {"%a": [32 values]}}`.
//! Output line: `{"regs": {...every register...}}` or `{"error": "stdin:LINE[:COL]: ..."}`.
//! Blank lines are skipped. Exit status 1 if any case failed. A line longer than 16 MiB is
//! answered with an error and ends the stream (exit status 2).

use std::process::ExitCode;

use pisa_model::exec::{exec_stream, StreamIoError};
use pisa_model::interp::RunOptions;

use super::Backend;
use crate::Failure;

#[derive(clap::Args)]
pub struct Args {
    /// Implementation that executes the sub-group instructions.
    #[arg(long, value_enum, default_value = "ref")]
    backend: Backend,
    /// RTL configuration (TOML) for --backend rtl; default 32 lanes, combinational.
    #[arg(long)]
    config: Option<std::path::PathBuf>,
    /// Instructions a case may execute before it is stopped as an infinite loop (at least 1).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    max_steps: u64,
}

pub fn main(a: Args) -> Result<ExitCode, Failure> {
    let mut backend = a.backend.open(a.config.as_deref())?;
    let opts = RunOptions { max_steps: a.max_steps };
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    let (sum, end) = exec_stream(stdin, stdout, "stdin", backend.as_mut(), &opts);
    match end {
        None => {}
        Some(StreamIoError::Read { line, error }) => {
            return Err(Failure::input(format!("stdin:{line}: cannot read: {error}")))
        }
        Some(StreamIoError::TooLong { line }) => {
            return Err(Failure::input(format!(
                "stdin:{line}: the line is longer than {} MiB (the limit of one case); stopped",
                pisa_model::exec::MAX_LINE_BYTES >> 20
            )))
        }
        // a closed stdout ends the stream quietly; another write error is reported (exit 2)
        Some(StreamIoError::Write(e)) => crate::out::failed_write(&e),
    }
    Ok(if sum.failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
