//! The CLI under bad input and hostile folders (issue 22): no data loss, no panic, no silently
//! wrong answer. Each test names the finding it covers; each failed on the code before the fix.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::pisa;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_pisa")
}

fn scratch(name: &str) -> PathBuf {
    common::fresh_dir(&format!("hostile-{name}"))
}

fn files_of(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|r| {
            r.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn emit(out: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut args =
        vec!["emit", "--config", "fpga/configs/l8_qor.toml", "--out", out.to_str().unwrap()];
    args.extend_from_slice(extra);
    let o =
        Command::new(bin()).args(&args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

// ------------------------------------------------------------------ data loss

#[test]
fn finding_1_a_manifest_cannot_make_emit_delete_outside_its_folder() {
    let d = scratch("f1");
    let (out, victim) = (d.join("out"), d.join("victim"));
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("a.txt"), "x").unwrap();
    let abs = victim.join("a.txt").display().to_string();
    // the old layout (no format field), and one that claims the format but points outside
    for manifest in [
        r#"{"modules":[{"file":"../victim/a.txt"}]}"#.to_string(),
        serde_json::json!({"format": "pisa-emit/1", "units": [{"prefix": "pisa_sg", "top": "t", "block": "unit",
            "lanes": 8, "latency_cycles": 0, "config": {"lanes": 8}, "stage_after_levels": [],
            "pipeline_extra": [], "opcode_encoding": "", "generator": "", "ports": [],
            "files": [{"file": "../victim/a.txt", "sha256": "0"}, {"file": abs, "sha256": "0"}]}]})
        .to_string(),
    ] {
        std::fs::write(out.join("manifest.json"), &manifest).unwrap();
        let (code, _, err) = emit(&out, &[]);
        assert_eq!(code, 2, "{err}");
        assert_eq!(std::fs::read_to_string(victim.join("a.txt")).unwrap(), "x", "the victim is intact");
        assert_eq!(std::fs::read_to_string(out.join("manifest.json")).unwrap(), manifest);
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn finding_2_a_foreign_manifest_is_not_taken_for_ours() {
    let d = scratch("f2");
    std::fs::write(d.join("manifest.json"), r#"{"name":"my app"}"#).unwrap();
    let (code, _, err) = emit(&d, &[]);
    assert_eq!(code, 2);
    assert!(err.contains("not a manifest written by pisa emit"), "{err}");
    assert_eq!(files_of(&d), ["manifest.json"]);
    assert_eq!(std::fs::read_to_string(d.join("manifest.json")).unwrap(), r#"{"name":"my app"}"#);
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn finding_3_two_prefixes_share_a_folder() {
    let d = scratch("f3");
    assert_eq!(emit(&d, &["--prefix", "pa"]).0, 0);
    assert_eq!(emit(&d, &["--prefix", "pb"]).0, 0);
    let names = files_of(&d);
    assert!(
        names.iter().any(|f| f == "pa_unit.v") && names.iter().any(|f| f == "pb_unit.v"),
        "{names:?}"
    );
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("manifest.json")).unwrap()).unwrap();
    let prefixes: Vec<&str> =
        m["units"].as_array().unwrap().iter().map(|u| u["prefix"].as_str().unwrap()).collect();
    assert_eq!(prefixes, ["pa", "pb"]);
    // emitting pa again replaces pa's files only
    assert_eq!(emit(&d, &["--prefix", "pa"]).0, 0);
    assert_eq!(files_of(&d), names);
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn finding_4_a_hand_edited_file_is_not_overwritten() {
    let d = scratch("f4");
    assert_eq!(emit(&d, &[]).0, 0);
    std::fs::write(d.join("pisa_sg_lzc.v"), "// my fix\n").unwrap();
    let (code, _, err) = emit(&d, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pisa_sg_lzc.v: changed since pisa wrote it"), "{err}");
    assert_eq!(std::fs::read_to_string(d.join("pisa_sg_lzc.v")).unwrap(), "// my fix\n");
    assert_eq!(emit(&d, &["--force"]).0, 0, "--force names the intent");
    assert_ne!(std::fs::read_to_string(d.join("pisa_sg_lzc.v")).unwrap(), "// my fix\n");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn finding_5_a_failed_emission_leaves_the_folder_as_it_was() {
    let d = scratch("f5");
    assert_eq!(emit(&d, &[]).0, 0);
    let before = files_of(&d);
    let manifest = std::fs::read_to_string(d.join("manifest.json")).unwrap();
    // a manifest that lists a folder as one of its files: refused before anything is deleted
    std::fs::create_dir(d.join("sub")).unwrap();
    let mut m: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    m["units"][0]["files"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"file": "sub", "sha256": "0"}));
    std::fs::write(d.join("manifest.json"), m.to_string()).unwrap();
    let (code, _, err) = emit(&d, &[]);
    assert_eq!(code, 2, "{err}");
    let mut with_sub = before.clone();
    with_sub.push("sub".into());
    with_sub.sort();
    assert_eq!(files_of(&d), with_sub, "nothing deleted");
    std::fs::remove_dir(d.join("sub")).unwrap();
    std::fs::write(d.join("manifest.json"), &manifest).unwrap();
    // an error half-way (a module file name too long): the previous emission stays whole
    let long = format!("p{}", "x".repeat(300));
    let (code, _, err) = emit(&d, &["--prefix", &long]);
    assert_ne!(code, 0, "{err}");
    assert_eq!(files_of(&d), before, "no partial emission, no staging folder left");
    assert_eq!(std::fs::read_to_string(d.join("manifest.json")).unwrap(), manifest);
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn finding_6_synth_does_not_overwrite_a_users_files() {
    let d = scratch("f6");
    let cfg = d.join("l4.toml");
    std::fs::write(&cfg, "lanes = 4\n").unwrap();
    let out = d.join("out");
    std::fs::create_dir_all(out.join("baseline")).unwrap();
    std::fs::write(out.join("report.md"), "my notes").unwrap();
    std::fs::write(out.join("baseline/pisa_base_lzc.v"), "// mine").unwrap();
    let args = [
        "synth",
        "--target",
        "ice40",
        "--block",
        "lzc",
        "--config",
        cfg.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let start = Instant::now();
    let (code, _, err) = pisa(&args, "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pisa synth did not write it"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(5), "refused before the work");
    assert_eq!(std::fs::read_to_string(out.join("report.md")).unwrap(), "my notes");
    assert_eq!(std::fs::read_to_string(out.join("baseline/pisa_base_lzc.v")).unwrap(), "// mine");
    // in a folder of its own it runs, and runs again over its own files, keeping others
    let own = d.join("own");
    let args = [
        "synth",
        "--target",
        "ice40",
        "--block",
        "lzc",
        "--config",
        cfg.to_str().unwrap(),
        "--out",
        own.to_str().unwrap(),
    ];
    assert_eq!(pisa(&args, "").0, 0);
    std::fs::write(own.join("notes.txt"), "keep").unwrap();
    let (code, _, err) = pisa(&args, "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(own.join("notes.txt")).unwrap(), "keep");
    assert!(own.join("report.json").is_file() && own.join("pisa-synth.json").is_file());
    assert!(files_of(&own).iter().all(|f| !f.contains("staging")), "{:?}", files_of(&own));
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn finding_7_prove_work_folders_are_fresh_and_removed() {
    let d = scratch("f7");
    let tmp = d.join("tmp");
    std::fs::create_dir_all(tmp.join(format!("pisa-prove-{}", 1))).unwrap();
    std::fs::write(tmp.join("pisa-prove-1/kept-logs.txt"), "an earlier run's logs").unwrap();
    let run = |args: &[&str]| Command::new(bin()).args(args).env("TMPDIR", &tmp).output().unwrap();
    // PASS: the work folder goes; another run's kept folder stays
    let o = run(&["prove", "--block", "lzc", "--lanes", "4"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(files_of(&tmp), ["pisa-prove-1"]);
    assert!(tmp.join("pisa-prove-1/kept-logs.txt").is_file());
    // an input error leaves nothing behind
    let o = run(&["prove", "--rtl-dir", d.join("missing").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["prove", "--block", "pipeline", "--pipeline", "0"]);
    assert_eq!(o.status.code(), Some(2), "a run that proves nothing is an error");
    assert_eq!(files_of(&tmp), ["pisa-prove-1"]);
    // --work into a folder of someone else's files is refused
    std::fs::write(d.join("notes.txt"), "x").unwrap();
    let o = run(&["prove", "--block", "lzc", "--lanes", "4", "--work", d.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(d);
}

// ------------------------------------------------------------------ wrong answers, the contract

fn exec_lines(input: &[u8]) -> (i32, Vec<serde_json::Value>) {
    let mut child = Command::new(bin())
        .arg("exec")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let o = child.wait_with_output().unwrap();
    let lines = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (o.status.code().unwrap_or(-1), lines)
}

#[test]
fn finding_8_laneid_is_not_a_uniform_operand() {
    for prog in [
        ".reg .32b %r;\\nredfirstidx.32b %r, %laneid;",
        ".reg .32b %r, %a;\\nired.sum.32b %r, %a, %laneid;",
        ".reg .32b %r, %a;\\nshfl.idx.32b %r, %a, 3, %laneid;",
    ] {
        let (code, out) = exec_lines(format!("{{\"program\": \"{prog}\"}}\n").as_bytes());
        assert_eq!(code, 1);
        let e = out[0]["error"].as_str().unwrap();
        assert!(e.contains("'%laneid' must be uniform across active lanes, but lane 0 holds 0x00000000 and lane 1 holds 0x00000001"), "{e}");
        assert!(e.starts_with("stdin:1: program:2:"), "located: {e}");
    }
    // with one active lane it is uniform, and it is that lane's id (not lane 0's)
    let (code, out) = exec_lines(
        b"{\"program\": \".reg .32b %r;\\nredfirstidx.32b %r, %laneid;\", \"activemask\": 64}\n",
    );
    assert_eq!(code, 0, "{out:?}");
    assert_eq!(out[0]["regs"]["%r"][6], 32, "mask 6 & activemask 0x40 is empty");
}

#[test]
fn finding_9_a_line_that_is_not_utf8_gets_an_error_and_the_stream_goes_on() {
    let good = b"{\"program\": \".reg .32b %r;\\nredfirstidx.32b %r, 3;\"}\n";
    let mut input = good.to_vec();
    input.extend_from_slice(b"{\"program\": \"\xff\xfe\"}\n");
    input.extend_from_slice(good);
    let (code, out) = exec_lines(&input);
    assert_eq!(code, 1);
    assert_eq!(out.len(), 3, "one answer per line: {out:?}");
    assert!(
        out[1]["error"].as_str().unwrap().starts_with("stdin:2:14: the line is not UTF-8"),
        "{:?}",
        out[1]
    );
    assert_eq!(out[2], out[0]);
}

#[test]
fn finding_10_each_answer_is_flushed_before_the_next_line_is_read() {
    let mut child = Command::new(bin())
        .arg("exec")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    for i in 0..3 {
        writeln!(stdin, "{{\"program\": \".reg .32b %r;\\nredfirstidx.32b %r, {};\"}}", 1 << i)
            .unwrap();
        stdin.flush().unwrap();
        // stdin stays open: the answer must come anyway
        let line = rx.recv_timeout(Duration::from_secs(20)).expect("an answer while stdin is open");
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["regs"]["%r"][0], i, "{line}");
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

#[test]
fn finding_11_a_key_given_twice_is_an_error() {
    let (code, out) = exec_lines(b"{\"program\": \"\", \"activemask\": 1, \"activemask\": 2}\n{\"program\": \"\", \"regs\": {\"%a\": [1], \"%a\": [2]}}\n");
    assert_eq!(code, 1);
    assert!(out[0]["error"].as_str().unwrap().contains("duplicate key \"activemask\""), "{out:?}");
    assert!(out[1]["error"].as_str().unwrap().contains("duplicate key \"%a\""), "{out:?}");
}

// ------------------------------------------------------------------ panics, aborts, lost output

/// Runs `pisa ARGS`, reads `lines` lines of stdout, closes it, and returns (status, stderr).
fn with_closed_stdout(args: &[&str], lines: usize, cwd: &Path) -> (Option<i32>, String) {
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    for _ in 0..lines {
        let mut l = String::new();
        out.read_line(&mut l).unwrap();
    }
    drop(out);
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (child.wait().unwrap().code(), err)
}

#[test]
fn finding_12_a_closed_stdout_ends_quietly_and_a_full_disk_is_an_error() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let d = scratch("f12");
    let out = d.join("rtl");
    for (args, lines) in [
        (
            vec![
                "regress",
                "--count",
                "3000",
                "--seed",
                "1",
                "--config",
                "fpga/configs/l8_qor.toml",
            ],
            1,
        ),
        (vec!["run", "reference-model/tests/spec-examples/prefix-sum.pisa"], 1),
        (vec!["bench", "--forms", "shfl.idx.32b", "--time-ms", "10", "--rounds", "1"], 0),
        (vec!["emit", "--out", out.to_str().unwrap()], 0),
    ] {
        let (code, err) = with_closed_stdout(&args, lines, repo);
        assert!(!err.contains("panicked") && !err.contains("Broken pipe"), "{args:?}: {err}");
        assert_eq!(code, Some(0), "{args:?}: {err}");
    }
    // synth writes its report even when nobody reads its stdout
    let cfg = d.join("l4.toml");
    std::fs::write(&cfg, "lanes = 4\n").unwrap();
    let so = d.join("synth");
    let (code, err) = with_closed_stdout(
        &[
            "synth",
            "--target",
            "ice40",
            "--block",
            "lzc",
            "--config",
            cfg.to_str().unwrap(),
            "--out",
            so.to_str().unwrap(),
        ],
        0,
        repo,
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(so.join("report.json").is_file() && so.join("report.md").is_file());
    // a full disk is an error that says so, exit status 2
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = Command::new(bin())
        .args(["run", "reference-model/tests/spec-examples/prefix-sum.pisa"])
        .current_dir(repo)
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot write to stdout"));
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn finding_13_memory_does_not_grow_with_count() {
    let mut child = Command::new(bin())
        .args([
            "regress",
            "--count",
            "100000000000",
            "--seed",
            "1",
            "--config",
            "fpga/configs/l8_qor.toml",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(4));
    let alive = child.try_wait().unwrap().is_none();
    let status =
        std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap_or_default();
    let _ = child.kill();
    let _ = child.wait();
    assert!(alive, "the run is still going (it used to abort allocating the case list)");
    let rss_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    assert!(rss_kb < 500_000, "{rss_kb} kB resident");
}

#[test]
fn finding_14_outputs_are_checked_first_and_a_run_that_checks_nothing_fails() {
    let start = Instant::now();
    let (code, _, err) =
        pisa(&["regress", "--count", "50000000", "--report", "/nonexistent/folder/r.json"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("does not exist"), "{err}");
    let d = scratch("f14");
    let file = d.join("file");
    std::fs::write(&file, "x").unwrap();
    let (code, _, err) =
        pisa(&["regress", "--count", "50000000", "--vcd-on-fail", file.to_str().unwrap()], "");
    assert_eq!(code, 2, "{err}");
    // a file that is not a pisa report is not overwritten
    let (code, _, err) =
        pisa(&["regress", "--count", "50000000", "--report", file.to_str().unwrap()], "");
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    assert!(start.elapsed() < Duration::from_secs(10), "all refused before the work");
    let (code, _, err) = pisa(&["regress", "--count", "0"], "");
    assert_eq!(code, 2);
    assert!(err.contains("checks nothing"), "{err}");
    let _ = std::fs::remove_dir_all(d);
}

// ------------------------------------------------------------------ the smaller messages

#[test]
fn smaller_messages_name_the_problem() {
    let d = scratch("small");
    // --lanes 8 on 4-lane RTL (no manifest) is a width mismatch, not a refuted proof
    let cfg = d.join("l4.toml");
    std::fs::write(&cfg, "lanes = 4\n").unwrap();
    let rtl = d.join("rtl");
    assert_eq!(
        pisa(&["emit", "--config", cfg.to_str().unwrap(), "--out", rtl.to_str().unwrap()], "").0,
        0
    );
    let manifest = std::fs::read_to_string(rtl.join("manifest.json")).unwrap();
    std::fs::remove_file(rtl.join("manifest.json")).unwrap();
    let (code, _, err) =
        pisa(&["prove", "--rtl-dir", rtl.to_str().unwrap(), "--lanes", "8", "--block", "lzc"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("a 4-lane unit, not 8 lanes"), "{err}");
    // a manifest with lanes = 7 says so
    std::fs::write(rtl.join("manifest.json"), manifest.replace("\"lanes\": 4,", "\"lanes\": 7,"))
        .unwrap();
    let (code, _, err) = pisa(&["prove", "--rtl-dir", rtl.to_str().unwrap(), "--block", "lzc"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("lanes = 7 is not supported"), "{err}");
    // the RTL backend runs 32-lane programs: an 8-lane configuration is named as such
    let o = Command::new(bin())
        .args(["exec", "--backend", "rtl", "--config", "fpga/configs/l8_qor.toml"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("32 lanes; this configuration has 8 lanes"), "{err}");
    // a seed in hex, as the README quotes seeds
    let o = Command::new(bin())
        .args([
            "regress",
            "--count",
            "2000",
            "--seed",
            "0xC0FFEE",
            "--config",
            "fpga/configs/l8_qor.toml",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("seed 12648430"));
    // hex values: a sign is not a digit, leading zeros are fine
    let (_, out) = exec_lines(b"{\"program\": \"\", \"activemask\": \"0x+1\"}\n{\"program\": \".reg .32b %r;\\nredfirstidx.32b %r, 0xffffffff;\", \"activemask\": \"0x000000000000000001\"}\n");
    assert!(out[0]["error"].as_str().unwrap().contains("is not a hex value"), "{out:?}");
    assert_eq!(out[1]["regs"]["%r"][0], 0, "{out:?}");
    // goto without .cond, a register without %
    let (_, out) = exec_lines(b"{\"program\": \"goto L;\\nL:\"}\n{\"program\": \".reg .32b %r, %a;\\nshfl.idx.32b r, %a, 3, 0xffffffff;\"}\n");
    let e0 = out[0]["error"].as_str().unwrap();
    assert!(
        e0.contains("missing condition qualifier (one of .cond)")
            && !e0.contains("qualifier qualifier"),
        "{e0}"
    );
    let e1 = out[1]["error"].as_str().unwrap();
    assert!(e1.contains("found 'r' (registers start with '%': write '%r')"), "{e1}");
    let _ = std::fs::remove_dir_all(d);
}
