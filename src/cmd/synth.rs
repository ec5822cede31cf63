//! `pisa synth --target {ecp5,ice40,xc7} [--config FILE | --preset NAME] [--block NAME] [--pnr]
//! [--freq MHZ] [--route-margin MHZ] [--seeds LIST] [--jobs N]
//! [--equiv] [--out DIR] [--max-luts N]`: yosys synthesis of the emitted RTL and of a plain
//! behavioural baseline of the same block, with `--equiv` a proof that the netlist equals the RTL
//! (`fpga/equiv.sh`), and with `--pnr` nextpnr place and route of the RTL in a registered-I/O
//! harness; prints a Markdown table and writes `report.json` / `report.md`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use pisa_fpga::{equiv, pnr, synth, Equivalence, SynthResult, Target};
use pisa_rtl::config::{Router, UnitConfig};
use pisa_rtl::design::{design, BlockName};

use super::load_unit;
use crate::Failure;

#[derive(clap::Args)]
pub struct Args {
    /// FPGA family: ecp5 (synth_ecp5), ice40 (synth_ice40) or xc7 (synth_xilinx -family xc7).
    #[arg(long, value_parser = |s: &str| s.parse::<Target>())]
    target: Target,
    /// Unit configuration (TOML: lanes, pipeline, pipeline_at, pipeline_extra, crossbar, reduction; docs/configuration.md); default 32 lanes, combinational.
    #[arg(long)]
    config: Option<PathBuf>,
    /// A named 32-lane unit instead of --config: small, balanced or fast (fpga/configs/NAME.toml;
    /// sizes and speeds in docs/qor.md).
    #[arg(long, conflicts_with = "config", value_parser = clap::builder::PossibleValuesParser::new(super::preset::NAMES))]
    preset: Option<String>,
    /// What to synthesize: unit, xbar, reduce or lzc.
    #[arg(long, default_value = "unit", value_parser = |s: &str| s.parse::<BlockName>())]
    block: BlockName,
    /// Also place and route (ecp5: LFE5U-85F-8 out of context; ice40: HX8K) and report Fmax.
    #[arg(long)]
    pnr: bool,
    /// The clock place and route must meet, MHz: the report counts the seeds whose Fmax meets it.
    #[arg(long, default_value_t = 150.0)]
    freq: f64,
    /// nextpnr is given --freq plus this many MHz. Its timing-driven rip-up works on the paths
    /// that miss nextpnr's target, so a target above the goal closes the goal on more seeds (the
    /// 32-lane `fast` preset: seed 2 149.8 MHz routed at 150, 161.0 routed at 160; docs/qor.md).
    /// 0 routes at --freq.
    #[arg(long, default_value_t = 10.0)]
    route_margin: f64,
    /// nextpnr's router: router2 (ECP5: with timing-driven rip-up) or router1. Default: the
    /// configuration's `[pnr] router` (the `small` preset: router1), else router2 on ECP5 and
    /// nextpnr's own default on iCE40.
    #[arg(long, value_parser = |s: &str| s.parse::<Router>())]
    router: Option<Router>,
    /// Placer seeds of place and route, comma-separated (e.g. 1,2,3): one run per seed, the report
    /// gives each seed's Fmax and the best. The Fmax of one netlist varies with the seed.
    #[arg(long, value_delimiter = ',', default_value = "1")]
    seeds: Vec<u32>,
    /// Place-and-route runs at a time (one nextpnr process each); default: the machine's cores,
    /// at most one per seed.
    #[arg(long)]
    jobs: Option<usize>,
    /// Prove the synthesized netlist equal to the emitted RTL (yosys cell models + ABC dprove;
    /// combinational configurations). Exit 1 when they differ.
    #[arg(long)]
    equiv: bool,
    /// Skip the behavioural baseline.
    #[arg(long)]
    no_baseline: bool,
    /// Output directory (default: target/synth/<target>_<block>_<config>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Exit 1 when the RTL needs more LUTs than this (a QoR gate for CI).
    #[arg(long)]
    max_luts: Option<u64>,
    /// Replace files in --out even if pisa synth did not write them or they changed since.
    #[arg(long)]
    force: bool,
}

fn io(p: &Path) -> impl Fn(std::io::Error) -> Failure + '_ {
    move |e| Failure::input(format!("{}: {e}", p.display()))
}

/// The baseline of `block` for `lanes`: (top, files written into `dir`).
fn baseline(block: BlockName, lanes: usize, dir: &Path) -> Result<(String, Vec<PathBuf>), Failure> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let pisa_fpga::baseline::Baseline { top, files } =
        pisa_fpga::baseline::sources(block.name(), lanes).map_err(Failure::input)?;
    let mut paths = Vec::new();
    for (name, text) in &files {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(io(&p))?;
        paths.push(p);
    }
    Ok((top, paths))
}

fn row(s: &mut String, what: &str, r: &SynthResult, target: Target, base: Option<&SynthResult>) {
    let ratio = base
        .filter(|b| b.luts > 0)
        .map(|b| format!("{:.2}", r.luts as f64 / b.luts as f64))
        .unwrap_or_else(|| "—".into());
    let mux: Vec<String> = target
        .mux_cells()
        .iter()
        .map(|m| format!("{} {}", r.cells.get(*m).copied().unwrap_or(0), m))
        .collect();
    let carry: u64 = r
        .cells
        .iter()
        .filter(|(k, _)| k.contains("CCU2") || k.contains("CARRY"))
        .map(|(_, n)| n)
        .sum();
    writeln!(
        s,
        "| {what} | {} | {} | {} | {} | {} | {ratio} | {:.0} s |",
        r.luts,
        if mux.is_empty() { "—".to_string() } else { mux.join(", ") },
        carry,
        r.ffs,
        r.logic_levels.map(|l| l.to_string()).unwrap_or_else(|| "?".into()),
        r.seconds
    )
    .unwrap();
}

/// Fmax over placer seeds: the worst, the median (the mean of the middle two for an even count)
/// and the best.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Spread {
    worst: f64,
    median: f64,
    best: f64,
}

impl Spread {
    fn of(fmax: &[f64]) -> Spread {
        let mut v = fmax.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n == 0 {
            return Spread { worst: 0.0, median: 0.0, best: 0.0 };
        }
        let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        Spread { worst: v[0], median, best: v[n - 1] }
    }
}

/// What `pisa synth` writes into its `--out` folder, and the record of it.
const OUT: crate::managed_dir::Managed = crate::managed_dir::Managed {
    flag: "--out",
    command: "pisa synth",
    ledger: "pisa-synth.json",
    format: "pisa-synth/1",
    ours: &[
        "report.json",
        "report.md",
        "rtl",
        "synth",
        "baseline",
        "baseline_synth",
        "pnr",
        "equiv",
    ],
};

/// Emits `block` for `cfg` with module prefix `prefix` into `dir`: (top module, the .v files).
fn emit(
    cfg: &UnitConfig,
    block: BlockName,
    prefix: &str,
    dir: &Path,
) -> Result<(String, Vec<PathBuf>, Vec<pisa_fpga::wrap::Port>), Failure> {
    let d = design(cfg, block, prefix)
        .map_err(|e| Failure { message: format!("emit failed: {e}"), code: 1 })?;
    let files = d.write(dir, false).map_err(|e| Failure::input(e.to_string()))?;
    // the top's ports as the manifest records them (not parsed back from the text)
    let ports = d
        .modules
        .iter()
        .find(|m| m.name == d.top)
        .map(|m| {
            m.ports
                .iter()
                .map(|p| pisa_fpga::wrap::Port {
                    name: p.name.clone(),
                    input: p.dir == "input",
                    width: p.width,
                })
                .collect()
        })
        .unwrap_or_default();
    let files = files.into_iter().filter(|f| f.extension().is_some_and(|x| x == "v")).collect();
    Ok((d.top, files, ports))
}

pub fn main(a: Args) -> Result<ExitCode, Failure> {
    let cfg = load_unit(a.config.as_deref(), a.preset.as_deref())?;
    if a.pnr && a.target == Target::Xc7 {
        return Err(Failure::input(
            "--pnr: no open place-and-route flow for xc7 here (use ecp5 or ice40)",
        ));
    }
    if a.seeds.is_empty() || a.seeds.len() > 16 || a.seeds.contains(&0) {
        return Err(Failure::input(format!(
            "--seeds {:?}: give 1 to 16 seeds, each at least 1",
            a.seeds
        )));
    }
    if let Some(seed) =
        a.seeds.iter().enumerate().find_map(|(i, s)| a.seeds[..i].contains(s).then_some(*s))
    {
        // each seed has its own directory pnr/seed<N>/: a repeat would overwrite its first run
        return Err(Failure::input(format!("--seeds: seed {seed} is given twice")));
    }
    if a.jobs == Some(0) {
        return Err(Failure::input("--jobs 0: give at least 1 place-and-route run at a time"));
    }
    if !(1.0..=1000.0).contains(&a.freq) {
        return Err(Failure::input(format!(
            "--freq {}: give a clock between 1 and 1000 MHz",
            a.freq
        )));
    }
    if !(0.0..=500.0).contains(&a.route_margin) {
        return Err(Failure::input(format!(
            "--route-margin {}: give 0 to 500 MHz above --freq",
            a.route_margin
        )));
    }
    let route_mhz = a.freq + a.route_margin;
    let router = a.router.or(cfg.pnr.router);
    // what the report names as the router: NEXTPNR_ECP5_FLOW replaces the whole ECP5 flow
    let flow = match std::env::var("NEXTPNR_ECP5_FLOW") {
        Ok(f) if a.target == Target::Ecp5 => format!("NEXTPNR_ECP5_FLOW=\"{f}\""),
        _ => match (router, a.target) {
            (Some(r), _) => r.name().to_string(),
            (None, Target::Ecp5) => "router2".to_string(),
            (None, _) => "nextpnr's default router".to_string(),
        },
    };
    if a.equiv && cfg.latency() > 0 {
        return Err(Failure::input(format!(
            "--equiv: proves combinational netlists only; this configuration has latency {} (set pipeline = 0)",
            cfg.latency()
        )));
    }
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from(format!("target/synth/{}_{}_{}", a.target.name(), a.block.name(), cfg.tag()))
    });
    let commit = OUT.begin(&out, a.force)?;
    let work = commit.staging().to_path_buf();
    let (top, files, ports) = emit(&cfg, a.block, "pisa_sg", &work.join("rtl"))?;
    errln!(
        "synth: {} of {} ({} lanes, latency {}) for {} ...",
        a.block,
        top,
        cfg.lanes,
        cfg.latency(),
        a.target.name()
    );
    let fail = |e: pisa_fpga::FpgaError| Failure { message: e.to_string(), code: 1 };
    let rtl = synth(a.target, &top, &files, &work.join("synth")).map_err(fail)?;
    let equivalence = if a.equiv {
        errln!("synth: proving the netlist equal to the RTL ...");
        let (gold_top, gold_files, _) =
            emit(&cfg, a.block, "pisa_gold", &work.join("equiv").join("rtl"))?;
        Some(
            equiv(a.target, &rtl.netlist, &top, &gold_top, &gold_files, &work.join("equiv"))
                .map_err(fail)?,
        )
    } else {
        None
    };
    // a baseline that fails to synthesize does not throw the RTL's numbers away: the report is
    // written with the failure named in it, and the exit status is 1
    let (base, base_error) = if a.no_baseline {
        (None, None)
    } else {
        let (btop, bfiles) = baseline(a.block, cfg.lanes, &work.join("baseline"))?;
        errln!("synth: baseline {btop} ...");
        match synth(a.target, &btop, &bfiles, &work.join("baseline_synth")) {
            Ok(b) => (Some(b), None),
            Err(e) => {
                errln!("synth: the baseline {btop} failed: {e}");
                (None, Some(e.to_string()))
            }
        }
    };
    let pnr_runs = if a.pnr {
        let wrap = work.join("pnr").join("pisa_fpga_wrap.v");
        std::fs::create_dir_all(work.join("pnr")).map_err(io(&work))?;
        std::fs::write(&wrap, pisa_fpga::wrap::wrapper(&top, &ports)).map_err(io(&wrap))?;
        let mut wfiles = files.clone();
        wfiles.push(wrap);
        let w = synth(a.target, "pisa_fpga_wrap", &wfiles, &work.join("pnr")).map_err(fail)?;
        // one seed: in pnr/; several: pnr/seed<N>/ each, `jobs` of them at a time
        let jobs = a
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
        let jobs = jobs.clamp(1, a.seeds.len());
        let dir_of = |seed: u32| {
            if a.seeds.len() == 1 {
                work.join("pnr")
            } else {
                work.join("pnr").join(format!("seed{seed}"))
            }
        };
        errln!(
            "synth: place and route for {} MHz (nextpnr's target {} MHz, {flow}), seeds {:?}, {jobs} at a time ...",
            a.freq,
            route_mhz,
            a.seeds
        );
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results: Vec<std::sync::Mutex<Option<Result<pisa_fpga::PnrResult, String>>>> =
            a.seeds.iter().map(|_| std::sync::Mutex::new(None)).collect();
        std::thread::scope(|s| {
            for _ in 0..jobs {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&seed) = a.seeds.get(i) else { break };
                    let r = pnr(
                        a.target,
                        &w.netlist,
                        &dir_of(seed),
                        route_mhz,
                        seed,
                        router.map(Router::name),
                    )
                    .map_err(|e| e.to_string());
                    match &r {
                        Ok(p) => {
                            errln!("synth: seed {seed}: {:.1} MHz ({:.0} s)", p.fmax_mhz, p.seconds)
                        }
                        Err(e) => errln!("synth: seed {seed}: failed: {e}"),
                    }
                    if let Ok(mut slot) = results[i].lock() {
                        *slot = Some(r);
                    }
                });
            }
        });
        let mut runs = Vec::new();
        for (slot, seed) in results.into_iter().zip(&a.seeds) {
            match slot.into_inner().ok().flatten() {
                Some(Ok(r)) => runs.push(r),
                Some(Err(e)) => return Err(Failure { message: e, code: 1 }),
                None => {
                    return Err(Failure { message: format!("seed {seed}: no result"), code: 1 })
                }
            }
        }
        runs
    } else {
        Vec::new()
    };
    let pnr_best = pnr_runs.iter().max_by(|x, y| x.fmax_mhz.total_cmp(&y.fmax_mhz)).cloned();
    let spread = Spread::of(&pnr_runs.iter().map(|r| r.fmax_mhz).collect::<Vec<_>>());
    let meeting = pnr_runs.iter().filter(|r| r.fmax_mhz >= a.freq).count();

    let lut = a.target.lut_name();
    let mut md = String::new();
    writeln!(
        md,
        "### {} `{}` — {} lanes, latency {} cycles, {}\n",
        a.target.name(),
        a.block,
        cfg.lanes,
        cfg.latency(),
        top
    )
    .unwrap();
    writeln!(md, "| design | {lut}s | wide muxes | carry | FFs | logic levels | {lut} ratio to baseline | synth time |").unwrap();
    writeln!(md, "|---|---|---|---|---|---|---|---|").unwrap();
    row(&mut md, "generator RTL", &rtl, a.target, base.as_ref());
    if let Some(b) = &base {
        row(&mut md, "behavioural baseline", b, a.target, None);
    }
    if let Some(e) = &base_error {
        writeln!(md, "\nBehavioural baseline: **failed to synthesize** ({e}); no ratio.").unwrap();
    }
    if let Some(e) = equivalence {
        let what = match e {
            Equivalence::Equivalent => "**equivalent** to the RTL (ABC dprove)",
            Equivalence::Different => {
                "**DIFFERENT** from the RTL (ABC found a counterexample; see equiv/abc.log)"
            }
            Equivalence::Undecided => "undecided against the RTL (ABC gave up; see equiv/abc.log)",
        };
        writeln!(md, "\nNetlist: {what}.").unwrap();
    }
    if let Some(p) = &pnr_best {
        if pnr_runs.len() == 1 {
            writeln!(
                md,
                "\nPlace and route: **{:.1} MHz** achieved, {} MHz {} (nextpnr's target {} MHz, {flow}, seed {}), {:.0} s.",
                p.fmax_mhz,
                a.freq,
                if p.fmax_mhz >= a.freq { "met" } else { "**missed**" },
                route_mhz,
                p.seed,
                p.seconds
            )
            .unwrap();
        } else {
            let each: Vec<String> =
                pnr_runs.iter().map(|r| format!("seed {}: {:.1}", r.seed, r.fmax_mhz)).collect();
            let total: f64 = pnr_runs.iter().map(|r| r.seconds).sum();
            writeln!(
                md,
                "\nPlace and route: **{:.1} MHz** achieved, best of {} seeds ({}); {} MHz met on {} of {} seeds (nextpnr's target {} MHz, {flow}); worst {:.1}, median {:.1} MHz; {:.0} s of nextpnr.",
                p.fmax_mhz,
                pnr_runs.len(),
                each.join(", "),
                a.freq,
                meeting,
                pnr_runs.len(),
                route_mhz,
                spread.worst,
                spread.median,
                total
            )
            .unwrap();
        }
        let util: Vec<String> =
            p.utilization.iter().map(|(k, (u, n))| format!("{k} {u}/{n}")).collect();
        writeln!(md, "Utilisation (with harness): {}.", util.join(", ")).unwrap();
        if !p.critical_path.is_empty() {
            writeln!(
                md,
                "Critical path ({} segments): {} … {}",
                p.critical_path.len(),
                p.critical_path[0],
                p.critical_path[p.critical_path.len() - 1]
            )
            .unwrap();
        }
    }
    let report = serde_json::json!({
        "target": a.target.name(), "block": a.block.name(), "top": top, "config": cfg,
        "latency_cycles": cfg.latency(),
        "rtl": rtl, "baseline": base, "baseline_error": base_error,
        "lut_ratio_to_baseline": base.as_ref().filter(|b| b.luts > 0).map(|b| rtl.luts as f64 / b.luts as f64),
        "pnr": pnr_best,
        "pnr_fmax_mhz": (!pnr_runs.is_empty()).then(|| serde_json::json!({"worst": spread.worst, "median": spread.median, "best": spread.best})),
        "pnr_goal_mhz": a.pnr.then_some(a.freq),
        "pnr_route_mhz": a.pnr.then_some(route_mhz),
        "pnr_flow": a.pnr.then_some(&flow),
        "pnr_seeds_meeting_goal": a.pnr.then_some(meeting),
        "pnr_seeds": pnr_runs.iter().map(|r| serde_json::json!({"seed": r.seed, "fmax_mhz": r.fmax_mhz, "seconds": r.seconds})).collect::<Vec<_>>(),
        "equivalence": equivalence,
    });
    let rp = work.join("report.json");
    std::fs::write(&rp, serde_json::to_string_pretty(&report).unwrap_or_default() + "\n")
        .map_err(io(&rp))?;
    let mp = work.join("report.md");
    std::fs::write(&mp, &md).map_err(io(&mp))?;
    OUT.finish(&out, commit)?;
    errln!(
        "synth: wrote {} and {}",
        out.join("report.json").display(),
        out.join("report.md").display()
    );
    out!("{md}");
    if base_error.is_some() {
        errln!("synth: FAIL: the behavioural baseline did not synthesize (the RTL's report is written)");
        return Ok(ExitCode::from(1));
    }
    if equivalence.is_some_and(|e| e != Equivalence::Equivalent) {
        errln!("synth: FAIL: the netlist is not proved equal to the RTL");
        return Ok(ExitCode::from(1));
    }
    if let Some(max) = a.max_luts {
        if rtl.luts > max {
            errln!("synth: FAIL: {} {lut}s > --max-luts {max}", rtl.luts);
            return Ok(ExitCode::from(1));
        }
        errln!("synth: PASS: {} {lut}s <= --max-luts {max}", rtl.luts);
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::Spread;

    #[test]
    fn the_spread_of_seeds_is_worst_median_best() {
        let s = Spread::of(&[143.0, 155.0, 141.7, 133.0, 156.2]);
        assert_eq!(s, Spread { worst: 133.0, median: 143.0, best: 156.2 });
        let s = Spread::of(&[120.0, 100.0, 130.0, 110.0]);
        assert_eq!(s, Spread { worst: 100.0, median: 115.0, best: 130.0 });
        assert_eq!(Spread::of(&[150.0]).median, 150.0);
    }
}
