//! Differential regressions of the Verilated RTL against the model, and proof that a mismatch is
//! caught and reported (replay line, VCD).

use pisa_model::exec::exec_case;
use pisa_model::interp::RunOptions;
use pisa_model::{FredOp, RefBackend, SgOp, SgOutputs};
use pisa_rtl::config::Extra;
use pisa_rtl::UnitConfig;
use pisa_sim::regress::{run, run_with_corrupted_model, Options};
use pisa_sim::RtlBackend;

fn opts(count: u64, seed: u64) -> Options {
    Options { count, seed, forms: vec![], shard: (1, 1), vcd_dir: None, progress: None }
}

fn pass(cfg: &UnitConfig, count: u64, seed: u64) -> u64 {
    let r = run(cfg, &opts(count, seed)).expect("prebuilt");
    if let Some(m) = &r.mismatch {
        panic!("{}: case {} of seed {seed} mismatches; replay:\n{}", cfg.tag(), m.index, m.replay);
    }
    let (hit, bins) = r.bins_hit();
    assert_eq!(hit, bins, "{}: every coverage bin hit", cfg.tag());
    println!("{}: {} cases, {:.0} checked warp-ops/s", cfg.tag(), r.cases, r.rate());
    r.cases
}

/// At least 1,000,000 cases on the default configuration per run: fixed seeds plus a fresh one.
#[test]
fn default_config_a_million_cases_fixed_and_fresh_seeds() {
    let cfg = UnitConfig::default();
    let mut total = pass(&cfg, 400_000, 1) + pass(&cfg, 300_000, 0xC0FFEE);
    let fresh = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(7);
    eprintln!("fresh seed: {fresh} (rerun: pisa regress --count 300000 --seed {fresh})");
    total += pass(&cfg, 300_000, fresh);
    assert!(total >= 1_000_000);
}

#[test]
fn pipelined_32_lane_units_back_to_back_with_bubbles() {
    pass(&UnitConfig::new(32, 2).unwrap(), 150_000, 11);
    pass(&UnitConfig::new(32, 5).unwrap(), 100_000, 12);
}

/// The units of the QoR tables (`fpga/configs/*.toml`: every boundary plus the `front`, `root`,
/// `result` and `pick` registers, and at 32 lanes `input`), built into the co-simulation from the same files `pisa synth`
/// reads.
#[test]
fn the_qor_units_with_every_extra_register() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fpga/configs");
    let mut seen = 0;
    for name in ["l32_qor.toml", "l8_qor.toml"] {
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

#[test]
fn a_configuration_finds_the_model_of_the_same_unit() {
    // `pipeline = 2` at 32 lanes is boundaries 3 and 5: one unit, one model, however it is named
    let at = UnitConfig::from_toml("pipeline_at = [3, 5]\n", "t").unwrap();
    assert_eq!(pisa_sim::RtlUnit::open(&at).unwrap().tag(), "l32_p2");
    pass(&at, 20_000, 41);
}

#[test]
fn small_lane_units() {
    for (l, p) in [(4, 0), (4, 1), (8, 0), (8, 2)] {
        pass(&UnitConfig::new(l, p).unwrap(), 150_000, 20 + l as u64 + p as u64);
    }
}

#[test]
fn shards_partition_a_run() {
    let cfg = UnitConfig::new(8, 0).unwrap();
    let whole = run(&cfg, &opts(30_000, 5)).unwrap();
    let mut sum = std::collections::BTreeMap::new();
    let mut cases = 0;
    for k in 1..=3 {
        let r = run(&cfg, &Options { shard: (k, 3), ..opts(30_000, 5) }).unwrap();
        assert!(r.mismatch.is_none());
        cases += r.cases;
        for (b, c) in r.coverage {
            *sum.entry(b).or_insert(0) += c;
        }
    }
    assert_eq!(cases, whole.cases);
    assert_eq!(sum, whole.coverage, "the shards run exactly the cases of the whole run");
}

#[test]
fn unknown_configuration_is_a_clear_error() {
    let e = run(&UnitConfig::new(16, 1).unwrap(), &opts(10, 1)).unwrap_err().to_string();
    assert!(e.contains("no prebuilt Verilator model for 16 lanes with pipeline = 1"), "{e}");
    assert!(e.contains("PISA_SIM_CONFIGS"), "{e}");
    // the default unit is prebuilt, but not with extra registers: never the wrong model
    let cfg = UnitConfig::from_toml("pipeline_extra = [\"result\"]\n", "t").unwrap();
    let e = run(&cfg, &opts(10, 1)).unwrap_err().to_string();
    assert!(e.contains("no prebuilt Verilator model for 32 lanes with pipeline = 0 (pipeline_extra [\"result\"])"), "{e}");
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
        ..opts(1000, 3)
    };
    let r = run_with_corrupted_model::<32>(&cfg, &o, corrupt).unwrap();
    let m = r.mismatch.expect("the corrupted oracle is caught");
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
    let _ = std::fs::remove_dir_all(dir);
}
