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
use pisa_rtl::design::{design, BlockName};
use pisa_rtl::UnitConfig;

use crate::work_dir::WorkDir;
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
    /// With --rtl-dir: the module prefix of the emission to prove, when its manifest lists several.
    #[arg(long)]
    prefix: Option<String>,
    /// Pipeline register counts proven equal to the combinational unit (default: 2 and log2(lanes)).
    #[arg(long, value_delimiter = ',')]
    pipeline: Vec<usize>,
    /// Extra cycles of the pipeline bounded proof beyond the latency.
    #[arg(long, default_value_t = 2)]
    extra_cycles: usize,
    /// Parallel proofs (default: the number of CPUs).
    #[arg(long)]
    jobs: Option<usize>,
    /// Keep miters, scripts and logs here: a new or empty folder, or one a previous `pisa prove`
    /// used (default: a fresh temporary folder, removed unless a proof fails).
    #[arg(long)]
    work: Option<PathBuf>,
    /// Write the outcomes as JSON to this file.
    #[arg(long)]
    report: Option<PathBuf>,
}

/// The `format` of the `--report` file.
const PROVE_REPORT_FORMAT: &str = "pisa-prove-report/1";

fn emit(dir: &Path, cfg: &UnitConfig, prefix: &str) -> Result<RtlDir, Failure> {
    let d = design(cfg, BlockName::Unit, prefix)
        .map_err(|e| Failure { message: format!("emit failed: {e}"), code: 1 })?;
    d.write(dir, false).map_err(|e| Failure::input(e.to_string()))?;
    RtlDir::scan(dir, None, None).map_err(|e| Failure::input(e.to_string()))
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
    if a.prefix.is_some() && a.rtl_dir.is_none() {
        return Err(Failure::input("--prefix picks an emission of --rtl-dir; give --rtl-dir"));
    }
    if a.pipeline.contains(&0) {
        return Err(Failure::input(
            "--pipeline 0: a pipeline of 0 registers is the combinational unit itself; nothing to prove",
        ));
    }
    // The Verilog under proof (scanned before any work folder exists).
    let given = match &a.rtl_dir {
        Some(d) => Some(
            RtlDir::scan(d, a.lanes, a.prefix.as_deref())
                .map_err(|e| Failure::input(e.to_string()))?,
        ),
        None => None,
    };
    let report_out = a
        .report
        .as_deref()
        .map(|r| crate::report_file::Output::json(r, "--report", PROVE_REPORT_FORMAT));
    if let Some(o) = &report_out {
        // the Verilog under proof is the command's input: the report never replaces a file of it
        let inputs: Vec<PathBuf> = a
            .rtl_dir
            .iter()
            .flat_map(|d| std::fs::read_dir(d).into_iter().flatten())
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        crate::report_file::check(std::slice::from_ref(o), &inputs)?;
    }
    let work = WorkDir::open(a.work.as_deref(), "prove")?;
    let rtl = match given {
        Some(r) => r,
        None => emit(
            &work.path.join("rtl"),
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
                let piped =
                    emit(&work.path.join(format!("rtl_p{p}")), &cfg, &format!("pisa_p{p}"))?;
                jobs.push(
                    Job::pipeline(&piped, &rtl, p, a.extra_cycles)
                        .map_err(|e| Failure::input(e.to_string()))?,
                );
            }
        } else {
            let comb = emit(
                &work.path.join("rtl_ref_p0"),
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
        outln!("note: {n}");
    }
    let threads = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    outln!(
        "prove: {} properties of {} ({} lanes), {} threads, work dir {}",
        jobs.len(),
        rtl.dir.display(),
        lanes,
        threads,
        work.path.display()
    );
    let start = Instant::now();
    let print_lock = Mutex::new(());
    let report = |o: &Outcome| {
        let _g = print_lock.lock();
        let ands = o.and_gates.map(|n| format!(", {n} ANDs")).unwrap_or_default();
        match &o.verdict {
            Verdict::Pass => {
                outln!("PASS  l{}  {}  ({:.1} s{ands})", o.lanes, o.property, o.seconds)
            }
            Verdict::Fail { counterexample } => {
                outln!("FAIL  l{}  {}  ({:.1} s{ands})", o.lanes, o.property, o.seconds);
                outln!("      counterexample: {counterexample}");
                if o.lanes == 32 && !matches!(o.property, Property::Pipeline { .. }) {
                    outln!("      replay: echo '{counterexample}' | pisa exec [--backend rtl]");
                }
                outln!("      logs: {}", o.dir.display());
            }
            Verdict::Error(e) => {
                outln!("ERROR l{}  {}  ({:.1} s): {e}", o.lanes, o.property, o.seconds)
            }
        }
    };
    if jobs.is_empty() {
        return Err(Failure::input(format!(
            "nothing to prove: --block {} selects no property of {}",
            a.block,
            rtl.dir.display()
        )));
    }
    let outcomes = prove_all(&jobs, &work.path, &tools, threads, &report);
    let count = |f: &dyn Fn(&Verdict) -> bool| outcomes.iter().filter(|o| f(&o.verdict)).count();
    let (pass, fail) =
        (count(&|v| *v == Verdict::Pass), count(&|v| matches!(v, Verdict::Fail { .. })));
    let err = outcomes.len() - pass - fail;
    outln!(
        "prove: {} properties: {pass} PASS, {fail} FAIL, {err} ERROR in {:.1} s",
        outcomes.len(),
        start.elapsed().as_secs_f64()
    );
    if report_out.is_some() {
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
        let json = serde_json::json!({
            "format": PROVE_REPORT_FORMAT, "outcomes": v, "seconds": start.elapsed().as_secs_f64(),
        });
        if let Some(o) = &report_out {
            o.write_json(&json)?;
        }
    }
    if pass == outcomes.len() {
        Ok(ExitCode::SUCCESS)
    } else {
        // the failing proofs' logs (named above) stay
        work.keep.set(true);
        outln!("prove: miters and logs kept in {}", work.path.display());
        Ok(ExitCode::from(1))
    }
}
