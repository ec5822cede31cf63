//! Differential regressions of the Verilated RTL against the model; a mismatch is caught and
//! reported (replay line, VCD); the result does not depend on threads or shards.

use pisa_model::exec::exec_case;
use pisa_model::interp::RunOptions;
use pisa_model::{FredOp, RefBackend, SgOp, SgOutputs};
use pisa_rtl::config::Extra;
use pisa_rtl::UnitConfig;
use pisa_sim::regress::{run, run_with_corrupted_model, Options, Report};
use pisa_sim::RtlBackend;

fn opts(count: u64, seed: u64) -> Options<'static> {
    Options { jobs: 2, ..Options::new(count, seed) }
}

fn pass(cfg: &UnitConfig, count: u64, seed: u64) -> Report {
    let r = run(cfg, &opts(count, seed)).expect("the model builds and runs");
    if let Some(m) = r.mismatch() {
        panic!("{}: case {} of seed {seed} mismatches; replay:\n{}", cfg.tag(), m.index, m.replay);
    }
    let (hit, bins) = r.bins_hit();
    assert_eq!(hit, bins, "{}: every coverage bin hit", cfg.tag());
    println!("{}: {} cases, {:.0} checked warp-ops/s", cfg.tag(), r.cases, r.rate());
    r
}

/// At least 1,000,000 cases on the default configuration per run: fixed seeds plus a fresh one.
#[test]
fn default_config_a_million_cases_fixed_and_fresh_seeds() {
    let cfg = UnitConfig::default();
    let mut total = pass(&cfg, 400_000, 1).cases + pass(&cfg, 300_000, 0xC0FFEE).cases;
    let fresh = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(7);
    eprintln!("fresh seed: {fresh} (rerun: pisa regress --count 300000 --seed {fresh})");
    total += pass(&cfg, 300_000, fresh).cases;
    assert!(total >= 1_000_000);
}

#[test]
fn pipelined_32_lane_units_back_to_back_with_bubbles() {
    pass(&UnitConfig::new(32, 2).unwrap(), 150_000, 11);
    pass(&UnitConfig::new(32, 5).unwrap(), 100_000, 12);
}

/// The units of the QoR tables (`fpga/configs/*.toml`: every boundary plus the `front`, `root`,
/// `result` and `pick` registers, and at 32 lanes `input`), read from the files `pisa synth`
/// reads.
#[test]
fn the_qor_units_with_every_extra_register() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fpga/configs");
    let mut seen = 0;
    for name in ["fast.toml", "l8_qor.toml"] {
        let path = format!("{dir}/{name}");
        let cfg = UnitConfig::from_toml(&std::fs::read_to_string(&path).unwrap(), &path).unwrap();
        for e in [Extra::Front, Extra::Root, Extra::Result, Extra::Pick] {
            assert!(cfg.pipeline_extra.contains(&e), "{name}: {e:?}");
        }
        pass(&cfg, if cfg.lanes == 32 { 100_000 } else { 150_000 }, 30 + cfg.lanes as u64);
        seen += 1;
    }
    assert_eq!(seen, 2);
}

/// The presets `small` and `balanced` of `pisa synth --preset` (`fast` is above), from their
/// files.
#[test]
fn the_presets() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fpga/configs");
    for (name, latency) in [("small", 9), ("balanced", 14)] {
        let path = format!("{dir}/{name}.toml");
        let cfg = UnitConfig::from_toml(&std::fs::read_to_string(&path).unwrap(), &path).unwrap();
        assert_eq!((cfg.lanes, cfg.latency()), (32, latency), "{name}");
        pass(&cfg, 60_000, 40 + latency as u64);
    }
}

/// `crossbar = "compact"` (two registers in the crossbar's trees, the rest delaying its
/// outputs) at 16 and 8 lanes, and the 32-lane design point `fpga/configs/small_compact.toml`.
#[test]
fn compact_crossbar_units() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fpga/configs/small_compact.toml");
    let file = std::fs::read_to_string(path).unwrap();
    for text in [
        "lanes = 16\npipeline_at = [0, 1, 2, 3]\ncrossbar = \"compact\"\n",
        "lanes = 8\npipeline_at = [0, 1, 2, 3]\npipeline_extra = [\"front\"]\ncrossbar = \"compact\"\n",
        &file,
    ] {
        let cfg = UnitConfig::from_toml(text, "t").unwrap();
        assert_eq!(cfg.crossbar, pisa_rtl::config::CrossbarRegisters::Compact);
        pass(&cfg, 60_000, 90 + cfg.lanes as u64);
    }
}

/// `reduction = "compact"` (each reduction node picks before its register): the combinational
/// 8-lane unit, at 16 lanes a register at every boundary with `front`, `root`, `result` and the
/// compact crossbar, and the 32-lane design point `fpga/configs/small_spread.toml` (the spread
/// crossbar; the `small` preset, compact crossbar and nodes, is co-simulated in `the_presets`).
#[test]
fn compact_reduction_units() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../fpga/configs/small_spread.toml");
    let file = std::fs::read_to_string(path).unwrap();
    for text in [
        "lanes = 8\nreduction = \"compact\"\n",
        "lanes = 16\npipeline_at = [0, 1, 2, 3, 4]\npipeline_extra = [\"front\", \"root\", \"result\"]\ncrossbar = \"compact\"\nreduction = \"compact\"\n",
        &file,
    ] {
        let cfg = UnitConfig::from_toml(text, "t").unwrap();
        assert_eq!(cfg.reduction, pisa_rtl::config::ReductionNodes::Compact);
        pass(&cfg, 60_000, 70 + cfg.lanes as u64);
    }
}

#[test]
fn small_lane_units() {
    for (l, p) in [(4, 0), (4, 1), (8, 0), (8, 2), (16, 1)] {
        pass(&UnitConfig::new(l, p).unwrap(), 150_000, 20 + l as u64 + p as u64);
    }
}

/// Any configuration, not only a built-in list: an unusual one is built on first use.
#[test]
fn a_configuration_nobody_listed_is_built_and_passes() {
    let cfg = UnitConfig::from_toml(
        "lanes = 16\npipeline_at = [0, 2]\npipeline_extra = [\"result\", \"front\"]\n",
        "t",
    )
    .unwrap();
    pass(&cfg, 40_000, 77);
    // two names of one unit share one model
    let a = UnitConfig::from_toml("pipeline_at = [3, 5]\n", "t").unwrap();
    let b = UnitConfig::new(32, 2).unwrap();
    let (ua, ub) = (pisa_sim::RtlUnit::open(&a).unwrap(), pisa_sim::RtlUnit::open(&b).unwrap());
    assert_eq!(ua.model_dir(), ub.model_dir());
}

fn same_result(a: &Report, b: &Report) {
    assert_eq!(a.cases, b.cases);
    assert_eq!(a.coverage, b.coverage);
    assert_eq!(a.reserved_cases, b.reserved_cases);
    assert_eq!(a.mismatches, b.mismatches);
}

#[test]
fn threads_do_not_change_the_result() {
    let cfg = UnitConfig::new(8, 2).unwrap();
    let one = run(&cfg, &Options { jobs: 1, ..Options::new(50_000, 5) }).unwrap();
    for jobs in [2, 3, 8] {
        let r = run(&cfg, &Options { jobs, ..Options::new(50_000, 5) }).unwrap();
        same_result(&one, &r);
    }
}

#[test]
fn shards_partition_a_run_and_merge_back() {
    let cfg = UnitConfig::new(8, 0).unwrap();
    let whole = run(&cfg, &opts(30_000, 5)).unwrap();
    let mut parts = Vec::new();
    for k in 1..=3 {
        let r = run(&cfg, &Options { shard: (k, 3), ..opts(30_000, 5) }).unwrap();
        assert!(r.mismatches.is_empty());
        // through JSON, as the CLI's reports travel between machines
        parts.push(Report::from_json(&r.to_json(), "shard").unwrap());
    }
    let names: Vec<String> = (1..=3).map(|k| format!("shard{k}.json")).collect();
    let merged = Report::merge(&parts, &names).unwrap();
    assert!(merged.complete());
    same_result(&whole, &merged);
    // another seed, or a shard twice, is refused
    let mut other = parts[1].clone();
    other.seed += 1;
    let e = Report::merge(&[parts[0].clone(), other], &names[..2]).unwrap_err();
    assert!(e.contains("seed"), "{e}");
    let e = Report::merge(&[parts[0].clone(), parts[0].clone()], &names[..2]).unwrap_err();
    assert!(e.contains("overlapping shards"), "{e}");
}

/// A wrong oracle (fred.max answers with the sign flipped) must produce a reported mismatch
/// whose replay line reproduces both sides and whose VCD shows it.
#[test]
fn a_mismatch_is_caught_replayed_and_dumped() {
    fn corrupt(op: SgOp, out: &mut SgOutputs<32>) {
        if let SgOp::Fred { op: FredOp::Max, .. } = op {
            for d in out.dst.iter_mut() {
                *d ^= 0x8000_0000;
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("pisa-vcd-{}", std::process::id()));
    let cfg = UnitConfig::default();
    let o = Options {
        forms: vec!["fred.max.f".parse().unwrap()],
        vcd_dir: Some(dir.clone()),
        ..Options::new(1000, 3)
    };
    let r = run_with_corrupted_model::<32>(&cfg, &o, corrupt).unwrap();
    let m = r.mismatch().expect("the corrupted oracle is caught").clone();
    // the replay line runs on both backends: the model gives the true answer, which the RTL matches
    let on_ref = exec_case(&m.replay, &mut RefBackend, &RunOptions::default()).unwrap();
    let on_rtl =
        exec_case(&m.replay, &mut RtlBackend::open_default().unwrap(), &RunOptions::default())
            .unwrap();
    assert_eq!(on_ref, on_rtl);
    let lane = m.got.wen.trailing_zeros() as usize;
    assert_eq!(on_rtl["regs"]["%d"][lane], serde_json::json!(m.got.dst[lane]));
    // the VCD parses and holds the mismatch vector
    let path = m.vcd.expect("vcd written");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut parser = vcd::Parser::new(text.as_bytes());
    let header = parser.parse_header().expect("valid VCD header");
    assert!(header.find_var(&["model", "mismatch_lanes"]).is_some());
    assert!(header.find_var(&["pisa_sg_unit", "dst_o_lane0"]).is_some());
    assert!(parser.count() > 10);
    // the same case as FST: the same signals, and the mismatch vector set at the result
    let o = Options { wave_format: pisa_sim::vcd_dump::WaveFormat::Fst, ..o };
    let r = run_with_corrupted_model::<32>(&cfg, &o, corrupt).unwrap();
    let path = r.mismatch().and_then(|m| m.vcd.clone()).expect("fst written");
    assert_eq!(path.extension().unwrap(), "fst");
    let f = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
    let mut fst = fst_reader::FstReader::open(f).expect("a valid FST file");
    let (mut names, mut scope) = (std::collections::BTreeMap::new(), String::new());
    fst.read_hierarchy(|e| match e {
        fst_reader::FstHierarchyEntry::Scope { name, .. } => scope = name,
        fst_reader::FstHierarchyEntry::Var { name, handle, .. } => {
            names.insert(format!("{scope}.{name}"), handle);
        }
        _ => {}
    })
    .unwrap();
    assert!(names.contains_key("pisa_sg_unit.dst_o_lane0"), "{names:?}");
    let bad = names.remove("model.mismatch_lanes").expect("the mismatch vector");
    let mut last = String::new();
    fst.read_signals(&fst_reader::FstFilter::all(), |_, h, v| {
        if h == bad {
            if let fst_reader::FstSignalValue::String(s) = v {
                last = String::from_utf8_lossy(s).into_owned();
            }
        }
        Ok::<(), ()>(())
    })
    .unwrap();
    assert!(last.contains('1'), "a lane is marked as mismatching: {last}");
    let _ = std::fs::remove_dir_all(dir);
}
