//! `pisa prove [--block NAME] [--ops LIST] [--lanes N] [--rtl-dir DIR] [--pipeline LIST]
//! [--jobs N] [--work DIR] [--report FILE]`: proves the RTL equal to the independent specs in
//! `formal/spec/` with yosys + ABC and prints PASS/FAIL per property; a counterexample is printed
//! as a `pisa exec` line that replays it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use pisa_formal::flow::Job;
use pisa_formal::{prove_all, Outcome, Property, RtlDir, Tools, Verdict};
use pisa_model::SgOp;
use pisa_rtl::design::{design, manifest_info, BlockName};
use pisa_rtl::UnitConfig;

use crate::Failure;

#[derive(clap::Args)]
pub struct Args {
    /// What to prove: xbar, lzc, reduce, pipeline or all.
    #[arg(long, default_value = "all", value_parser = ["all", "xbar", "lzc", "reduce", "pipeline"])]
    block: String,
    /// Comma-separated reduction forms (default: all 48 fred/ired forms), e.g. fred.max.f,ired.sum.32b.
    #[arg(long, value_delimiter = ',')]
    ops: Vec<String>,
    /// Lanes of the freshly emitted RTL (4, 8, 16, 32); with --rtl-dir, needed only without a manifest.json.
    #[arg(long)]
    lanes: Option<usize>,
    /// Prove the Verilog in this directory (hand-edited, post-synthesis) instead of a fresh emission.
    #[arg(long)]
    rtl_dir: Option<PathBuf>,
    /// Pipeline register counts proven equal to the combinational unit (default: 2 and log2(lanes)).
    #[arg(long, value_delimiter = ',')]
    pipeline: Vec<usize>,
    /// Extra cycles of the pipeline bounded proof beyond the latency.
    #[arg(long, default_value_t = 2)]
    extra_cycles: usize,
    /// Parallel proofs (default: the number of CPUs).
    #[arg(long)]
    jobs: Option<usize>,
    /// Keep miters, scripts and logs here (default: a temporary directory, removed when all pass).
    #[arg(long)]
    work: Option<PathBuf>,
    /// Write the outcomes as JSON to this file.
    #[arg(long)]
    report: Option<PathBuf>,
}

fn emit(dir: &Path, cfg: &UnitConfig, prefix: &str) -> Result<RtlDir, Failure> {
    let d = design(cfg, BlockName::Unit, prefix)
        .map_err(|e| Failure { message: format!("emit failed: {e}"), code: 1 })?;
    d.write(dir, manifest_info(cfg, BlockName::Unit)).map_err(|e| Failure::input(e.to_string()))?;
    RtlDir::scan(dir, None).map_err(|e| Failure::input(e.to_string()))
}

pub fn main(a: Args) -> Result<ExitCode, Failure> {
    let tools = Tools::from_env().map_err(|e| Failure::input(e.to_string()))?;
    let forms: Vec<SgOp> = if a.ops.is_empty() {
        Property::reduce_forms()
    } else {
        let all = Property::reduce_forms();
        let mut v = Vec::new();
        for s in &a.ops {
            let op: SgOp = s
                .parse()
                .map_err(|e: pisa_model::op::UnknownForm| Failure::input(format!("--ops: {e}")))?;
            if !all.contains(&op) {
                return Err(Failure::input(format!(
                    "--ops: {op} is not a reduction form (fred.* or ired.*)"
                )));
            }
            v.push(op);
        }
        v
    };
    if let Some(l) = a.lanes {
        if ![4, 8, 16, 32].contains(&l) {
            return Err(Failure::input(format!("--lanes {l}: use 4, 8, 16 or 32")));
        }
    }
    let (work, temporary) = match &a.work {
        Some(w) => (w.clone(), false),
        None => (std::env::temp_dir().join(format!("pisa-prove-{}", std::process::id())), true),
    };
    std::fs::create_dir_all(&work)
        .map_err(|e| Failure::input(format!("{}: {e}", work.display())))?;

    // The Verilog under proof.
    let rtl = match &a.rtl_dir {
        Some(d) => RtlDir::scan(d, a.lanes).map_err(|e| Failure::input(e.to_string()))?,
        None => emit(
            &work.join("rtl"),
            &UnitConfig::new(a.lanes.unwrap_or(32), 0)
                .map_err(|e| Failure::input(e.to_string()))?,
            "pisa_sg",
        )?,
    };
    let lanes = rtl.lanes;
    let k = lanes.trailing_zeros() as usize;
    let want = |b: &str| a.block == "all" || a.block == b;
    let mut jobs = Vec::new();
    let mut notes = Vec::new();
    if rtl.latency == 0 {
        let mut props = Vec::new();
        if want("xbar") {
            props.push(Property::Xbar);
        }
        if want("lzc") {
            props.push(Property::Lzc);
        }
        if want("reduce") {
            props.extend(forms.iter().map(|&f| Property::Reduce(f)));
        }
        for p in props {
            jobs.push(Job::block(p, &rtl).map_err(|e| Failure::input(e.to_string()))?);
        }
    } else if a.block != "pipeline" && a.block != "all" {
        return Err(Failure::input(format!(
            "{}: pipelined RTL (latency {}): block proofs need a combinational emission; use --block pipeline",
            rtl.dir.display(),
            rtl.latency
        )));
    } else {
        notes.push(format!(
            "{}: pipelined (latency {}), proving it against a fresh combinational unit",
            rtl.dir.display(),
            rtl.latency
        ));
    }
    if want("pipeline") {
        if rtl.latency == 0 {
            let counts = if a.pipeline.is_empty() { vec![2.min(k), k] } else { a.pipeline.clone() };
            let mut seen = Vec::new();
            for p in counts {
                if p == 0 || seen.contains(&p) {
                    continue;
                }
                seen.push(p);
                let cfg = UnitConfig::new(lanes, p)
                    .map_err(|e| Failure::input(format!("--pipeline {p}: {e}")))?;
                let piped = emit(&work.join(format!("rtl_p{p}")), &cfg, &format!("pisa_p{p}"))?;
                jobs.push(
                    Job::pipeline(&piped, &rtl, p, a.extra_cycles)
                        .map_err(|e| Failure::input(e.to_string()))?,
                );
            }
        } else {
            let comb = emit(
                &work.join("rtl_ref_p0"),
                &UnitConfig::new(lanes, 0).map_err(|e| Failure::input(e.to_string()))?,
                "pisa_ref_p0",
            )?;
            let stages = rtl.latency;
            jobs.push(
                Job::pipeline(&rtl, &comb, stages, a.extra_cycles)
                    .map_err(|e| Failure::input(e.to_string()))?,
            );
        }
    }
    for n in &notes {
        println!("note: {n}");
    }
    let threads = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    println!(
        "prove: {} properties of {} ({} lanes), {} threads, work dir {}",
        jobs.len(),
        rtl.dir.display(),
        lanes,
        threads,
        work.display()
    );
    let start = Instant::now();
    let print_lock = Mutex::new(());
    let report = |o: &Outcome| {
        let _g = print_lock.lock();
        let ands = o.and_gates.map(|n| format!(", {n} ANDs")).unwrap_or_default();
        match &o.verdict {
            Verdict::Pass => {
                println!("PASS  l{}  {}  ({:.1} s{ands})", o.lanes, o.property, o.seconds)
            }
            Verdict::Fail { counterexample } => {
                println!("FAIL  l{}  {}  ({:.1} s{ands})", o.lanes, o.property, o.seconds);
                println!("      counterexample: {counterexample}");
                if o.lanes == 32 && !matches!(o.property, Property::Pipeline { .. }) {
                    println!("      replay: echo '{counterexample}' | pisa exec [--backend rtl]");
                }
                println!("      logs: {}", o.dir.display());
            }
            Verdict::Error(e) => {
                println!("ERROR l{}  {}  ({:.1} s): {e}", o.lanes, o.property, o.seconds)
            }
        }
    };
    let outcomes = prove_all(&jobs, &work, &tools, threads, &report);
    let count = |f: &dyn Fn(&Verdict) -> bool| outcomes.iter().filter(|o| f(&o.verdict)).count();
    let (pass, fail) =
        (count(&|v| *v == Verdict::Pass), count(&|v| matches!(v, Verdict::Fail { .. })));
    let err = outcomes.len() - pass - fail;
    println!(
        "prove: {} properties: {pass} PASS, {fail} FAIL, {err} ERROR in {:.1} s",
        outcomes.len(),
        start.elapsed().as_secs_f64()
    );
    if let Some(path) = &a.report {
        let v: Vec<serde_json::Value> = outcomes
            .iter()
            .map(|o| {
                let (verdict, cex) = match &o.verdict {
                    Verdict::Pass => ("PASS", None),
                    Verdict::Fail { counterexample } => ("FAIL", Some(counterexample.clone())),
                    Verdict::Error(e) => ("ERROR", Some(e.clone())),
                };
                serde_json::json!({
                    "property": o.property.to_string(), "block": o.property.block(), "lanes": o.lanes,
                    "verdict": verdict, "detail": cex, "seconds": o.seconds, "and_gates": o.and_gates,
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(
            &serde_json::json!({ "outcomes": v, "seconds": start.elapsed().as_secs_f64() }),
        )
        .map_err(|e| Failure::input(e.to_string()))?;
        std::fs::write(path, text)
            .map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
    }
    if pass == outcomes.len() {
        if temporary {
            let _ = std::fs::remove_dir_all(&work);
        }
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::from(1))
    }
}
