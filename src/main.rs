//! `pisa` — the command-line front end of the PISA sub-group communication kit.
//!
//! Every subcommand exits 0 on success, 1 when the work it was asked to do failed (a case
//! errored, a mismatch, a failed proof) and 2 on bad usage or bad input files.

#[macro_use]
mod out;
mod cmd;
#[cfg(feature = "cosim")]
mod coverage_out;
#[cfg(feature = "cosim")]
mod junit;
mod managed_dir;
mod report_file;
mod work_dir;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "pisa",
    version,
    about = "PISA sub-group communication unit: reference model, RTL generator and verification kit"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run JSON Lines cases from stdin, one answer line per case (the scripting contract).
    Exec(cmd::exec::Args),
    /// Run a PISA assembly file and show registers and shuffle lane diagrams.
    Run(cmd::run::Args),
    /// Measure warp-ops per second of the model against the lane-by-lane baseline.
    Bench(cmd::bench::Args),
    /// Write the unit's Verilog (one file per module) and a manifest.
    Emit(cmd::emit::Args),
    /// Constrained-random differential regression: the Verilated RTL against the model.
    Regress(Box<cmd::regress::Args>),
    /// Mutation score of the regression: yosys mutants of the unit, each run until a case
    /// fails; the survivors proven equivalent or listed as gaps.
    Mutate(Box<cmd::mutate::Args>),
    /// Prove the RTL equal to the independent Verilog specs (yosys + ABC).
    Prove(cmd::prove::Args),
    /// FPGA synthesis (and place and route) with a QoR report against a behavioural baseline.
    Synth(cmd::synth::Args),
}

/// A command's failure: the message and the exit status.
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl Failure {
    /// Bad input or usage: exit status 2.
    pub fn input(message: impl Into<String>) -> Self {
        Failure { message: message.into(), code: 2 }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.cmd {
        Cmd::Exec(a) => cmd::exec::main(a),
        Cmd::Run(a) => cmd::run::main(a),
        Cmd::Bench(a) => cmd::bench::main(a),
        Cmd::Emit(a) => cmd::emit::main(a),
        Cmd::Regress(a) => cmd::regress::main(*a),
        Cmd::Mutate(a) => cmd::mutate::main(*a),
        Cmd::Prove(a) => cmd::prove::main(a),
        Cmd::Synth(a) => cmd::synth::main(a),
    };
    match r {
        // a write to stdout failed (not a closed pipe): exit status 2 whatever the work gave
        Ok(_) if out::failed() => ExitCode::from(2),
        Ok(code) => code,
        Err(f) => {
            errln!("pisa: error: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}
