//! `pisa synth`: the crossbar QoR gates at 32 lanes (xc7 and ECP5, the CI check), a full report
//! with the behavioural baseline at 8 lanes, and an iCE40 place-and-route smoke run.

mod common;

fn pisa(args: &[&str]) -> (i32, String, String) {
    common::pisa(args, "")
}

fn tmp(name: &str) -> std::path::PathBuf {
    common::fresh_dir(&format!("synth-test-{name}"))
}

fn report(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

/// QoR gates on the 32-lane crossbar: xc7 at the target (10,500 LUT6; measured 10,293), ECP5 at
/// the measured count (28,453) + 2 % (the 24,000 LUT4 target is not reached yet; README).
#[test]
fn crossbar_32_lanes_stays_within_its_lut_gates() {
    for (target, gate) in [("xc7", XC7_GATE), ("ecp5", ECP5_GATE)] {
        let dir = tmp(&format!("x32_{target}"));
        let (code, out, err) = pisa(&["synth", "--target", target, "--block", "xbar", "--no-baseline", "--out", dir.to_str().unwrap(), "--max-luts", &gate.to_string()]);
        println!("{out}");
        assert_eq!(code, 0, "{target}: {out}\n{err}");
        let r = report(&dir);
        assert!(r["rtl"]["luts"].as_u64().unwrap() <= gate);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

const XC7_GATE: u64 = 10_500;
const ECP5_GATE: u64 = 29_000;

#[test]
fn report_compares_with_the_baseline() {
    let dir = tmp("x8");
    let cfg = dir.with_extension("toml");
    std::fs::write(&cfg, "lanes = 8\n").unwrap();
    let (code, out, err) = pisa(&["synth", "--target", "xc7", "--block", "xbar", "--config", cfg.to_str().unwrap(), "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("| generator RTL |") && out.contains("| behavioural baseline |"), "{out}");
    let r = report(&dir);
    let (rtl, base) = (r["rtl"]["luts"].as_u64().unwrap(), r["baseline"]["luts"].as_u64().unwrap());
    assert!(rtl > 0 && base > 0);
    assert!(r["lut_ratio_to_baseline"].as_f64().unwrap() > 0.0);
    assert!(r["rtl"]["logic_levels"].as_u64().unwrap() > 0);
    // a gate below the measured count fails with status 1
    let (code, _, err) = pisa(&["synth", "--target", "xc7", "--block", "xbar", "--config", cfg.to_str().unwrap(), "--no-baseline", "--out", dir.to_str().unwrap(), "--max-luts", "10"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("> --max-luts 10"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&cfg);
}

#[test]
fn ice40_place_and_route_reports_fmax() {
    let dir = tmp("ice40");
    let cfg = dir.with_extension("toml");
    std::fs::write(&cfg, "lanes = 4\npipeline = 2\n").unwrap();
    let (code, out, err) = pisa(&["synth", "--target", "ice40", "--block", "xbar", "--config", cfg.to_str().unwrap(), "--pnr", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}\n{err}");
    let r = report(&dir);
    let fmax = r["pnr"]["fmax_mhz"].as_f64().unwrap();
    assert!(fmax > 1.0, "{fmax}");
    assert!(out.contains("Place and route:"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&cfg);
}

#[test]
fn bad_synth_arguments_are_named() {
    let (code, _, err) = pisa(&["synth", "--target", "virtex2"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown target 'virtex2'"), "{err}");
    let (code, _, err) = pisa(&["synth", "--target", "xc7", "--pnr"]);
    assert_eq!(code, 2);
    assert!(err.contains("no open place-and-route flow for xc7"), "{err}");
    let (code, _, err) = pisa(&["synth", "--target", "ecp5", "--freq", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("--freq 0"), "{err}");
}
