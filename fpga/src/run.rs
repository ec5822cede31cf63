//! Running `fpga/synth.sh` and `fpga/pnr.sh`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::report::{PnrResult, SynthResult};
use crate::target::Target;

/// The flows, embedded from `fpga/`.
pub const SYNTH_SH: &str = include_str!("../synth.sh");
pub const PNR_SH: &str = include_str!("../pnr.sh");
pub const EQUIV_SH: &str = include_str!("../equiv.sh");
/// The ECP5 techmap `synth.sh` applies to the crossbar's mux trees (read from beside the script).
pub const ECP5_MUX_MAP: &str = include_str!("../ecp5_mux_map.v");

/// Why a flow did not produce a result.
#[derive(Debug, thiserror::Error)]
pub enum FpgaError {
    #[error("{0}")]
    Input(String),
    #[error("{tool} failed: {first_error} (log: {log})")]
    Tool { tool: String, first_error: String, log: String },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

fn script(dir: &Path, name: &str, text: &str) -> Result<PathBuf, FpgaError> {
    std::fs::create_dir_all(dir)?;
    let p = dir.join(name);
    std::fs::write(&p, text)?;
    Ok(p)
}

fn run_sh(sh: &Path, args: &[String], log: &Path, tool: &str) -> Result<(), FpgaError> {
    let out = Command::new("bash").arg(sh).args(args).output()?;
    if out.status.success() {
        return Ok(());
    }
    let text =
        std::fs::read_to_string(log).unwrap_or_default() + &String::from_utf8_lossy(&out.stderr);
    let first_error = text
        .lines()
        .find(|l| l.contains("ERROR") || l.contains("rror:"))
        .unwrap_or("non-zero exit")
        .trim()
        .to_string();
    Err(FpgaError::Tool { tool: tool.into(), first_error, log: log.display().to_string() })
}

/// Synthesizes module `top` of `files` for `target` into `out`.
pub fn synth(
    target: Target,
    top: &str,
    files: &[PathBuf],
    out: &Path,
) -> Result<SynthResult, FpgaError> {
    let start = Instant::now();
    let sh = script(out, "synth.sh", SYNTH_SH)?;
    script(out, "ecp5_mux_map.v", ECP5_MUX_MAP)?;
    let mut args = vec![target.name().to_string(), top.to_string(), out.display().to_string()];
    args.extend(files.iter().map(|f| f.display().to_string()));
    run_sh(&sh, &args, &out.join("yosys.log"), "yosys")?;
    let stat = std::fs::read_to_string(out.join("stat.json"))?;
    let ltp = std::fs::read_to_string(out.join("ltp.txt")).unwrap_or_default();
    let mut r = SynthResult::parse(target, top, &stat, &ltp)
        .map_err(|e| FpgaError::Input(format!("{}: {e}", out.join("stat.json").display())))?;
    r.seconds = start.elapsed().as_secs_f64();
    r.netlist = out.join(format!("{top}.json"));
    Ok(r)
}

/// Places and routes a synthesized netlist (top `pisa_fpga_wrap`) at `freq_mhz` with placer seed
/// `seed`, in `out`; `router` is nextpnr's router (`"router1"`, `"router2"`; `None`: the flow's
/// default, router2 with timing-driven rip-up on ECP5).
pub fn pnr(
    target: Target,
    netlist: &Path,
    out: &Path,
    freq_mhz: f64,
    seed: u32,
    router: Option<&str>,
) -> Result<PnrResult, FpgaError> {
    let start = Instant::now();
    std::fs::create_dir_all(out)?;
    let sh = script(out, "pnr.sh", PNR_SH)?;
    let args = vec![
        target.name().to_string(),
        netlist.display().to_string(),
        out.display().to_string(),
        format!("{freq_mhz}"),
        seed.to_string(),
        router.unwrap_or("").to_string(),
    ];
    run_sh(&sh, &args, &out.join("pnr.log"), "nextpnr")?;
    let text = std::fs::read_to_string(out.join("report.json"))?;
    let mut r = PnrResult::parse(&text, seed)
        .map_err(|e| FpgaError::Input(format!("{}: {e}", out.join("report.json").display())))?;
    r.seconds = start.elapsed().as_secs_f64();
    Ok(r)
}

/// The verdict of `equiv.sh` on a netlist against its RTL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Equivalence {
    Equivalent,
    Different,
    Undecided,
}

/// Proves the netlist `netlist` (module `top`) equal to the RTL `gold_files` (module `gold_top`,
/// emitted under another module prefix) with `fpga/equiv.sh`, working in `out`.
pub fn equiv(
    target: Target,
    netlist: &Path,
    top: &str,
    gold_top: &str,
    gold_files: &[PathBuf],
    out: &Path,
) -> Result<Equivalence, FpgaError> {
    let sh = script(out, "equiv.sh", EQUIV_SH)?;
    let mut args = vec![
        target.name().to_string(),
        netlist.display().to_string(),
        top.to_string(),
        out.display().to_string(),
        gold_top.to_string(),
    ];
    args.extend(gold_files.iter().map(|f| f.display().to_string()));
    let o = Command::new("bash").arg(&sh).args(&args).output()?;
    match o.status.code() {
        Some(0) => Ok(Equivalence::Equivalent),
        Some(1) => Ok(Equivalence::Different),
        Some(3) => Ok(Equivalence::Undecided),
        _ => {
            let first_error = String::from_utf8_lossy(&o.stderr)
                .lines()
                .next()
                .unwrap_or("non-zero exit")
                .trim()
                .to_string();
            Err(FpgaError::Tool {
                tool: "yosys (equiv.sh)".into(),
                first_error,
                log: out.join("equiv.log").display().to_string(),
            })
        }
    }
}
