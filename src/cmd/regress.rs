//! `pisa regress --count N --seed S [--ops LIST] [--config FILE] [--vcd-on-fail DIR]
//! [--shard K/N] [--report FILE]`: the Verilated RTL against the reference model on
//! constrained-random cases; a coverage table; on a mismatch the failing case as a `pisa exec`
//! line, a VCD, and exit status 1.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use pisa_model::gen::MaskClass;
use pisa_model::SgOp;
use pisa_sim::regress::{run, Options, Report};

use super::load_config;
use crate::Failure;

#[derive(clap::Args)]
pub struct Args {
    /// Number of cases (over all shards).
    #[arg(long, default_value_t = 1_000_000)]
    count: u64,
    /// Seed, decimal or 0x hex; a fresh one (printed) when omitted.
    #[arg(long, value_parser = parse_seed)]
    seed: Option<u64>,
    /// Comma-separated forms to draw from (default: all, plus reserved opcodes).
    #[arg(long, value_delimiter = ',')]
    ops: Vec<String>,
    /// Unit configuration (TOML); default 32 lanes, combinational. Must be prebuilt.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Write a VCD of the failing case into this directory.
    #[arg(long)]
    vcd_on_fail: Option<PathBuf>,
    /// Run only shard K of N (cases with index % N == K-1), e.g. 2/4.
    #[arg(long, default_value = "1/1", value_parser = parse_shard)]
    shard: (u64, u64),
    /// Write the report (counts, rate, coverage, mismatch) as JSON to this file.
    #[arg(long)]
    report: Option<PathBuf>,
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

fn parse_shard(s: &str) -> Result<(u64, u64), String> {
    let (k, n) = s.split_once('/').ok_or_else(|| format!("'{s}' is not K/N"))?;
    let (k, n): (u64, u64) = (
        k.trim().parse().map_err(|_| format!("'{k}' is not a number"))?,
        n.trim().parse().map_err(|_| format!("'{n}' is not a number"))?,
    );
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard {k}/{n}: need 1 <= K <= N"));
    }
    Ok((k, n))
}

fn progress_tty(done: u64, total: u64, secs: f64) {
    let width = 30;
    let filled = (done * width / total.max(1)) as usize;
    let rate = done as f64 / secs.max(1e-9);
    let eta = (total - done) as f64 / rate.max(1.0);
    crate::out::stderr(&format!(
        "\r[{}{}] {done}/{total} cases  {:.0}k/s  ETA {eta:.0}s ",
        "#".repeat(filled),
        ".".repeat(width as usize - filled),
        rate / 1e3
    ));
    if done == total {
        errln!();
    }
}

fn progress_log(done: u64, total: u64, secs: f64) {
    // in logs: a line per ~10 %
    let step = (total / 10).max(1);
    if done == total || done % step < 4096 {
        errln!("progress: {done}/{total} cases, {:.0}k/s", done as f64 / secs.max(1e-9) / 1e3);
    }
}

fn coverage_table(r: &Report) -> String {
    let classes = [MaskClass::Empty, MaskClass::Single, MaskClass::Partial, MaskClass::Full];
    let mut rows: Vec<(String, [u64; 4])> = Vec::new();
    for (bin, &count) in &r.coverage {
        let name = match bin.segmask {
            Some(s) => format!("{} {}", bin.op, s.name()),
            None => bin.op.to_string(),
        };
        let col = classes.iter().position(|c| *c == bin.mask).unwrap_or(0);
        match rows.last_mut() {
            Some((n, counts)) if *n == name => counts[col] = count,
            _ => {
                let mut counts = [0; 4];
                counts[col] = count;
                rows.push((name, counts));
            }
        }
    }
    let mut out = format!(
        "{:<34} {:>9} {:>9} {:>9} {:>9}\n",
        "form (participation:)", "empty", "single", "partial", "full"
    );
    for (name, c) in rows {
        let cell = |v: u64| if v == 0 { "-".to_string() } else { v.to_string() };
        out.push_str(&format!(
            "{name:<34} {:>9} {:>9} {:>9} {:>9}\n",
            cell(c[0]),
            cell(c[1]),
            cell(c[2]),
            cell(c[3])
        ));
    }
    out
}

pub fn main(a: Args) -> Result<ExitCode, Failure> {
    let cfg = load_config(a.config.as_deref())?;
    if a.count == 0 {
        return Err(Failure::input("--count 0: a run that checks nothing cannot pass"));
    }
    if a.shard.0 > a.count {
        return Err(Failure::input(format!(
            "--shard {}/{}: shard {} of a {}-case run has no case",
            a.shard.0, a.shard.1, a.shard.0, a.count
        )));
    }
    if let Some(r) = &a.report {
        crate::report_file::check(r)?;
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
    errln!(
        "pisa regress: config {} ({} lanes, latency {}), seed {seed}{}, {} cases, shard {}/{}",
        cfg.tag(),
        cfg.lanes,
        cfg.latency(),
        if a.seed.is_none() { " (fresh)" } else { "" },
        a.count,
        a.shard.0,
        a.shard.1
    );
    let opts = Options {
        count: a.count,
        seed,
        forms,
        shard: a.shard,
        vcd_dir: a.vcd_on_fail.clone(),
        progress: Some(if std::io::stderr().is_terminal() { progress_tty } else { progress_log }),
    };
    let r = run(&cfg, &opts).map_err(|e| Failure::input(e.to_string()))?;
    let (hit, bins) = r.bins_hit();
    out!("{}", coverage_table(&r));
    outln!("coverage: {hit}/{bins} bins hit; {} reserved-opcode cases", r.reserved_cases);
    if let Some(path) = &a.report {
        let json = serde_json::json!({
            "format": "pisa-regress-report/1", "config": r.config, "seed": r.seed, "cases": r.cases, "seconds": r.seconds,
            "checked_warp_ops_per_s": r.rate().round(), "cycles": r.cycles,
            "bins_hit": hit, "bins": bins, "reserved_cases": r.reserved_cases,
            "mismatch": r.mismatch.as_ref().map(|m| serde_json::json!({"case": m.index, "replay": m.replay, "vcd": m.vcd})),
        });
        crate::report_file::write(path, &json)?;
    }
    match &r.mismatch {
        None => {
            outln!(
                "PASS: {} cases, 0 mismatches, {:.0} checked warp-ops/s ({:.2} s), config {}, seed {}",
                r.cases,
                r.rate(),
                r.seconds,
                r.config,
                r.seed
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(m) => {
            outln!(
                "FAIL: case {} of seed {} ({}) on {}:",
                m.index,
                r.seed,
                m.op.map(|o| o.to_string())
                    .unwrap_or_else(|| format!("reserved op_i {:#04x}", m.opcode)),
                r.config
            );
            if m.got.wen != m.expected.wen {
                outln!("  wen: rtl {:#x}, model {:#x}", m.got.wen, m.expected.wen);
            }
            for l in 0..m.lanes {
                if m.expected.wen >> l & 1 != 0 && m.got.dst[l] != m.expected.dst[l] {
                    outln!(
                        "  lane {l}: rtl {:#010x}, model {:#010x}",
                        m.got.dst[l],
                        m.expected.dst[l]
                    );
                }
            }
            outln!("replay (pisa exec [--backend rtl]):\n{}", m.replay);
            if let Some(v) = &m.vcd {
                outln!("VCD: {}", v.display());
            }
            Ok(ExitCode::from(1))
        }
    }
}
