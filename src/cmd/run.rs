//! `pisa run FILE.pisa [--state STATE.json]`: runs a program for people to read: each shuffle's
//! lane diagram in the spec's notation, each branch, then every register as a lane table.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use pisa_model::diagram;
use pisa_model::exec::{parse_object, parse_state, run_source, CaseError, InitialState, Source};
use pisa_model::interp::{Event, RunOptions};
use pisa_model::shfl::{sources, Src1};
use pisa_model::{RegKind, SgOp, LANES};

use super::Backend;
use crate::Failure;

#[derive(clap::Args)]
pub struct Args {
    /// PISA assembly file.
    file: PathBuf,
    /// Initial state: `{"activemask": .., "regs": {"%a": [32 values], ...}}`.
    #[arg(long)]
    state: Option<PathBuf>,
    /// Implementation that executes the sub-group instructions.
    #[arg(long, value_enum, default_value = "ref")]
    backend: Backend,
    /// RTL configuration (TOML) for --backend rtl; default 32 lanes, combinational.
    #[arg(long)]
    config: Option<std::path::PathBuf>,
    /// Instructions the program may execute before it is stopped as an infinite loop (at least
    /// 1).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    max_steps: u64,
}

fn read(path: &PathBuf) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|e| Failure::input(format!("{}: cannot read: {e}", path.display())))
}

pub fn main(a: Args) -> Result<ExitCode, Failure> {
    let src = read(&a.file)?;
    let file = a.file.display().to_string();
    let st = match &a.state {
        None => InitialState::default(),
        Some(p) => {
            let name = p.display().to_string();
            let text = read(p)?;
            let obj = parse_object(&text)
                .map_err(|e| Failure::input(e.render(Source::File(&name), Some(&file))))?;
            parse_state(&obj, &[]).map_err(|m| Failure::input(format!("{name}: {m}")))?
        }
    };
    let mut backend = a.backend.open(a.config.as_deref())?;
    let lines: Vec<&str> = src.lines().collect();
    let mut out = String::new();
    let mut observer = |e: &Event<'_>| match e {
        Event::Sg { inst, op, inputs, .. } => {
            let text = lines.get(inst.pos.line as usize - 1).map(|l| l.trim()).unwrap_or("");
            let _ = writeln!(out, "{file}:{}  {text}", inst.pos);
            if let SgOp::Shfl { mode, sg } = op {
                let s = sources(
                    *mode,
                    *sg,
                    Src1::PerLane(&inputs.src1),
                    inputs.mask,
                    inputs.activemask,
                );
                let (dst, src0) = shfl_operands(text);
                out.push_str(&diagram::render(&src0, &dst, &s));
            }
            // each event is printed as it happens: memory does not grow with the steps
            crate::out::stdout(&out);
            out.clear();
        }
        Event::Branch { inst, taken } => {
            let text = lines.get(inst.pos.line as usize - 1).map(|l| l.trim()).unwrap_or("");
            let _ = writeln!(
                out,
                "{file}:{}  {text}  -> {}",
                inst.pos,
                if *taken { "taken" } else { "not taken" }
            );
            crate::out::stdout(&out);
            out.clear();
        }
    };
    let done = run_source(
        &src,
        &st,
        backend.as_mut(),
        &RunOptions { max_steps: a.max_steps },
        &mut observer,
    )
    .map_err(|e| {
        let state =
            a.state.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "state".into());
        let code = if matches!(e, CaseError::Program { .. }) { 1 } else { 2 };
        Failure { message: e.render(Source::File(&state), Some(&file)), code }
    })?;
    let _ = writeln!(
        out,
        "\nactivemask = {:#010x}; {} instructions executed, {} sub-group instructions",
        st.activemask, done.stats.steps, done.stats.sg_issued
    );
    table(&mut out, &done.program.regs, &done.regs, st.activemask);
    out.push_str("legend: in diagrams a number is the source lane read, blank = kept its own src0, -- = not written\n");
    crate::out::stdout(&out);
    Ok(ExitCode::SUCCESS)
}

/// `dst` and `src0` register names of a shuffle line (for the diagram's row labels).
fn shfl_operands(text: &str) -> (String, String) {
    let ops: Vec<&str> = text
        .split_once(char::is_whitespace)
        .map(|(_, r)| r)
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .collect();
    (
        ops.first().copied().unwrap_or("dst").to_string(),
        ops.get(1).copied().unwrap_or("src0").to_string(),
    )
}

fn table(
    out: &mut String,
    regs: &[pisa_model::asm::RegInfo],
    vals: &[[u32; LANES]],
    activemask: u32,
) {
    let width = |r: &pisa_model::asm::RegInfo| match r.kind {
        RegKind::Pred => 1,
        RegKind::B16 => 6,
        _ => 10,
    };
    let mut head = String::from("lane act");
    for r in regs {
        head.push_str(&format!(
            " | {:>w$}",
            format!("%{}", r.name),
            w = width(r).max(r.name.len() + 1)
        ));
    }
    let _ = writeln!(out, "{head}\n{}", "-".repeat(head.len()));
    for lane in 0..LANES {
        let mut row =
            format!("{lane:>4} {:>3}", if activemask >> lane & 1 != 0 { "*" } else { "" });
        for (r, v) in regs.iter().zip(vals) {
            let w = width(r).max(r.name.len() + 1);
            let cell = match r.kind {
                RegKind::Pred => format!("{}", v[lane]),
                RegKind::B16 => format!("{:#06x}", v[lane]),
                _ => format!("{:#010x}", v[lane]),
            };
            row.push_str(&format!(" | {cell:>w$}"));
        }
        let _ = writeln!(out, "{row}");
    }
}
