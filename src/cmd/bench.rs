//! `pisa bench`: warp-ops per second of the reference model for each instruction form, against
//! the plain port specialised per form (the baseline of the ratio) and the lane-by-lane oracle,
//! as JSON.

use std::process::ExitCode;
use std::time::Duration;

use pisa_model::perf::{measure, streaming, Workload, BYTES_PER_WARP_OP, WORKLOAD_CASES};
use pisa_model::{Kernel, SgOp};
use serde_json::json;

use crate::Failure;

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Mix {
    Typical,
    Edge,
    Both,
}

#[derive(clap::Args)]
pub struct Args {
    /// Comma-separated forms (e.g. shfl.idx.32b,ired.sum.32b); default: all 57.
    #[arg(long, value_delimiter = ',')]
    forms: Vec<String>,
    /// Operand mix: typical (full masks, the common use) or edge (co-simulation stimulus).
    #[arg(long, value_enum, default_value = "typical")]
    workload: Mix,
    /// Milliseconds per measurement round.
    #[arg(long, default_value_t = 200)]
    time_ms: u64,
    /// Rounds per measurement; the best round counts. The model and the plain port take turns
    /// round by round, so a slow spell of the machine weighs on both.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
    /// Model kernel: best (what this CPU runs fastest), avx512, avx2 (its shuffle gathers in
    /// registers), avx2-gather (with `vpgatherdd`) or portable.
    #[arg(long, default_value = "best")]
    kernel: String,
    /// Warps per batch (1 to 1048576). The default, 256 warps (101 KB of operands and results),
    /// is fed from L2; 64 warps (25 KB) fit in L1 and measure the kernels themselves.
    #[arg(long, default_value_t = WORKLOAD_CASES)]
    warps: usize,
    /// Also stream this many warps per form through the batch path (far more than the caches
    /// hold) and compare the bytes moved with a plain memory copy; 0: skip.
    #[arg(long, default_value_t = 0)]
    streaming: usize,
}

pub fn main(a: Args) -> Result<ExitCode, Failure> {
    let forms: Vec<SgOp> = if a.forms.is_empty() {
        SgOp::all()
    } else {
        a.forms
            .iter()
            .map(|f| f.parse::<SgOp>().map_err(|e| Failure::input(format!("--forms: {e}"))))
            .collect::<Result<_, _>>()?
    };
    if a.rounds == 0 || a.time_ms == 0 {
        return Err(Failure::input("--rounds and --time-ms must be at least 1"));
    }
    if !(1..=MAX_WARPS).contains(&a.warps) {
        return Err(Failure::input(format!(
            "--warps: {} is out of range (1 to {MAX_WARPS})",
            a.warps
        )));
    }
    let kernel = if a.kernel == "best" {
        Kernel::best()
    } else {
        let k = Kernel::from_name(&a.kernel).ok_or_else(|| {
            Failure::input(format!(
                "--kernel: unknown kernel {:?} (expected best, avx512, avx2, avx2-gather or portable)",
                a.kernel
            ))
        })?;
        k.check().map_err(|e| Failure::input(format!("--kernel: {e}")))?
    };
    let mixes: &[Workload] = match a.workload {
        Mix::Typical => &[Workload::Typical],
        Mix::Edge => &[Workload::Edge],
        Mix::Both => &[Workload::Typical, Workload::Edge],
    };
    let mut rows = Vec::new();
    let (mut min_ratio, mut min_form) = (f64::INFINITY, String::new());
    for &w in mixes {
        for &form in &forms {
            let r = measure(form, w, kernel, a.warps, Duration::from_millis(a.time_ms), a.rounds)
                .map_err(|e| Failure::input(format!("--kernel: {e}")))?;
            if r.ratio() < min_ratio {
                min_ratio = r.ratio();
                min_form = format!("{form} ({})", w.name());
            }
            rows.push(json!({
                "form": form.to_string(),
                "workload": w.name(),
                "model_warp_ops_per_s": r.model.round(),
                "model_single_call_warp_ops_per_s": r.model_single.round(),
                "baseline_warp_ops_per_s": r.plain.round(),
                "literal_warp_ops_per_s": r.literal.round(),
                "ratio": round2(r.ratio()),
                "ratio_vs_literal": round2(r.model / r.literal),
            }));
        }
    }
    let mut stream_rows = Vec::new();
    if a.streaming > 0 {
        for &form in &forms {
            let s = streaming(form, kernel, a.streaming, a.rounds)
                .map_err(|e| Failure::input(format!("--kernel: {e}")))?;
            stream_rows.push(json!({
                "form": form.to_string(),
                "warps": s.warps,
                "model_warp_ops_per_s": s.model.round(),
                "model_gb_per_s": round2(s.model_bytes_per_s() / 1e9),
                "copy_gb_per_s": round2(s.copy_bytes_per_s / 1e9),
                "fraction_of_copy_bandwidth": round2(s.model_bytes_per_s() / s.copy_bytes_per_s),
            }));
        }
    }
    let report = json!({
        "unit": "warp-ops per second, one core",
        "model": format!(
            "pisa_model::execute_batch (one form over the workload's {} warps per call)",
            a.warps
        ),
        "warps": a.warps,
        "working_set_bytes": a.warps * BYTES_PER_WARP_OP,
        "model_single_call": "pisa_model::execute (one warp per call)",
        "baseline": "pisa_model::plain (plain port of the pseudocode specialised per form: \
                     one lane loop per form, no SIMD intrinsics, batch loop); \
                     ratio = model / plain, the two measured in alternate rounds, \
                     the best round of each",
        "oracle": "pisa_model::literal (lane-by-lane port, every form dispatched per lane, i64/f64)",
        "model_kernel": kernel.name(),
        "round_ms": a.time_ms,
        "rounds": a.rounds,
        "forms": rows,
        "lowest_ratio": { "form": min_form, "ratio": round2(min_ratio) },
        "bytes_per_warp_op": BYTES_PER_WARP_OP,
        "streaming": stream_rows,
    });
    let text = serde_json::to_string_pretty(&report).unwrap_or_default();
    outln!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// Largest `--warps` (415 MB of operands and results).
const MAX_WARPS: usize = 1 << 20;

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
