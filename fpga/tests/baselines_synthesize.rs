//! The behavioural baselines synthesize with the Debian yosys on every target: the unit baseline
//! (crossbar, reduction, priority encoder and output mux) for xc7, ecp5 and ice40. (Debian yosys
//! 0.23's `synth_xilinx` had stopped on the old reduction baseline: its form mux became a
//! `$shiftx` the xc7 mapper cannot map, at every lane count.)
//!
//! CI synthesizes the 8-lane baseline (the same text with `N = 8`: two levels less in every tree;
//! sizes and times in docs/qor.md); the 32-lane ones take 5-12 min each on a 2-core machine and
//! are the long flow `scripts/test.sh --long` (and every `pisa synth --target T` run, which
//! synthesizes the 32-lane baseline beside the RTL).

use pisa_fpga::{baseline, synth, Target};

fn synthesize(target: Target, lanes: usize) {
    let dir = std::env::temp_dir().join(format!(
        "pisa-baseline-synth-{}-{lanes}-{}",
        target.name(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let baseline::Baseline { top, files } = baseline::sources("unit", lanes).unwrap();
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let paths: Vec<_> = files
        .iter()
        .map(|(name, text)| {
            let p = src.join(name);
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect();
    let r = synth(target, &top, &paths, &dir.join("out"))
        .unwrap_or_else(|e| panic!("{}: the unit baseline did not synthesize: {e}", target.name()));
    println!(
        "{}: {} {}s, {} FFs, {:.0} s",
        target.name(),
        r.luts,
        target.lut_name(),
        r.ffs,
        r.seconds
    );
    // the cheapest target (xc7's LUT6) needs about 330 LUTs per lane at 32 lanes and more per
    // lane at fewer (753 at 8), so a baseline that lost a tree would show
    let least = 300 * lanes as u64;
    assert!(
        r.luts > least,
        "{}: {} LUTs is too few for a {lanes}-lane unit",
        target.name(),
        r.luts
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_8_lane_unit_baseline_synthesizes_for_xc7() {
    synthesize(Target::Xc7, 8);
}

#[test]
fn the_8_lane_unit_baseline_synthesizes_for_ecp5() {
    synthesize(Target::Ecp5, 8);
}

#[test]
fn the_8_lane_unit_baseline_synthesizes_for_ice40() {
    synthesize(Target::Ice40, 8);
}

#[test]
#[ignore = "long flow (5-12 min each): scripts/test.sh --long"]
fn the_32_lane_unit_baseline_synthesizes_for_xc7() {
    synthesize(Target::Xc7, 32);
}

#[test]
#[ignore = "long flow (5-12 min each): scripts/test.sh --long"]
fn the_32_lane_unit_baseline_synthesizes_for_ecp5() {
    synthesize(Target::Ecp5, 32);
}

#[test]
#[ignore = "long flow (5-12 min each): scripts/test.sh --long"]
fn the_32_lane_unit_baseline_synthesizes_for_ice40() {
    synthesize(Target::Ice40, 32);
}
