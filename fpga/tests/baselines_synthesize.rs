//! The behavioural baselines synthesize with the Debian yosys on every target: the 32-lane unit
//! baseline (crossbar, reduction, priority encoder and output mux) for xc7, ecp5 and ice40.
//! (Debian yosys 0.23's `synth_xilinx` had stopped on the old reduction baseline: its form mux
//! became a `$shiftx` the xc7 mapper cannot map.)

use pisa_fpga::{baseline, synth, Target};

fn synthesize(target: Target) {
    let dir = std::env::temp_dir().join(format!(
        "pisa-baseline-synth-{}-{}",
        target.name(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let baseline::Baseline { top, files } = baseline::sources("unit", 32).unwrap();
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
    assert!(r.luts > 10_000, "{}: {} LUTs is too few for a 32-lane unit", target.name(), r.luts);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_32_lane_unit_baseline_synthesizes_for_xc7() {
    synthesize(Target::Xc7);
}

#[test]
fn the_32_lane_unit_baseline_synthesizes_for_ecp5() {
    synthesize(Target::Ecp5);
}

#[test]
fn the_32_lane_unit_baseline_synthesizes_for_ice40() {
    synthesize(Target::Ice40);
}
