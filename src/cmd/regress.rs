//! `pisa regress [--count N] [--seed S] [--ops LIST] [--config FILE] [--jobs N]
//! [--shard K/N|auto] [--vcd-on-fail DIR] [--report FILE] [--html FILE]`: the Verilated RTL
//! against the reference model on constrained-random cases; a coverage table; on a mismatch the
//! failing case as a `pisa exec` line, a VCD, and exit status 1.
//!
//! `pisa regress merge REPORT... [--report FILE] [--html FILE]`: the shard reports of one run
//! combined into one (refused for different seeds, counts, units, forms or overlapping shards).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use pisa_model::SgOp;
use pisa_sim::regress::{html, run, Options, Report};

use super::load_unit;
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
    /// Threads, each with its own model (default: the machine's cores). The result does not
    /// depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// Write a VCD of the failing case into this directory.
    #[arg(long)]
    vcd_on_fail: Option<PathBuf>,
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
fn shard(s: &str) -> Result<(u64, u64), Failure> {
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
            let k = id.checked_sub(min).map(|k| k + 1).filter(|&k| k <= count);
            k.map(|k| (k, count)).ok_or_else(|| {
                Failure::input(format!(
                    "--shard auto: SLURM_ARRAY_TASK_ID {id} is not within {min}..{min}+{count}; use a contiguous --array"
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

/// Writes the report and the HTML page the user asked for.
fn write_outputs(
    r: &Report,
    report: &Option<PathBuf>,
    html_path: &Option<PathBuf>,
) -> Result<(), Failure> {
    if let Some(p) = report {
        crate::report_file::write(p, &r.to_json())?;
    }
    if let Some(p) = html_path {
        crate::report_file::write_html(p, &html::page(r))?;
    }
    Ok(())
}

/// Prints the table and the verdict; exit status 1 on a mismatch.
fn verdict(r: &Report) -> ExitCode {
    let (hit, bins) = r.bins_hit();
    out!("{}", r.table());
    outln!("coverage: {hit}/{bins} bins hit; {} reserved-opcode cases", r.reserved_cases);
    if r.mismatches.is_empty() {
        outln!(
            "PASS: {} cases, 0 mismatches, {:.0} checked warp-ops/s ({:.2} s, {} threads), config {}, seed {}",
            r.cases,
            r.rate(),
            r.seconds,
            r.jobs,
            r.config,
            r.seed
        );
        return ExitCode::SUCCESS;
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

fn merge(a: MergeArgs) -> Result<ExitCode, Failure> {
    if let Some(r) = &a.report {
        crate::report_file::check(r)?;
    }
    if let Some(h) = &a.html {
        crate::report_file::check_html(h)?;
    }
    let mut reports = Vec::new();
    let names: Vec<String> = a.reports.iter().map(|p| p.display().to_string()).collect();
    for (p, name) in a.reports.iter().zip(&names) {
        let text = std::fs::read_to_string(p)
            .map_err(|e| Failure::input(format!("{name}: cannot read: {e}")))?;
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| Failure::input(format!("{name}:{}:{}: {e}", e.line(), e.column())))?;
        reports.push(Report::from_json(&v, name).map_err(Failure::input)?);
    }
    let m = Report::merge(&reports, &names).map_err(Failure::input)?;
    errln!(
        "pisa regress merge: {} reports, shards {}, {} of {} cases{}",
        reports.len(),
        m.shards.iter().map(|(k, n)| format!("{k}/{n}")).collect::<Vec<_>>().join(" "),
        m.cases,
        m.count,
        if m.complete() { " (the whole run)" } else { " (not every shard)" }
    );
    write_outputs(&m, &a.report, &a.html)?;
    Ok(verdict(&m))
}

pub fn main(a: Args) -> Result<ExitCode, Failure> {
    if let Some(Sub::Merge(m)) = a.cmd {
        return merge(m);
    }
    let a = a.run;
    let cfg = load_unit(a.config.as_deref(), a.preset.as_deref())?;
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
    if let Some(r) = &a.report {
        crate::report_file::check(r)?;
    }
    if let Some(h) = &a.html {
        crate::report_file::check_html(h)?;
    }
    if let Some(d) = &a.vcd_on_fail {
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
    }
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
    let opts = Options {
        count: a.count,
        seed,
        forms,
        shard,
        jobs,
        vcd_dir: a.vcd_on_fail.clone(),
        progress,
    };
    let r = run(&cfg, &opts).map_err(|e| Failure::input(e.to_string()))?;
    write_outputs(&r, &a.report, &a.html)?;
    Ok(verdict(&r))
}
