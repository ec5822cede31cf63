//! `pisa bench`: warp-ops per second of the reference model for each instruction form, and of
//! the lane-by-lane port of the pseudocode as the baseline, as JSON.

use std::process::ExitCode;
use std::time::Duration;

use pisa_model::perf::{measure, Workload};
use pisa_model::SgOp;
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
    /// Rounds per measurement; the best round counts.
    #[arg(long, default_value_t = 3)]
    rounds: u32,
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
    let mixes: &[Workload] = match a.workload {
        Mix::Typical => &[Workload::Typical],
        Mix::Edge => &[Workload::Edge],
        Mix::Both => &[Workload::Typical, Workload::Edge],
    };
    let mut rows = Vec::new();
    let (mut min_ratio, mut min_form) = (f64::INFINITY, String::new());
    for &w in mixes {
        for &form in &forms {
            let r = measure(form, w, Duration::from_millis(a.time_ms), a.rounds);
            if r.ratio() < min_ratio {
                min_ratio = r.ratio();
                min_form = format!("{form} ({})", w.name());
            }
            rows.push(json!({
                "form": form.to_string(),
                "workload": w.name(),
                "model_warp_ops_per_s": r.model.round(),
                "baseline_warp_ops_per_s": r.baseline.round(),
                "ratio": (r.ratio() * 100.0).round() / 100.0,
            }));
        }
    }
    let simd = if cfg!(target_arch = "x86_64") && std::arch::is_x86_feature_detected!("avx2") {
        "avx2"
    } else {
        "portable"
    };
    let report = json!({
        "unit": "warp-ops per second, one core",
        "baseline": "pisa_model::literal (lane-by-lane port of the pseudocode)",
        "model_kernels": simd,
        "round_ms": a.time_ms,
        "rounds": a.rounds,
        "forms": rows,
        "lowest_ratio": { "form": min_form, "ratio": (min_ratio * 100.0).round() / 100.0 },
    });
    let text = serde_json::to_string_pretty(&report).unwrap_or_default();
    outln!("{text}");
    Ok(ExitCode::SUCCESS)
}
