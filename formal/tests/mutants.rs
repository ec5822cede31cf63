//! The proofs can fail: deliberately broken copies of the emitted RTL (a mutated operator, a
//! wrong clamp, a swapped NaN rule, a broken priority encoder, a broken pipeline valid chain)
//! must each be refuted with a counterexample, and the untouched copy must pass. 8 lanes keep
//! this quick; `formal/tests/prove32.rs` runs the full proofs at 32 lanes.

use std::path::{Path, PathBuf};

use pisa_formal::flow::{run_job, Job};
use pisa_formal::{Property, RtlDir, Tools, Verdict};
use pisa_model::SgOp;
use pisa_rtl::design::{design, BlockName};
use pisa_rtl::UnitConfig;

fn work(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pisa-mutant-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn emit(dir: &Path, lanes: usize, pipeline: usize, prefix: &str) -> RtlDir {
    emit_config(dir, &UnitConfig::new(lanes, pipeline).unwrap(), prefix)
}

fn emit_config(dir: &Path, cfg: &UnitConfig, prefix: &str) -> RtlDir {
    design(cfg, BlockName::Unit, prefix).unwrap().write(dir, false).unwrap();
    RtlDir::scan(dir, None, None).unwrap()
}

/// Replaces the first occurrence of `from` in `file` (which must contain it).
fn mutate(dir: &Path, file: &str, from: &str, to: &str) {
    let p = dir.join(file);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{file} no longer contains `{from}`: update this mutant");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
}

fn verdict(job: &Job, dir: &Path) -> Verdict {
    let tools = Tools::from_env().expect("yosys and yosys-abc (scripts/install-deps.sh)");
    let o = run_job(job, &dir.join("proof"), &tools);
    o.verdict
}

fn assert_refuted(name: &str, file: &str, from: &str, to: &str, property: Property) {
    assert_refuted_in("lanes = 8\n", name, file, from, to, property)
}

/// As [`assert_refuted`], on the combinational unit of configuration `toml` (8 lanes).
fn assert_refuted_in(toml: &str, name: &str, file: &str, from: &str, to: &str, property: Property) {
    let dir = work(name);
    let cfg = UnitConfig::from_toml(toml, "mutant.toml").unwrap();
    assert_eq!((cfg.lanes, cfg.latency()), (8, 0), "mutants are of combinational 8-lane units");
    let rtl = emit_config(&dir.join("rtl"), &cfg, "pisa_sg");
    let job = Job::block(property.clone(), &rtl).unwrap();
    assert_eq!(
        verdict(&job, &dir.join("good")),
        Verdict::Pass,
        "{property} must hold on the unmutated RTL"
    );
    mutate(&rtl.dir, file, from, to);
    match verdict(&job, &dir.join("bad")) {
        Verdict::Fail { counterexample } => {
            assert!(
                counterexample.contains("src0") || counterexample.contains("activemask"),
                "{counterexample}"
            );
        }
        v => panic!("mutant {name} not caught by {property}: {v:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn wrong_clamp_is_caught() {
    assert_refuted(
        "clamp",
        "pisa_sg_shfl_xbar.v",
        "clamp_3 = (lane_w_3 & seg_3) | (cval_3 & ~seg_3);",
        "clamp_3 = (lane_w_3 & seg_3) | (cval_3 & seg_3);",
        Property::Xbar,
    );
}

#[test]
fn swapped_nan_rule_is_caught() {
    assert_refuted(
        "nanrule",
        "pisa_sg_reduce_root.v",
        "(ctl_i[7+:1] && root_i[34+:1])",
        "(~ctl_i[7+:1] && root_i[34+:1])",
        Property::Reduce("fred.max.nanp.f".parse::<SgOp>().unwrap()),
    );
}

#[test]
fn mutated_operator_is_caught() {
    assert_refuted(
        "xor",
        "pisa_sg_reduce_node.v",
        "arith = a_i[0+:32] ^ b_i[0+:32];",
        "arith = a_i[0+:32] | b_i[0+:32];",
        Property::Reduce("ired.xor.16b".parse::<SgOp>().unwrap()),
    );
}

#[test]
fn inverted_comparator_is_caught() {
    assert_refuted(
        "compare",
        "pisa_sg_reduce_node.v",
        // a node keeps b when b's key is smaller (the borrow of b - a; the leaves invert the
        // keys for max); the mutant inverts the borrow: max keeps the smaller value
        "better_hi = dba[33];",
        "better_hi = ~dba[33];",
        Property::Reduce("fred.max.f".parse::<SgOp>().unwrap()),
    );
}

/// `reduction = "compact"`: a node that takes a valid `b` in the low half without asking the
/// compare (min/max keeps the last participating value of each pair).
#[test]
fn compact_node_take_without_compare_is_caught() {
    assert_refuted_in(
        "lanes = 8\nreduction = \"compact\"\n",
        "ctake",
        "pisa_sg_reduce_node_compact.v",
        "(b_i[32+:1] && better_lo)",
        "(b_i[32+:1] || better_lo)",
        Property::Reduce("fred.min.hfx2".parse::<SgOp>().unwrap()),
    );
}

/// `reduction = "compact"`: a node that adds when only `a` participates (a sum over a mask
/// with gaps counts a non-participating lane's operand).
#[test]
fn compact_node_sum_without_b_is_caught() {
    assert_refuted_in(
        "lanes = 8\nreduction = \"compact\"\n",
        "csum",
        "pisa_sg_reduce_node_compact.v",
        "&& a_i[32+:1] && b_i[32+:1];",
        "&& a_i[32+:1];",
        Property::Reduce("ired.sum.32b".parse::<SgOp>().unwrap()),
    );
}

#[test]
fn broken_priority_encoder_is_caught() {
    assert_refuted("lzc", "pisa_sg_lzc.v", "e_9 = e_2 && e_3;", "e_9 = e_2 || e_3;", Property::Lzc);
}

#[test]
fn broken_pipeline_is_caught() {
    let dir = work("pipeline");
    let comb = emit(&dir.join("p0"), 8, 0, "pisa_p0");
    let piped = emit(&dir.join("p2"), 8, 2, "pisa_p2");
    let job = Job::pipeline(&piped, &comb, 2, 2).unwrap();
    assert_eq!(verdict(&job, &dir.join("good")), Verdict::Pass);
    // valid_o skips the output stage register: one cycle early
    mutate(&piped.dir, "pisa_p2_unit.v", "valid_o = out_vreg_0_q_o;", "valid_o = vq_2;");
    match verdict(&job, &dir.join("bad")) {
        Verdict::Fail { counterexample } => {
            assert!(counterexample.starts_with('['), "{counterexample}")
        }
        v => panic!("broken valid chain not caught: {v:?}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}
