//! Every emitted configuration passes `verilator --lint-only -Wall` with no warnings and yosys
//! `hierarchy -check; proc; check -assert` (no latches, no undriven or multiply driven nets).
//! Both tools run for real; they are installed by scripts/install-deps.sh.

use std::path::{Path, PathBuf};
use std::process::Command;

use pisa_rtl::design::{design, BlockName};
use pisa_rtl::UnitConfig;

fn emit(cfg: &UnitConfig, block: BlockName) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!(
        "pisa-lint-{}-{}-{}",
        cfg.tag(),
        block,
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let d = design(cfg, block, "pisa_sg").expect("emit");
    d.write(&dir, false).expect("write");
    (dir, d.top)
}

fn sources(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "v"))
        .map(|p| p.display().to_string())
        .collect();
    v.sort();
    v
}

fn verilator(dir: &Path, top: &str) {
    // the emission's waiver file holds every lint waiver (none are inline)
    let out = Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", top])
        .arg(format!("-I{}", dir.display()))
        .arg(dir.join("pisa_sg.vlt"))
        .args(sources(dir))
        .output()
        .expect("verilator is installed (scripts/install-deps.sh)");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !text.contains("%Warning"),
        "verilator -Wall on {}:\n{text}",
        dir.display()
    );
}

fn yosys(dir: &Path, top: &str) {
    let script = format!(
        "read_verilog {}; hierarchy -check -top {top}; proc; check -assert",
        sources(dir).join(" ")
    );
    let out = Command::new("yosys")
        .args(["-q", "-p", &script])
        .output()
        .expect("yosys is installed (scripts/install-deps.sh)");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "yosys check on {}:\n{text}", dir.display());
    assert!(!text.to_lowercase().contains("latch"), "no latches: {text}");
}

fn lint(lanes: usize, pipeline: usize, block: BlockName, with_yosys: bool) {
    let cfg = UnitConfig::new(lanes, pipeline).unwrap();
    let (dir, top) = emit(&cfg, block);
    verilator(&dir, &top);
    if with_yosys {
        yosys(&dir, &top);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_small_configuration_is_lint_clean() {
    for lanes in [4usize, 8, 16] {
        let k = lanes.trailing_zeros() as usize;
        for p in 0..=k {
            lint(lanes, p, BlockName::Unit, lanes <= 8);
        }
    }
}

/// The fast tier's emit + lint (`scripts/test.sh --fast`): one small pipelined unit.
#[test]
fn lint_small_8_lane_pipelined_unit() {
    lint(8, 2, BlockName::Unit, true);
}

#[test]
fn default_32_lane_unit_is_lint_clean() {
    lint(32, 0, BlockName::Unit, true);
}

#[test]
fn pipelined_32_lane_units_are_lint_clean() {
    // yosys on the 32-lane register placements: extra_registers_are_lint_clean (every boundary)
    for p in 1..=5 {
        lint(32, p, BlockName::Unit, false);
    }
}

#[test]
fn explicit_stage_placement_is_lint_clean() {
    // boundary 0 (registers in front of the trees) alone, with others, and in a lone block
    // (yosys at 16 lanes and below: the generators are generic in the lane count, and a 32-lane
    // yosys check takes 60-100 s, most of it reading the crossbar's mux trees; the 32-lane
    // default and all-registers units keep theirs)
    for (lanes, at) in [(16, "[1, 2]"), (8, "[0]"), (16, "[0, 2, 4]"), (32, "[0, 3, 5]")] {
        let cfg =
            UnitConfig::from_toml(&format!("lanes = {lanes}\npipeline_at = {at}\n"), "t").unwrap();
        let (dir, top) = emit(&cfg, BlockName::Unit);
        verilator(&dir, &top);
        if lanes <= 16 {
            yosys(&dir, &top);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    let cfg = UnitConfig::from_toml("lanes = 8\npipeline_at = [0, 3]\n", "t").unwrap();
    for block in [BlockName::Xbar, BlockName::Reduce] {
        let (dir, top) = emit(&cfg, block);
        verilator(&dir, &top);
        yosys(&dir, &top);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn extra_registers_are_lint_clean() {
    // the extras alone (the mux trees and the reduction's levels then have no register), with
    // every boundary, and the crossbar and the reduction emitted alone
    for (lanes, rest) in [
        (8, "pipeline_extra = [\"front\"]"),
        (16, "pipeline_extra = [\"result\"]"),
        (4, "pipeline_extra = [\"root\"]"),
        (32, "pipeline_at = [0, 1, 2, 3, 4, 5]\npipeline_extra = [\"front\", \"root\", \"result\"]"),
        (4, "pipeline_extra = [\"pick\"]"),
        (8, "pipeline_at = [0, 1, 2, 3]\npipeline_extra = [\"front\", \"root\", \"result\", \"pick\"]"),
        (16, "pipeline_at = [2, 4]\npipeline_extra = [\"pick\"]"),
        (4, "pipeline_extra = [\"input\"]"),
        (8, "pipeline_at = [0, 1, 2, 3]\npipeline_extra = [\"front\", \"root\", \"result\", \"pick\", \"input\"]"),
        (16, "pipeline_extra = [\"root\", \"input\"]"),
        // reduction = "compact": the node's value at each level, registered or not
        (4, "reduction = \"compact\""),
        (8, "pipeline_at = [0, 1, 2, 3]\npipeline_extra = [\"front\", \"root\", \"result\", \"input\"]\nreduction = \"compact\"\ncrossbar = \"compact\""),
        (16, "pipeline_at = [2, 4]\npipeline_extra = [\"root\"]\nreduction = \"compact\""),
    ] {
        let cfg = UnitConfig::from_toml(&format!("lanes = {lanes}\n{rest}\n"), "t").unwrap();
        let (dir, top) = emit(&cfg, BlockName::Unit);
        verilator(&dir, &top);
        yosys(&dir, &top);
        let _ = std::fs::remove_dir_all(&dir);
    }
    for rest in [
        "pipeline_extra = [\"front\"]",
        "pipeline_at = [1]\npipeline_extra = [\"root\", \"result\"]",
        "pipeline_extra = [\"pick\"]",
        "pipeline_extra = [\"input\", \"root\"]",
        "pipeline_at = [1, 3]\nreduction = \"compact\"",
    ] {
        let cfg = UnitConfig::from_toml(&format!("lanes = 8\n{rest}\n"), "t").unwrap();
        for block in [BlockName::Xbar, BlockName::Reduce] {
            let (dir, top) = emit(&cfg, block);
            verilator(&dir, &top);
            yosys(&dir, &top);
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

#[test]
fn each_block_alone_is_lint_clean() {
    // yosys on the 32-lane blocks: inside the 32-lane units of the other tests
    for block in [BlockName::Xbar, BlockName::Reduce, BlockName::Lzc] {
        lint(32, 0, block, false);
        lint(8, 2, block, true);
    }
}

#[test]
fn names_are_clean() {
    let d = design(&UnitConfig::new(8, 3).unwrap(), BlockName::Unit, "pisa_sg").unwrap();
    for m in &d.modules {
        assert!(!m.name.contains('$') && !m.name.contains("top"), "{}", m.name);
        assert!(m.name.starts_with("pisa_sg_"), "{}", m.name);
        for p in &m.ports {
            assert!(!p.name.contains('$'), "{}: {}", m.name, p.name);
        }
        assert!(
            !m.text.contains("module top") && !m.text.contains('$') || m.text.contains("$signed"),
            "{}",
            m.name
        );
    }
    let top = &d.modules[0];
    assert_eq!(top.name, "pisa_sg_unit");
    let names: Vec<&str> = top.ports.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "clk_i",
            "rst_ni",
            "valid_i",
            "op_i",
            "src0_i",
            "src1_i",
            "mask_i",
            "activemask_i",
            "dst_o",
            "wen_o",
            "valid_o"
        ]
    );
    let width = |n: &str| top.ports.iter().find(|p| p.name == n).map(|p| (p.dir.as_str(), p.width));
    assert_eq!(width("src0_i"), Some(("input", 8 * 32)));
    assert_eq!(width("wen_o"), Some(("output", 8)));
    assert_eq!(width("clk_i"), Some(("input", 1)));
}

#[test]
fn emission_is_deterministic() {
    let cfg = UnitConfig::new(8, 2).unwrap();
    let a = design(&cfg, BlockName::Unit, "pisa_sg").unwrap().combined();
    let b = design(&cfg, BlockName::Unit, "pisa_sg").unwrap().combined();
    assert_eq!(a, b);
}
