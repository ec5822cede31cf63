//! `pisa regress [--count N] [--seed S] [--ops LIST] [--config FILE] [--jobs N]
//! [--shard K/N|auto] [--vcd-on-fail DIR] [--report FILE] [--html FILE]`: the Verilated RTL
//! against the reference model on constrained-random cases; a coverage table; on a mismatch the
//! failing case as a `pisa exec` line, a VCD, and exit status 1.
//!
//! `pisa regress merge REPORT... [--report FILE] [--html FILE]`: the shard reports of one run
//! combined into one (refused for different seeds, counts, units, forms or overlapping shards).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use pisa_model::SgOp;
use pisa_sim::regress::report::{shard_names, Verdict};
use pisa_sim::regress::{html, run, Options, Report};

use super::load_unit;
use crate::report_file::{Kind, Output};
use crate::Failure;

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
    /// Combine the shard reports of one run (--report files of `pisa regress --shard K/N`).
    Merge(MergeArgs),
}

#[derive(clap::Args)]
struct RunArgs {
    /// Number of cases (over all shards).
    #[arg(long, default_value_t = 1_000_000)]
    count: u64,
    /// Seed, decimal or 0x hex; a fresh one (printed) when omitted.
    #[arg(long, value_parser = parse_seed)]
    seed: Option<u64>,
    /// Comma-separated forms to draw from (default: all, plus reserved opcodes).
    #[arg(long, value_delimiter = ',')]
    ops: Vec<String>,
    /// Unit configuration (TOML); default 32 lanes, combinational. Its Verilator model is built
    /// on first use and cached.
    #[arg(long)]
    config: Option<PathBuf>,
    /// A named 32-lane unit instead of --config: small, balanced or fast (fpga/configs/NAME.toml;
    /// sizes and speeds in docs/qor.md).
    #[arg(long, conflicts_with = "config", value_parser = clap::builder::PossibleValuesParser::new(super::preset::NAMES))]
    preset: Option<String>,
    /// Co-simulate the Verilog in this folder instead of the generator's: a folder `pisa emit`
    /// wrote (its manifest.json gives the unit), whose files may have been edited since.
    #[arg(long, conflicts_with_all = ["config", "preset"])]
    rtl_dir: Option<PathBuf>,
    /// With --rtl-dir: the emission's module prefix, when the folder holds several.
    #[arg(long, requires = "rtl_dir")]
    prefix: Option<String>,
    /// Threads, each with its own model (default: the machine's cores). The result does not
    /// depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// Write a waveform of the failing case into this directory (after the verdict).
    #[arg(long)]
    vcd_on_fail: Option<PathBuf>,
    /// The waveform's format: vcd, or fst (smaller; GTKWave and Surfer read it).
    #[arg(long, default_value = "vcd", requires = "vcd_on_fail",
          value_parser = |s: &str| s.parse::<pisa_sim::vcd_dump::WaveFormat>())]
    wave_format: pisa_sim::vcd_dump::WaveFormat,
    /// Run only shard K of N (cases with index % N == K-1), e.g. 2/4; `auto` reads PISA_SHARD=K/N
    /// or a Slurm array's SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT.
    #[arg(long, default_value = "1/1")]
    shard: String,
    /// Write the report (counts, rate, coverage, mismatches) as JSON to this file.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Write the coverage as a self-contained HTML page (a heat map, the uncovered bins).
    #[arg(long)]
    html: Option<PathBuf>,
    /// Write the result as JUnit XML: a test case per instruction form, a mismatch as its
    /// failure (with the replay line), for CI dashboards.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Measure the RTL's code coverage (Verilator's line, toggle and expression points) and
    /// write it into this folder: coverage.dat, coverage.info (lcov), html/, summary.txt.
    #[arg(long)]
    code_coverage: Option<PathBuf>,
}

#[derive(clap::Args)]
struct MergeArgs {
    /// The shard reports.
    #[arg(required = true)]
    reports: Vec<PathBuf>,
    /// Write the merged report as JSON to this file.
    #[arg(long)]
    report: Option<PathBuf>,
    /// Write the merged coverage as an HTML page.
    #[arg(long)]
    html: Option<PathBuf>,
    /// Write the merged result as JUnit XML.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Add up the shards' code coverage (each report names its --code-coverage folder) into
    /// this folder.
    #[arg(long)]
    code_coverage: Option<PathBuf>,
}

fn parse_seed(s: &str) -> Result<u64, String> {
    let t = s.replace('_', "");
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) if !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()) => {
            u64::from_str_radix(h, 16)
        }
        Some(_) => return Err(format!("'{s}' is not a hex number")),
        None if !t.is_empty() && t.chars().all(|c| c.is_ascii_digit()) => t.parse(),
        None => return Err(format!("'{s}' is not a number (decimal or 0x hex)")),
    };
    r.map_err(|_| format!("'{s}' does not fit 64 bits"))
}

fn parse_shard(s: &str, what: &str) -> Result<(u64, u64), String> {
    let (k, n) = s.split_once('/').ok_or_else(|| format!("{what}: '{s}' is not K/N"))?;
    let num =
        |x: &str| x.trim().parse::<u64>().map_err(|_| format!("{what}: '{x}' is not a number"));
    let (k, n) = (num(k)?, num(n)?);
    if n == 0 || k == 0 || k > n {
        return Err(format!("{what}: shard {k}/{n}: need 1 <= K <= N"));
    }
    Ok((k, n))
}

/// `--shard`: `K/N`, or `auto` from the engine that runs the job.
pub(crate) fn shard(s: &str) -> Result<(u64, u64), Failure> {
    if s != "auto" {
        return parse_shard(s, "--shard").map_err(Failure::input);
    }
    if let Ok(v) = std::env::var("PISA_SHARD") {
        return parse_shard(&v, "--shard auto: PISA_SHARD").map_err(Failure::input);
    }
    let var = |n: &str| std::env::var(n).ok().and_then(|v| v.trim().parse::<u64>().ok());
    match (var("SLURM_ARRAY_TASK_ID"), var("SLURM_ARRAY_TASK_COUNT")) {
        (Some(id), Some(count)) => {
            // Slurm numbers array tasks from SLURM_ARRAY_TASK_MIN (0 or 1, or anything else)
            let min = var("SLURM_ARRAY_TASK_MIN").unwrap_or(0);
            let k = id.checked_sub(min).and_then(|k| k.checked_add(1)).filter(|&k| k <= count);
            k.map(|k| (k, count)).ok_or_else(|| {
                Failure::input(format!(
                    "--shard auto: SLURM_ARRAY_TASK_ID {id} is not one of the {count} tasks from SLURM_ARRAY_TASK_MIN {min}; use a contiguous --array"
                ))
            })
        }
        _ => Err(Failure::input(
            "--shard auto: no shard in the environment: set PISA_SHARD=K/N (as .github/workflows/regress.yml does) or run in a Slurm array (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT)",
        )),
    }
}

fn bar(done: u64, total: u64, secs: f64) {
    let width = 30;
    let filled = (done * width / total.max(1)) as usize;
    let rate = done as f64 / secs.max(1e-9);
    let eta = (total - done.min(total)) as f64 / rate.max(1.0);
    crate::out::stderr(&format!(
        "\r[{}{}] {done}/{total} cases  {:.0}k/s  ETA {eta:.0}s ",
        "#".repeat(filled),
        ".".repeat(width as usize - filled.min(width as usize)),
        rate / 1e3
    ));
    if done >= total {
        errln!();
    }
}

/// The `--report` and `--html` outputs of a run or a merge.
fn outputs(
    report: &Option<PathBuf>,
    html_path: &Option<PathBuf>,
    junit: &Option<PathBuf>,
) -> Vec<Output> {
    let mut v = Vec::new();
    if let Some(p) = junit {
        v.push(Output::junit(p, "--junit"));
    }
    if let Some(p) = report {
        v.push(Output::json(p, "--report", pisa_sim::regress::report::FORMAT));
    }
    if let Some(p) = html_path {
        v.push(Output::html(p, "--html"));
    }
    v
}

/// Writes the report and the HTML page the user asked for, after the verdict is printed: a
/// failed write is reported after it, with exit status 1.
fn write_outputs(r: &Report, outputs: &[Output], merged: bool, code: ExitCode) -> ExitCode {
    let mut failed = false;
    for o in outputs {
        let result = match o.kind {
            Kind::Json(_) => o.write_json(&r.to_json()),
            Kind::Html => o.write_html(&html::page(r)),
            Kind::Junit => o.write(&crate::junit::junit(r, merged)),
        };
        if let Err(e) = result {
            errln!("pisa regress: {} (the verdict above stands)", e.message);
            failed = true;
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        code
    }
}

/// Prints the table and the verdict: exit status 1 on a mismatch, and for a merge (`merged`)
/// that does not cover every shard of the run (PARTIAL). A single shard of a split run passes
/// as that shard, and says so.
fn verdict(r: &Report, merged: bool) -> ExitCode {
    let (hit, bins) = r.bins_hit();
    out!("{}", r.table());
    outln!("coverage: {hit}/{bins} bins hit; {} reserved-opcode cases", r.reserved_cases);
    let whole = r.complete();
    match r.verdict() {
        Verdict::Pass | Verdict::Partial if whole || !merged => {
            let part = if whole {
                String::new()
            } else {
                format!(
                    " (shard {} of a {}-case run only; `pisa regress merge` gives the run's verdict)",
                    shard_names(&r.shards),
                    r.count
                )
            };
            outln!(
                "PASS: {} cases, 0 mismatches, {:.0} checked warp-ops/s ({:.2} s, {} threads), config {}, seed {}{part}",
                r.cases,
                r.rate(),
                r.seconds,
                r.jobs,
                r.config,
                r.seed
            );
            ExitCode::SUCCESS
        }
        Verdict::Pass | Verdict::Partial => {
            let missing = r.missing_shards();
            outln!(
                "PARTIAL: {} of {} cases checked, 0 mismatches, but the reports hold shards {} of {}: missing {}{}; not a PASS of the run (config {}, seed {})",
                r.cases,
                r.count,
                shard_names(&r.shards),
                r.shards.first().map_or(0, |s| s.1),
                shard_names(&missing),
                if missing.len() == 8 { " ..." } else { "" },
                r.config,
                r.seed
            );
            ExitCode::from(1)
        }
        Verdict::Fail => {
            for line in crate::junit::annotations(r) {
                outln!("{line}");
            }
            for m in &r.mismatches {
                outln!("FAIL: case {} of seed {} ({}) on {}:", m.index, r.seed, m.form(), r.config);
                for d in m.differences() {
                    outln!("  {d}");
                }
                outln!("replay (pisa exec [--backend rtl]):\n{}", m.replay);
                if let Some(v) = &m.vcd {
                    outln!("VCD: {}", v.display());
                }
            }
            ExitCode::from(1)
        }
    }
}

/// Writes the report's code coverage into `dir` (after the verdict), prints its summary and
/// records where it went; a failed write is reported after the verdict, with exit status 1.
fn write_coverage(
    r: &mut Report,
    dir: &Path,
    commit: pisa_rtl::outdir::Commit,
    sources: &[(String, Vec<u8>)],
    tools: &crate::coverage_out::Tools,
    code: ExitCode,
) -> ExitCode {
    let mut cov = r.code_coverage.clone().unwrap_or_default();
    if let Err(e) = crate::coverage_out::waive(&mut cov, sources) {
        commit.abandon();
        errln!("pisa regress: {} (the verdict above stands)", e.message);
        return ExitCode::from(1);
    }
    r.code_coverage = Some(cov.clone());
    match crate::coverage_out::write(dir, commit, &cov, sources, tools) {
        Ok(sha) => {
            out!("{}", cov.table());
            outln!("code coverage: {} (html/index.html)", dir.display());
            r.code_coverage_dir = Some((absolute(dir), sha));
            code
        }
        Err(e) => {
            errln!("pisa regress: {} (the verdict above stands)", e.message);
            ExitCode::from(1)
        }
    }
}

/// `p` as an absolute path (for a report read from another folder).
fn absolute(p: &Path) -> String {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()).display().to_string()
}

/// The largest report `merge` reads (a report of every form holds about 60 KB).
const MAX_REPORT_BYTES: u64 = 64 << 20;

fn merge(a: MergeArgs) -> Result<ExitCode, Failure> {
    let outs = outputs(&a.report, &a.html, &a.junit);
    crate::report_file::check(&outs, &a.reports)?;
    let mut reports = Vec::new();
    let names: Vec<String> = a.reports.iter().map(|p| p.display().to_string()).collect();
    for (p, name) in a.reports.iter().zip(&names) {
        let v = crate::report_file::read_json(p, name, MAX_REPORT_BYTES, "pisa regress")?;
        reports.push(Report::from_json(&v, name).map_err(Failure::input)?);
    }
    let cov_plan = match &a.code_coverage {
        Some(d) => Some((crate::coverage_out::tools()?, crate::coverage_out::DIR.begin(d, false)?)),
        None => None,
    };
    let mut m = Report::merge(&reports, &names).map_err(Failure::input)?;
    errln!(
        "pisa regress merge: {} reports, shards {}, {} of {} cases{}",
        reports.len(),
        shard_names(&m.shards),
        m.cases,
        m.count,
        if m.complete() { " (the whole run)" } else { " (not every shard)" }
    );
    let mut code = verdict(&m, true);
    if let (Some(dir), Some((tools, commit))) = (&a.code_coverage, cov_plan) {
        let mut total = pisa_sim::regress::code_coverage::CodeCoverage::default();
        let mut sources = Vec::new();
        for (r, name) in reports.iter().zip(&names) {
            let Some((d, sha)) = &r.code_coverage_dir else {
                commit.abandon();
                return Err(Failure::input(format!(
                    "{name}: has no code coverage (run the shards with --code-coverage)"
                )));
            };
            // where the shard wrote it, or beside its report (shards run on other machines
            // and their folders are collected next to their reports)
            let mut dir = PathBuf::from(d);
            let report_dir = Path::new(name).parent().unwrap_or(Path::new(""));
            if let (false, Some(base)) = (dir.is_dir(), dir.file_name()) {
                dir = report_dir.join(base);
            }
            let (c, s) = match crate::coverage_out::read(&dir, sha, name) {
                Ok(x) => x,
                Err(e) => {
                    commit.abandon();
                    return Err(e);
                }
            };
            if let Err(e) = total.add(&c) {
                commit.abandon();
                return Err(Failure::input(e));
            }
            if sources.is_empty() {
                sources = s;
            }
        }
        m.code_coverage = Some(total);
        code = write_coverage(&mut m, dir, commit, &sources, &tools, code);
    }
    Ok(write_outputs(&m, &outs, true, code))
}

pub fn main(a: Args) -> Result<ExitCode, Failure> {
    if let Some(Sub::Merge(m)) = a.cmd {
        return merge(m);
    }
    let a = a.run;
    let sources = match &a.rtl_dir {
        Some(d) => Some(
            pisa_sim::model::RtlSources::read(d, a.prefix.as_deref())
                .map_err(|e| Failure::input(format!("--rtl-dir {}: {e}", d.display())))?,
        ),
        None => None,
    };
    let cfg = match &sources {
        Some(s) => s.cfg.clone(),
        None => load_unit(a.config.as_deref(), a.preset.as_deref())?,
    };
    if let Some(s) = &sources {
        errln!(
            "pisa regress: the Verilog of {} (top {}; {})",
            s.dir.display(),
            s.top,
            if s.edited.is_empty() {
                "as emitted".to_string()
            } else {
                format!("edited since emitted: {}", s.edited.join(", "))
            }
        );
    }
    let shard = shard(&a.shard)?;
    if a.count == 0 {
        return Err(Failure::input("--count 0: a run that checks nothing cannot pass"));
    }
    if shard.0 > a.count {
        return Err(Failure::input(format!(
            "--shard {}/{}: shard {} of a {}-case run has no case",
            shard.0, shard.1, shard.0, a.count
        )));
    }
    if a.jobs == Some(0) {
        return Err(Failure::input("--jobs 0: give at least one thread"));
    }
    let outs = outputs(&a.report, &a.html, &a.junit);
    let mut inputs: Vec<PathBuf> = a.config.iter().cloned().collect();
    if let Some(s) = &sources {
        inputs.extend(s.files.iter().map(|(f, _)| s.dir.join(f)));
        inputs.push(s.dir.join("manifest.json"));
    }
    crate::report_file::check(&outs, &inputs)?;
    if let Some(d) = &a.vcd_on_fail {
        if std::fs::symlink_metadata(d).is_ok_and(|m| m.is_symlink()) {
            return Err(Failure::input(format!(
                "--vcd-on-fail {}: is a symbolic link; give the folder itself",
                d.display()
            )));
        }
        if d.exists() && !d.is_dir() {
            return Err(Failure::input(format!("--vcd-on-fail {}: not a folder", d.display())));
        }
        let parent =
            d.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        if !d.exists() && !parent.is_dir() {
            return Err(Failure::input(format!(
                "--vcd-on-fail {}: its folder {} does not exist",
                d.display(),
                parent.display()
            )));
        }
        let probe = if d.exists() { d.as_path() } else { parent };
        crate::report_file::probe_writable(probe).map_err(|e| {
            Failure::input(format!(
                "--vcd-on-fail {}: {} cannot be written: {e}",
                d.display(),
                probe.display()
            ))
        })?;
    }
    let cov_plan = match &a.code_coverage {
        Some(d) => Some((crate::coverage_out::tools()?, crate::coverage_out::DIR.begin(d, false)?)),
        None => None,
    };
    let forms: Vec<SgOp> = a
        .ops
        .iter()
        .map(|f| f.parse::<SgOp>().map_err(|e| Failure::input(format!("--ops: {e}"))))
        .collect::<Result<_, _>>()?;
    let seed = a.seed.unwrap_or_else(|| {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1);
        t ^ (std::process::id() as u64).rotate_left(32)
    });
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    errln!(
        "pisa regress: config {} ({} lanes, latency {}), seed {seed}{}, {} cases, shard {}/{}, {jobs} threads",
        cfg.tag(),
        cfg.lanes,
        cfg.latency(),
        if a.seed.is_none() { " (fresh)" } else { "" },
        a.count,
        shard.0,
        shard.1
    );
    // a progress bar on a terminal; a line per tenth of a long run in a log
    let terminal = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
    let last = std::sync::Mutex::new(0u64);
    let log_line = |done: u64, total: u64, secs: f64| {
        let step = (total / 10).max(1);
        if let Ok(mut l) = last.lock() {
            if done / step > *l / step || done == total {
                *l = done;
                errln!(
                    "progress: {done}/{total} cases, {:.0}k/s",
                    done as f64 / secs.max(1e-9) / 1e3
                );
            }
        }
    };
    let progress: Option<&(dyn Fn(u64, u64, f64) + Sync)> = if terminal {
        Some(&bar)
    } else if a.count >= 2_000_000 {
        Some(&log_line)
    } else {
        None
    };
    // the VCD is written after the verdict is printed (below), so that a folder that cannot
    // take it does not hide the verdict
    let opts = Options {
        count: a.count,
        seed,
        forms,
        shard,
        jobs,
        vcd_dir: None,
        progress,
        rtl: sources.as_ref(),
        wave_format: a.wave_format,
        code_coverage: a.code_coverage.is_some(),
        mutant: 0,
    };
    let mut r = run(&cfg, &opts).map_err(|e| Failure::input(e.to_string()))?;
    let mut code = verdict(&r, false);
    if let Some(dir) = &a.vcd_on_fail {
        for m in &mut r.mismatches {
            let format = a.wave_format;
            match pisa_sim::regress::write_mismatch_vcd(&cfg, sources.as_ref(), format, m, dir) {
                Ok(p) => {
                    outln!("{}: {}", format.extension().to_uppercase(), p.display());
                    m.vcd = Some(p);
                }
                Err(e) => {
                    errln!("pisa regress: --vcd-on-fail: {e} (the verdict above stands)");
                    code = ExitCode::from(1);
                }
            }
        }
    }
    if let (Some(dir), Some((tools, commit))) = (&a.code_coverage, cov_plan) {
        let sources: Vec<(String, Vec<u8>)> = match &sources {
            Some(s) => s.files.clone(),
            None => {
                let d =
                    pisa_rtl::design::design(&cfg, pisa_rtl::design::BlockName::Unit, "pisa_sg")
                        .map_err(|e| Failure { message: format!("emit failed: {e}"), code: 1 })?;
                let mut v: Vec<(String, Vec<u8>)> = d
                    .modules
                    .iter()
                    .map(|m| (format!("{}.v", m.name), m.text.clone().into_bytes()))
                    .collect();
                // the header the modules include
                v.push((
                    pisa_rtl::integration::header_file(&d.prefix),
                    pisa_rtl::integration::header(&d).into_bytes(),
                ));
                v
            }
        };
        code = write_coverage(&mut r, dir, commit, &sources, &tools, code);
    }
    Ok(write_outputs(&r, &outs, false, code))
}
