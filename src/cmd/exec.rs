//! `pisa exec`: JSON Lines cases on stdin, one answer per line on stdout.
//!
//! Input line: `{"program": "...", "activemask": <u32|"0x..">, "regs": {"%a": [32 values]}}`.
//! Output line: `{"regs": {...every register...}}` or `{"error": "stdin:LINE[:COL]: ..."}`.
//! Blank lines are skipped. Exit status 1 if any case failed.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use pisa_model::exec::{exec_case, Source};
use pisa_model::interp::RunOptions;
use serde_json::json;

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
    /// Instructions a case may execute before it is stopped as an infinite loop.
    #[arg(long, default_value_t = 1_000_000)]
    max_steps: u64,
}

pub fn main(a: Args) -> Result<ExitCode, Failure> {
    let mut backend = a.backend.open(a.config.as_deref())?;
    let opts = RunOptions { max_steps: a.max_steps };
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut failed = 0usize;
    for (i, line) in stdin.lines().enumerate() {
        let line =
            line.map_err(|e| Failure::input(format!("stdin:{}: cannot read: {e}", i + 1)))?;
        if line.trim().is_empty() {
            continue;
        }
        let answer = match exec_case(&line, backend.as_mut(), &opts) {
            Ok(v) => v,
            Err(e) => {
                failed += 1;
                json!({ "error": e.render(Source::Line("stdin", i + 1), None) })
            }
        };
        writeln!(out, "{answer}")
            .map_err(|e| Failure { message: format!("cannot write stdout: {e}"), code: 1 })?;
    }
    out.flush().map_err(|e| Failure { message: format!("cannot write stdout: {e}"), code: 1 })?;
    Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
