//! `pisa mutate [--mutants N | --mutations FILE] [--count C] [--seed S] [--config FILE |
//! --preset NAME] [--jobs J] [--shard K/N] [--work DIR] [--report FILE] [--no-prove]`: the
//! mutation score of the regression, as YosysHQ/mcy measures it.
//!
//! yosys picks `N` mutations of the emitted unit and builds one netlist in which the input
//! `mutsel` enables one of them (`pisa_sim::mutate`); one Verilator build of it serves every
//! mutant. The netlist with no mutant enabled must pass the regression first (else it is not the
//! unit). Each mutant then runs the regression (`C` cases of seed `S`, as `pisa regress` draws
//! them) until a case fails: killed. A mutant no case kills is proven against the netlist with no
//! mutant enabled (yosys + ABC, the `pisa prove` flow): equal for every input (a combinational
//! unit) or every input sequence of latency + 3 cycles from reset (a pipelined one), it is set
//! aside as equivalent;
//! different, it is a gap in the regression, printed with the solver's counterexample.
//!
//! `pisa mutate merge REPORT... [--report FILE]`: the shard reports of one run combined.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use pisa_formal::flow::Job;
use pisa_formal::{prove_all, Tools, Verdict as ProofVerdict};
use pisa_sim::mutate::report::{
    list_sha256, shard_members, MutationReport, Outcome, Status, FORMAT,
};
use pisa_sim::mutate::{parse_list, run_mutant, Design, Mutation, NETLIST_TOP};
use pisa_sim::regress::report::{shard_names, Verdict};

use super::load_unit;
use crate::report_file::Output;
use crate::work_dir::WorkDir;
use crate::Failure;

/// The largest report file `merge` reads.
const MAX_REPORT_BYTES: u64 = 256 << 20;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    cmd: Option<Sub>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(clap::Subcommand)]
enum Sub {
    /// Combine the shard reports of one run (--report files of `pisa mutate --shard K/N`).
    Merge(MergeArgs),
}

#[derive(clap::Args)]
struct RunArgs {
    /// Mutations for yosys to pick (`mutate -list N`, an even sampling of the design).
    #[arg(long, default_value_t = 100)]
    mutants: u32,
    /// Use the yosys `mutate` commands of this file (one per line, as `mutate -list` writes
    /// them) instead of picking --mutants.
    #[arg(long, conflicts_with = "mutants")]
    mutations: Option<PathBuf>,
    /// Cases of the regression run on each mutant (it stops at the first that fails).
    #[arg(long, default_value_t = 100_000)]
    count: u64,
    /// Seed of the regression's cases and of yosys' choice of mutations.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Unit configuration (TOML); default 32 lanes, combinational.
    #[arg(long)]
    config: Option<PathBuf>,
    /// A named 32-lane unit instead of --config: small, balanced or fast.
    #[arg(long, conflicts_with = "config", value_parser = clap::builder::PossibleValuesParser::new(super::preset::NAMES))]
    preset: Option<String>,
    /// Mutants run (and proofs) at once (default: the machine's cores).
    #[arg(long)]
    jobs: Option<usize>,
    /// Run only shard K of N of the mutants (those with (index - 1) % N == K - 1); `auto` as
    /// for `pisa regress`.
    #[arg(long, default_value = "1/1")]
    shard: String,
    /// Keep the emitted Verilog, the mutation list, the netlist, the miters and the logs here
    /// (a new or empty folder, or one `pisa mutate` used; default: a temporary folder, removed
    /// unless a mutant survived).
    #[arg(long)]
    work: Option<PathBuf>,
    /// Write the outcome of every mutant as JSON to this file.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Do not prove the mutants no case killed (they are reported unchecked, and fail the run).
    #[arg(long)]
    no_prove: bool,
}

#[derive(clap::Args)]
struct MergeArgs {
    /// The shard reports.
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// Write the merged report as JSON to this file.
    #[arg(long)]
    report: Option<PathBuf>,
}

pub fn main(a: Args) -> Result<ExitCode, Failure> {
    if let Some(Sub::Merge(m)) = a.cmd {
        return merge(m);
    }
    run(a.run)
}

fn run(a: RunArgs) -> Result<ExitCode, Failure> {
    let start = Instant::now();
    let cfg = load_unit(a.config.as_deref(), a.preset.as_deref())?;
    let shard = super::regress::shard(&a.shard)?;
    if a.count == 0 {
        return Err(Failure::input("--count 0: a mutant that runs no case cannot be killed"));
    }
    if a.mutants == 0 && a.mutations.is_none() {
        return Err(Failure::input("--mutants 0: give at least one mutant"));
    }
    if a.jobs == Some(0) {
        return Err(Failure::input("--jobs 0: give at least one thread"));
    }
    let jobs =
        a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let outs: Vec<Output> = a.report.iter().map(|p| Output::json(p, "--report", FORMAT)).collect();
    let inputs: Vec<PathBuf> = a.config.iter().chain(a.mutations.iter()).cloned().collect();
    crate::report_file::check(&outs, &inputs)?;
    let given = match &a.mutations {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| Failure::input(format!("{}: cannot read: {e}", p.display())))?;
            Some(
                parse_list(&text, &p.display().to_string())
                    .map_err(|e| Failure::input(e.to_string()))?,
            )
        }
        None => None,
    };
    let tools = if a.no_prove {
        None
    } else {
        Some(Tools::from_env().map_err(|e| Failure::input(e.to_string()))?)
    };
    let work = WorkDir::open(a.work.as_deref(), "mutate")?;
    let tool = |e: pisa_sim::SimError| Failure { message: e.to_string(), code: 1 };
    let design = Design::emit(&cfg, &work.path).map_err(tool)?;
    let (list, source) = match given {
        Some(l) => (l, a.mutations.as_ref().map(|p| p.display().to_string()).unwrap_or_default()),
        None => (
            design.list(a.mutants, a.seed).map_err(tool)?,
            format!("yosys mutate -list {} -seed {}", a.mutants, a.seed % (1 << 31)),
        ),
    };
    let mutants = list.len() as u32;
    if shard.1 > u64::from(mutants) {
        return Err(Failure::input(format!(
            "--shard {}/{}: more shards than the {mutants} mutants",
            shard.0, shard.1
        )));
    }
    let members = shard_members(mutants, shard);
    errln!(
        "pisa mutate: {} ({} lanes, latency {}): {} of {mutants} mutants ({source}{}), {} cases each (seed {}), {jobs} threads, work folder {}",
        cfg.tag(),
        cfg.lanes,
        cfg.latency(),
        members.len(),
        if shard.1 > 1 { format!("; shard {}/{}", shard.0, shard.1) } else { String::new() },
        a.count,
        a.seed,
        work.path.display()
    );
    let (netlist, width) = design.netlist(&list).map_err(tool)?;
    let src = design.sources(&netlist, width).map_err(tool)?;
    // the netlist with no mutant enabled must be the unit
    let r0 = run_mutant(&src, 0, a.count, a.seed).map_err(tool)?;
    if let Some(m) = r0.mismatch() {
        work.keep.set(true);
        return Err(Failure {
            message: format!(
                "the mutated netlist {} with no mutant enabled fails case {} ({}): it is not the unit; replay: {}",
                netlist.display(),
                m.index,
                m.form(),
                m.replay
            ),
            code: 1,
        });
    }
    errln!("pisa mutate: the netlist with no mutant enabled passes {} cases", r0.cases);
    let by_index = |k: u32| list[(k - 1) as usize].clone();
    let mut outcomes = regress_all(&src, &members, &by_index, a.count, a.seed, jobs)?;
    let live: Vec<usize> =
        (0..outcomes.len()).filter(|&i| outcomes[i].status != Status::Killed).collect();
    errln!(
        "pisa mutate: {} killed, {} not killed by {} cases{}",
        outcomes.len() - live.len(),
        live.len(),
        a.count,
        if live.is_empty() || tools.is_none() {
            ""
        } else {
            "; proving them against the unmutated netlist"
        }
    );
    if let (Some(tools), false) = (&tools, live.is_empty()) {
        let proofs: Vec<Job> = live
            .iter()
            .map(|&i| {
                let k = outcomes[i].mutation.index;
                Job::mutant(&netlist, NETLIST_TOP, cfg.lanes, cfg.latency(), width, k)
            })
            .collect();
        let results = prove_all(&proofs, &work.path.join("proofs"), tools, jobs, &|_| {});
        for (&i, r) in live.iter().zip(results) {
            let o = &mut outcomes[i];
            match r.verdict {
                ProofVerdict::Pass => o.status = Status::Equivalent,
                ProofVerdict::Fail { counterexample } => {
                    o.status = Status::Survived;
                    o.detail = Some(counterexample);
                }
                ProofVerdict::Error(e) => {
                    o.status = Status::Undecided;
                    o.detail = Some(e);
                }
            }
        }
    }
    let report = MutationReport {
        config: cfg.tag(),
        unit: cfg.canonical(),
        lanes: cfg.lanes,
        seed: a.seed,
        count: a.count,
        source,
        mutants,
        list_sha256: list_sha256(&list),
        rtl_sha256: pisa_rtl::SOURCE_SHA256.to_string(),
        shards: vec![shard],
        outcomes,
        seconds: start.elapsed().as_secs_f64(),
    };
    let code = verdict(&report, false);
    if report.verdict() == Verdict::Fail {
        work.keep.set(true);
    }
    Ok(write(&report, &outs, code))
}

/// Runs the regression on each mutant of `members`, `jobs` at once.
fn regress_all(
    src: &pisa_sim::model::RtlSources,
    members: &[u32],
    mutation: &(dyn Fn(u32) -> Mutation + Sync),
    count: u64,
    seed: u64,
    jobs: usize,
) -> Result<Vec<Outcome>, Failure> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Result<Outcome, String>>> = Mutex::new(Vec::new());
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(members.len()).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&k) = members.get(i) else { break };
                let r = run_mutant(src, k, count, seed).map_err(|e| e.to_string()).map(|r| {
                    let killed_by = r.mismatch().map(|m| (m.index, m.form(), m.replay.clone()));
                    Outcome {
                        mutation: mutation(k),
                        status: if killed_by.is_some() {
                            Status::Killed
                        } else {
                            Status::Unchecked
                        },
                        cases: r.cases,
                        killed_by,
                        detail: None,
                    }
                });
                if let Ok(mut v) = results.lock() {
                    v.push(r);
                    let n = v.len();
                    if n % 100 == 0 && n < members.len() {
                        errln!(
                            "pisa mutate: {n} of {} mutants run ({:.0} s)",
                            members.len(),
                            t0.elapsed().as_secs_f64()
                        );
                    }
                }
            });
        }
    });
    let mut v = Vec::new();
    for r in results.into_inner().unwrap_or_default() {
        v.push(r.map_err(|e| Failure { message: e, code: 1 })?);
    }
    v.sort_by_key(|o| o.mutation.index);
    Ok(v)
}

/// Prints the table, the mutants that were not killed and the verdict; exit status 1 when a
/// mutant survived, was not decided or not checked, and for a merge without every shard.
fn verdict(r: &MutationReport, merged: bool) -> ExitCode {
    out!("{}", r.table());
    for o in r.outcomes.iter().filter(|o| !matches!(o.status, Status::Killed)) {
        outln!(
            "mutant {} ({}, {} at {}): {}{}",
            o.mutation.index,
            o.mutation.block(),
            o.mutation.mode(),
            o.mutation.location(),
            o.status.name(),
            o.detail.as_ref().map(|d| format!("; {d}")).unwrap_or_default()
        );
        outln!("  {}", o.mutation.command);
    }
    let c = r.counts();
    let n = r.outcomes.len();
    let summary = format!(
        "{n} mutants, {} killed, {} equivalent (set aside), {} survived, {} undecided, {} unchecked; score {:.1}% (killed / not equivalent), {} cases per mutant, seed {}, {:.0} s",
        c[&Status::Killed],
        c[&Status::Equivalent],
        c[&Status::Survived],
        c[&Status::Undecided],
        c[&Status::Unchecked],
        100.0 * r.score(),
        r.count,
        r.seed,
        r.seconds
    );
    match r.verdict() {
        Verdict::Pass => {
            outln!("PASS: {summary}");
            ExitCode::SUCCESS
        }
        Verdict::Partial if !merged => {
            outln!(
                "PASS: {summary} (shard {} of {} mutants only; `pisa mutate merge` gives the run's verdict)",
                shard_names(&r.shards),
                r.mutants
            );
            ExitCode::SUCCESS
        }
        Verdict::Partial => {
            outln!("PARTIAL: {summary}; missing shards {}", shard_names(&r.missing_shards()));
            ExitCode::from(1)
        }
        Verdict::Fail => {
            outln!("FAIL: {summary}");
            ExitCode::from(1)
        }
    }
}

fn write(r: &MutationReport, outs: &[Output], code: ExitCode) -> ExitCode {
    for o in outs {
        if let Err(e) = o.write_json(&r.to_json()) {
            errln!("pisa mutate: {} (the verdict above stands)", e.message);
            return ExitCode::from(1);
        }
    }
    code
}

fn merge(a: MergeArgs) -> Result<ExitCode, Failure> {
    let outs: Vec<Output> = a.report.iter().map(|p| Output::json(p, "--report", FORMAT)).collect();
    crate::report_file::check(&outs, &a.reports)?;
    let names: Vec<String> = a.reports.iter().map(|p| p.display().to_string()).collect();
    let mut reports = Vec::new();
    for (p, name) in a.reports.iter().zip(&names) {
        let v = crate::report_file::read_json(p, name, MAX_REPORT_BYTES, "pisa mutate")?;
        reports.push(MutationReport::from_json(&v, name).map_err(Failure::input)?);
    }
    let m = MutationReport::merge(&reports, &names).map_err(Failure::input)?;
    errln!(
        "pisa mutate merge: {} reports, shards {}, {} of {} mutants",
        reports.len(),
        shard_names(&m.shards),
        m.outcomes.len(),
        m.mutants
    );
    let code = verdict(&m, true);
    Ok(write(&m, &outs, code))
}
