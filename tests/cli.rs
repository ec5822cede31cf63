//! The `pisa` binary's contracts: exit statuses, JSON Lines answers, located errors, the lane
//! diagram of `pisa run`, and the `pisa bench` report shape.

mod common;

use common::pisa;

fn lanes(f: impl Fn(u32) -> u32) -> Vec<u32> {
    (0..32).map(f).collect()
}

#[test]
fn exec_answers_each_line_and_fails_with_status_1() {
    let good = serde_json::json!({"program": ".reg .32b %r;\nshfl.xor.32b %r, %a, 1, 0xffffffff;", "regs": {"%a": lanes(|i| i)}});
    let input = format!("{good}\n\n{{\"program\": \"shfl.up.32b %r;\"}}\nnot json\n{good}\n");
    let (code, out, _) = pisa(&["exec"], &input);
    assert_eq!(code, 1);
    let lines: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 4, "blank line skipped, one answer per case: {out}");
    assert_eq!(lines[0]["regs"]["%r"], serde_json::json!(lanes(|i| i ^ 1)));
    assert_eq!(
        lines[1]["error"],
        "stdin:3: program:1:1: 'shfl' takes 4 operands (dst, src0, src1, src2), found 1"
    );
    assert_eq!(lines[2]["error"], "stdin:4:2: invalid JSON: expected ident");
    assert_eq!(lines[3], lines[0]);
    let (code, _, _) = pisa(&["exec"], &format!("{good}\n"));
    assert_eq!(code, 0);
}

#[test]
fn run_prints_the_spec_diagram() {
    let dir = std::env::temp_dir().join(format!("pisa-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let state = dir.join("state.json");
    std::fs::write(&state, serde_json::json!({"regs": {"%a": lanes(|i| i)}}).to_string()).unwrap();
    let prog = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/reference-model/tests/spec-examples/shfl-dn-sg-cval29.pisa"
    );
    let (code, out, err) = pisa(&["run", prog, "--state", state.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    // the spec's row for lanes 31..15, followed by the rest of the lanes
    assert!(out.contains("// %r |  |  |  |  |29|28|27|26|  |  |  |  |21|20|19|18|  |"), "{out}");
    assert!(
        out.contains("activemask = 0xffffffff; 1 instructions executed, 1 sub-group instructions")
    );

    let bad = dir.join("bad.pisa");
    std::fs::write(&bad, ".reg .32b %r;\n\nshfl.up.32b %r, %q, 1, 1;\n").unwrap();
    let (code, _, err) = pisa(&["run", bad.to_str().unwrap()], "");
    assert_eq!(code, 1);
    assert_eq!(err.trim(), format!("pisa: error: {}:3:17: register '%q' is not declared (declare it with .reg/.pred or give it an initial value)", bad.display()));

    std::fs::write(&state, "{\n  \"activemask\": 1,,\n}").unwrap();
    let (code, _, err) = pisa(&["run", prog, "--state", state.to_str().unwrap()], "");
    assert_eq!(code, 2);
    assert!(err.contains(&format!("{}:2:19: invalid JSON", state.display())), "{err}");

    let (code, _, err) = pisa(&["run", "/definitely/missing.pisa"], "");
    assert_eq!(code, 2);
    assert!(err.contains("/definitely/missing.pisa: cannot read"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_reports_rates_and_ratios() {
    let (code, out, err) = pisa(
        &["bench", "--forms", "ired.sum.32b,redfirstidx.32b", "--time-ms", "20", "--rounds", "1"],
        "",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let forms = v["forms"].as_array().unwrap();
    assert_eq!(forms.len(), 2);
    for f in forms {
        for key in [
            "model_warp_ops_per_s",
            "model_single_call_warp_ops_per_s",
            "baseline_warp_ops_per_s",
            "literal_warp_ops_per_s",
            "ratio",
        ] {
            assert!(f[key].as_f64().unwrap() > 0.0, "{key} in {f}");
        }
    }
    assert!(v["baseline"].as_str().unwrap().contains("pisa_model::plain"));
    assert_eq!(v["warps"], 256);
    assert_eq!(v["working_set_bytes"], 256 * v["bytes_per_warp_op"].as_u64().unwrap());
    // another batch size, down to one warp
    for warps in ["1", "64"] {
        let (code, out, err) = pisa(
            &["bench", "--forms", "shfl.idx.32b", "--time-ms", "5", "--rounds", "1"]
                .into_iter()
                .chain(["--warps", warps])
                .collect::<Vec<_>>(),
            "",
        );
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["warps"].to_string(), warps);
        assert!(v["model"].as_str().unwrap().contains(&format!(" {warps} warps")), "{v}");
        assert!(v["forms"][0]["ratio"].as_f64().unwrap() > 0.0);
    }
    for bad in ["0", "1048577"] {
        let (code, _, err) = pisa(&["bench", "--warps", bad], "");
        assert_eq!(code, 2);
        assert!(err.contains(&format!("--warps: {bad} is out of range (1 to 1048576)")), "{err}");
    }
    // the portable kernel runs everywhere; streaming compares with a memory copy
    let (code, out, err) = pisa(
        &["bench", "--forms", "ired.sum.32b", "--time-ms", "5", "--rounds", "1"]
            .into_iter()
            .chain(["--kernel", "portable", "--streaming", "4096"])
            .collect::<Vec<_>>(),
        "",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["model_kernel"], "portable");
    assert!(v["streaming"][0]["copy_gb_per_s"].as_f64().unwrap() > 0.0);
    let (code, _, err) = pisa(&["bench", "--kernel", "sse9"], "");
    assert_eq!(code, 2);
    assert!(err.contains("--kernel: unknown kernel \"sse9\""), "{err}");
    let (code, _, err) = pisa(&["bench", "--forms", "shfl.sideways.32b"], "");
    assert_eq!(code, 2);
    assert!(err.contains("'shfl.sideways.32b' is not a sub-group instruction form"), "{err}");
}

#[test]
fn exec_on_the_rtl_gives_the_models_answers() {
    let prog = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/reference-model/tests/spec-examples/all-equal.pisa"
    ))
    .unwrap();
    let mut lines = String::new();
    for expr in [vec![42u32; 32], lanes(|i| i % 3)] {
        lines.push_str(&serde_json::json!({"program": prog, "regs": {"%expr": expr}}).to_string());
        lines.push('\n');
    }
    lines.push_str(&serde_json::json!({"program": "fred.max.bfx2 %d, %a, 0xffff;", "activemask": "0x00ff00ff", "regs": {"%a": lanes(|i| i * 0x0101_0101), "%d": lanes(|_| 0)}}).to_string());
    lines.push('\n');
    let (c1, on_ref, _) = pisa(&["exec"], &lines);
    let (c2, on_rtl, err) = pisa(&["exec", "--backend", "rtl"], &lines);
    assert_eq!((c1, c2), (0, 0), "{err}");
    assert_eq!(on_ref, on_rtl);
    let (code, _, err) = pisa(&["exec", "--config", "/nonexistent.toml"], "");
    assert_eq!(code, 2);
    assert!(err.contains("--config selects an RTL configuration; it needs --backend rtl"), "{err}");
}

#[test]
fn regress_runs_and_reports() {
    let dir = std::env::temp_dir().join(format!("pisa-regress-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let report = dir.join("r.json");
    let (code, out, err) = pisa(
        &[
            "regress",
            "--count",
            "20000",
            "--seed",
            "9",
            "--shard",
            "2/2",
            "--report",
            report.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("PASS: 10000 cases, 0 mismatches"), "{out}");
    assert!(out.contains("coverage: "), "{out}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["cases"], 10000);
    // any configuration runs: its model is built on first use
    let cfg = dir.join("small.toml");
    std::fs::write(&cfg, "lanes = 16\npipeline = 3\n").unwrap();
    let (code, out, err) =
        pisa(&["regress", "--count", "3000", "--seed", "3", "--config", cfg.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("PASS: 3000 cases"), "{out}");
    let (code, _, err) = pisa(&["regress", "--shard", "3/2"], "");
    assert_eq!(code, 2);
    assert!(err.contains("need 1 <= K <= N"), "{err}");
}

/// `--preset NAME` is the file fpga/configs/NAME.toml, from any folder; an unknown name and
/// `--preset` with `--config` are usage errors (exit 2) that name the choices.
#[test]
fn presets_emit_the_files_units() {
    // one emit (a 32-lane emit takes 10-15 s); src/cmd/preset.rs checks that every preset parses
    let (name, latency) = ("small", 9);
    let out = common::fresh_dir(&format!("preset-{name}"));
    let (code, stdout, stderr) =
        pisa(&["emit", "--preset", name, "--out", out.to_str().unwrap()], "");
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(&format!("32 lanes, latency {latency} cycles")), "{stdout}");
    let file = format!("{}/fpga/configs/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&file).unwrap();
    let cfg = pisa_rtl::UnitConfig::from_toml(&text, &file).unwrap();
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    let m: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    let m = &m["units"][0];
    assert_eq!(m["latency_cycles"], latency, "{name}");
    assert_eq!(m["config"], serde_json::to_value(&cfg).unwrap(), "{name}");
    let (code, _, stderr) = pisa(&["emit", "--preset", "turbo", "--out", "x"], "");
    assert_eq!(code, 2);
    assert!(stderr.contains("turbo") && stderr.contains("small, balanced, fast"), "{stderr}");
    let (code, _, stderr) =
        pisa(&["synth", "--target", "ecp5", "--preset", "fast", "--config", "a.toml"], "");
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}
