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

// ================================================================== issue 57: a PASS that cannot
// lie. Each test names the class of finding it covers; each failed on the code before the fix.

/// `pisa ARGS` in the repository, with `env` set: (exit status, stdout, stderr).
fn pisa_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = Command::new(bin());
    c.args(args).current_dir(env!("CARGO_MANIFEST_DIR")).stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

const L8: &str = "fpga/configs/l8_qor.toml";

fn no_panic(err: &str) {
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{err}");
}

#[test]
fn trust_1_emit_follows_no_link_out_of_its_folder() {
    let d = scratch("t1");
    let (out, victim) = (d.join("out"), d.join("victim"));
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("file"), "theirs\n").unwrap();
    assert_eq!(emit(&out, &[]).0, 0);
    // a link inside the folder and a manifest entry through it, with the right sha256
    std::os::unix::fs::symlink("../victim", out.join("sub")).unwrap();
    let text = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    let mut m: serde_json::Value = serde_json::from_str(&text).unwrap();
    // the outside file's own sha256: the record looks like pisa wrote it
    let sha = pisa_rtl::outdir::sha256_hex(b"theirs\n");
    m["units"][0]["files"].as_array_mut().unwrap().push(serde_json::json!({
        "file": "sub/file", "sha256": sha
    }));
    std::fs::write(out.join("manifest.json"), m.to_string()).unwrap();
    for extra in [&[][..], &["--force"][..]] {
        let (code, _, err) = emit(&out, extra);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("is a symbolic link"), "{err}");
        assert_eq!(std::fs::read_to_string(victim.join("file")).unwrap(), "theirs\n");
    }
    // a module file replaced by a link to someone else's file: not written through
    std::fs::write(out.join("manifest.json"), &text).unwrap();
    std::fs::remove_file(out.join("sub")).unwrap();
    std::fs::remove_file(out.join("pisa_sg_unit.v")).unwrap();
    std::os::unix::fs::symlink("../victim/file", out.join("pisa_sg_unit.v")).unwrap();
    let (code, _, err) = emit(&out, &["--force"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read_to_string(victim.join("file")).unwrap(), "theirs\n");
    assert_eq!(files_of(&victim), ["file"]);
    assert!(files_of(&out).iter().all(|f| !f.contains("staging")), "{:?}", files_of(&out));
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn trust_2_synth_follows_no_link_out_of_its_folder() {
    let d = scratch("t2");
    let (out, victim) = (d.join("out"), d.join("victim"));
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&victim).unwrap();
    for name in ["synth", "rtl", "pnr"] {
        std::os::unix::fs::symlink("../victim", out.join(name)).unwrap();
        let start = Instant::now();
        let args =
            ["synth", "--target", "ice40", "--block", "lzc", "--config", L8, "--no-baseline"];
        let mut args = args.to_vec();
        args.extend(["--out", out.to_str().unwrap(), "--force"]);
        let (code, _, err) = pisa_env(&args, &[]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains("is a symbolic link"), "{err}");
        assert!(start.elapsed() < Duration::from_secs(10), "refused before synthesis");
        assert!(files_of(&victim).is_empty(), "nothing written outside: {:?}", files_of(&victim));
        std::fs::remove_file(out.join(name)).unwrap();
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn trust_3_an_output_replaces_only_its_own_kind_and_never_an_input() {
    let d = scratch("t3");
    let out = d.join("out");
    assert_eq!(emit(&out, &[]).0, 0);
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    let start = Instant::now();
    // emit's record is a pisa file, but not a regress report
    let m = out.join("manifest.json");
    let (code, _, err) =
        pisa_env(&["regress", "--count", "50000000", "--report", m.to_str().unwrap()], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pisa-regress-report/1"), "{err}");
    assert_eq!(std::fs::read_to_string(&m).unwrap(), manifest);
    // one file for two outputs, a link, a folder that cannot be written
    let r = d.join("r.json");
    let (code, _, err) = pisa_env(
        &[
            "regress",
            "--count",
            "50000000",
            "--report",
            r.to_str().unwrap(),
            "--html",
            r.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("give each output its own file"), "{err}");
    std::os::unix::fs::symlink("out/manifest.json", d.join("link.json")).unwrap();
    let link = d.join("link.json");
    let (code, _, err) =
        pisa_env(&["regress", "--count", "50000000", "--report", link.to_str().unwrap()], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    for unwritable in ["/proc/self/r.json", "/sys/r.json"] {
        let (code, _, err) =
            pisa_env(&["regress", "--count", "50000000", "--report", unwritable], &[]);
        assert_eq!(code, 2, "{unwritable}: {err}");
    }
    let (code, _, err) =
        pisa_env(&["regress", "--count", "50000000", "--vcd-on-fail", "/proc/1"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be written"), "{err}");
    assert!(start.elapsed() < Duration::from_secs(10), "all refused before the work");
    // merge never writes its merged report over one of its inputs
    let s1 = d.join("s1.json");
    let (code, _, err) = pisa_env(
        &[
            "regress",
            "--count",
            "2000",
            "--seed",
            "3",
            "--config",
            L8,
            "--shard",
            "1/2",
            "--report",
            s1.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let before = std::fs::read_to_string(&s1).unwrap();
    let (code, _, err) = pisa_env(
        &["regress", "merge", s1.to_str().unwrap(), "--report", s1.to_str().unwrap()],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("one of the command's inputs"), "{err}");
    assert_eq!(std::fs::read_to_string(&s1).unwrap(), before);
    let _ = std::fs::remove_dir_all(d);
}

/// The l8 model's cache entry in `cache` (built by a first run).
fn cache_entry(cache: &Path) -> PathBuf {
    std::fs::read_dir(cache)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.is_dir() && p.file_name().unwrap().to_string_lossy().starts_with("l8-"))
        .expect("the l8 model's entry")
}

#[test]
fn trust_4_a_cached_model_is_checked_before_it_is_loaded() {
    let d = scratch("t4");
    let cache = d.join("cache");
    let env = [("PISA_SIM_CACHE", cache.to_str().unwrap())];
    let run = || pisa_env(&["regress", "--count", "3000", "--seed", "5", "--config", L8], &env);
    let (code, first, err) = run();
    assert_eq!(code, 0, "{err}");
    assert!(first.contains("PASS: 3000 cases, 0 mismatches"), "{first}");
    let entry = cache_entry(&cache);
    let lib = entry.join("model.so");
    let bytes = std::fs::read(&lib).unwrap();
    // truncated, one bit flipped in its code, deleted: each is set aside and built again,
    // and the run gives the same verdict as the first
    type Damage<'a> = Box<dyn Fn() + 'a>;
    let damage: [(&str, Damage); 3] = [
        ("truncated", Box::new(|| std::fs::write(&lib, &bytes[..bytes.len() / 3]).unwrap())),
        (
            "bit flip",
            Box::new(|| {
                let mut b = bytes.clone();
                let i = b.len() / 2;
                b[i] ^= 0x08;
                std::fs::write(&lib, b).unwrap()
            }),
        ),
        ("deleted", Box::new(|| std::fs::remove_file(&lib).unwrap())),
    ];
    for (what, damage) in damage {
        damage();
        let (code, out, err) = run();
        assert_eq!(code, 0, "{what}: {err}");
        no_panic(&err);
        assert!(
            err.contains("cannot be trusted") && err.contains("building it again"),
            "{what}: {err}"
        );
        assert!(out.contains("PASS: 3000 cases, 0 mismatches"), "{what}: {out}");
        let (code, _, err) = run();
        assert_eq!(code, 0, "{err}");
        assert!(!err.contains("building"), "{what}: the rebuilt entry is trusted again: {err}");
    }
    let leftovers: Vec<String> =
        files_of(&cache).into_iter().filter(|f| f.starts_with('.')).collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // the cache location is checked
    let (code, _, err) =
        pisa_env(&["regress", "--count", "10", "--config", L8], &[("PISA_SIM_CACHE", "")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("PISA_SIM_CACHE is set but empty"), "{err}");
    let file = d.join("file");
    std::fs::write(&file, "x").unwrap();
    let (code, _, err) = pisa_env(
        &["regress", "--count", "10", "--config", L8],
        &[("PISA_SIM_CACHE", file.to_str().unwrap())],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is not a folder"), "{err}");
    let _ = std::fs::remove_dir_all(d);
}

/// The processes whose command line mentions `needle` (zombies have none).
fn processes_mentioning(needle: &str) -> Vec<String> {
    let mut v = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(needle) {
            v.push(format!("{name}: {cmd}"));
        }
    }
    v
}

#[test]
fn trust_5_a_killed_build_leaves_nothing_running_and_nothing_in_the_way() {
    let d = scratch("t5");
    let cache = d.join("cache");
    let needle = cache.display().to_string();
    let mut child = Command::new(bin())
        .args(["regress", "--count", "3000", "--seed", "5", "--config", L8])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("PISA_SIM_CACHE", &cache)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // wait until the build's tools run (their arguments name the build folder in the cache)
    let start = Instant::now();
    while processes_mentioning(&needle).iter().all(|p| p.contains("regress"))
        && start.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(child.try_wait().unwrap().is_none(), "the build was still running");
    child.kill().unwrap(); // SIGKILL: no handler of pisa's runs
    child.wait().unwrap();
    let start = Instant::now();
    let mut left = processes_mentioning(&needle);
    while !left.is_empty() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(100));
        left = processes_mentioning(&needle);
    }
    assert!(left.is_empty(), "still running: {left:?}");
    // the next run builds, passes, and removes the dead build's folder
    let (code, _, err) = pisa_env(
        &["regress", "--count", "3000", "--seed", "5", "--config", L8],
        &[("PISA_SIM_CACHE", &needle)],
    );
    assert_eq!(code, 0, "{err}");
    let builds: Vec<String> =
        files_of(&cache).into_iter().filter(|f| f.starts_with(".build")).collect();
    assert!(builds.is_empty(), "{builds:?}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn trust_6_a_merge_certifies_only_the_whole_run() {
    let d = scratch("t6");
    let shard = |k: u32| {
        let p = d.join(format!("s{k}.json"));
        let (code, _, err) = pisa_env(
            &[
                "regress",
                "--count",
                "4000",
                "--seed",
                "9",
                "--config",
                L8,
                "--shard",
                &format!("{k}/4"),
                "--report",
                p.to_str().unwrap(),
            ],
            &[],
        );
        assert_eq!(code, 0, "{err}");
        p
    };
    let s: Vec<PathBuf> = (1..=4).map(shard).collect();
    let merge = |files: &[&Path]| {
        let mut args = vec!["regress", "merge"];
        args.extend(files.iter().map(|p| p.to_str().unwrap()));
        pisa_env(&args, &[])
    };
    let (code, out, err) = merge(&[&s[0], &s[1], &s[2], &s[3]]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("PASS: 4000 cases"), "{out}");
    // two of four shards: an explicit PARTIAL, exit 1
    let (code, out, _) = merge(&[&s[0], &s[1]]);
    assert_eq!(code, 1);
    assert!(out.contains("PARTIAL") && out.contains("missing 3/4 4/4"), "{out}");
    assert!(!out.lines().any(|l| l.starts_with("PASS")), "{out}");
    // forged reports: each an error naming the field, never a PASS, never a panic or a hang
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&s[0]).unwrap()).unwrap();
    let (z8, z3) = (vec![0u32; 8], vec![0u32; 3]);
    let idx: pisa_model::SgOp = "shfl.idx.32b".parse().unwrap();
    let mismatch = serde_json::json!({"case": 0, "form": "shfl.idx.32b", "opcode": idx.encode(), "lanes": 8,
        "src0": z8, "src1": z8, "mask": 0, "activemask": 255,
        "expected": {"dst": z8, "wen": 255}, "got": {"dst": z3, "wen": 255}, "replay": "x"});
    type Forge = Box<dyn Fn(&mut serde_json::Value)>;
    let forged: Vec<(&str, Forge)> = vec![
        ("relabelled 1/1", Box::new(|r| r["shards"] = serde_json::json!(["1/1"]))),
        ("shard 0/4", Box::new(|r| r["shards"] = serde_json::json!(["0/4"]))),
        ("shard 5/4", Box::new(|r| r["shards"] = serde_json::json!(["5/4"]))),
        ("shard 1/0", Box::new(|r| r["shards"] = serde_json::json!(["1/0"]))),
        ("no shard", Box::new(|r| r["shards"] = serde_json::json!([]))),
        ("1/4 twice", Box::new(|r| r["shards"] = serde_json::json!(["1/4", "1/4"]))),
        ("cases 10^15", Box::new(|r| r["cases"] = serde_json::json!(1_000_000_000_000_000u64))),
        ("cases 2^64-1", Box::new(|r| r["cases"] = serde_json::json!(u64::MAX))),
        ("lanes 64", Box::new(|r| r["lanes"] = serde_json::json!(64))),
        ("lanes 2^40", Box::new(|r| r["lanes"] = serde_json::json!(1u64 << 40))),
        (
            "short got.dst",
            Box::new(move |r| r["mismatches"] = serde_json::json!([mismatch.clone()])),
        ),
        ("hits removed", Box::new(|r| r["coverage"][0]["hits"] = serde_json::json!(0))),
    ];
    for (what, forge) in forged {
        let mut r = v.clone();
        forge(&mut r);
        let p = d.join("forged.json");
        std::fs::write(&p, r.to_string()).unwrap();
        let start = Instant::now();
        let (code, out, err) = merge(&[&p]);
        no_panic(&err);
        assert_eq!(code, 2, "{what}: {out}{err}");
        assert!(!out.lines().any(|l| l.starts_with("PASS")), "{what}: {out}");
        assert!(start.elapsed() < Duration::from_secs(5), "{what}");
        // with the three honest shards it is still refused
        let (code, out, err) = merge(&[&p, &s[1], &s[2], &s[3]]);
        assert_eq!(code, 2, "{what}: {out}{err}");
    }
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn trust_7_the_verdict_is_printed_before_any_artifact() {
    let d = scratch("t7");
    let rtl = d.join("rtl");
    assert_eq!(emit(&rtl, &[]).0, 0);
    // a planted bug: lane 0 always writes
    let top = rtl.join("pisa_sg_unit.v");
    let text = std::fs::read_to_string(&top).unwrap();
    let line = "        wen_o = wen_reg_0_q_o;";
    assert!(text.contains(line), "the unit's output assignment moved: update this test");
    std::fs::write(&top, text.replace(line, "        wen_o = wen_reg_0_q_o | 8'h01;")).unwrap();
    let (vcd, report) = (d.join("vcd"), d.join("r.json"));
    let (code, out, err) = pisa_env(
        &[
            "regress",
            "--rtl-dir",
            rtl.to_str().unwrap(),
            "--count",
            "2000",
            "--seed",
            "1",
            "--vcd-on-fail",
            vcd.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("edited since emitted: pisa_sg_unit.v"), "{err}");
    let fail = out.find("FAIL: case").expect("a FAIL line");
    let replay = out.find("replay (pisa exec").expect("the replay");
    let vcd_line = out.find("VCD: ").expect("the VCD");
    assert!(fail < replay && replay < vcd_line, "{out}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["verdict"], "FAIL");
    assert!(r["rtl"]["sha256"].is_string(), "the report names the Verilog it ran");
    // the same RTL as emitted passes
    std::fs::write(&top, text).unwrap();
    let (code, out, err) = pisa_env(
        &["regress", "--rtl-dir", rtl.to_str().unwrap(), "--count", "2000", "--seed", "1"],
        &[],
    );
    assert_eq!(code, 0, "{out}{err}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn trust_8_bounds_shards_lines_steps_prefixes_and_messages() {
    // Slurm's variables near 2^64: an error, not an overflow panic
    let max = u64::MAX.to_string();
    for (id, min, count) in [(max.as_str(), "0", max.as_str()), ("0", "1", "4"), ("3", "0", "0")] {
        let (code, _, err) = pisa_env(
            &["regress", "--count", "10", "--shard", "auto"],
            &[
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_MIN", min),
                ("SLURM_ARRAY_TASK_COUNT", count),
            ],
        );
        assert_eq!(code, 2, "{err}");
        no_panic(&err);
    }
    // a line longer than the limit: an error answer, the stream ends, memory stays bounded
    let mut child = Command::new(bin())
        .arg("exec")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..64 {
            if stdin.write_all(&chunk).is_err() {
                break;
            }
        }
    });
    let o = child.wait_with_output().unwrap();
    let _ = writer.join();
    assert_eq!(o.status.code(), Some(2));
    let answer = String::from_utf8_lossy(&o.stdout);
    assert!(answer.contains("longer than 16 MiB"), "{answer}");
    // --max-steps 0 is refused; a long run prints its trace as it goes (bounded memory)
    let (code, _, err) = pisa_env(
        &["run", "reference-model/tests/spec-examples/shfl-dn-sg-cval29.pisa", "--max-steps", "0"],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    let d = scratch("t8");
    let prog = d.join("loop.pisa");
    let loop_ = ".pred %p;\n.reg .32b %r, %a;\nL:\nshfl.idx.32b %r, %a, 3, 0xffffffff;\n\
                 ucmp.eq.32b %p, %r, %r;\ngoto.cond %p, L;\n";
    std::fs::write(&prog, loop_).unwrap();
    let mut child = Command::new(bin())
        .args(["run", prog.to_str().unwrap(), "--max-steps", "1500000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let pid = child.id();
    let mut buf = vec![0u8; 1 << 16];
    let (mut read, mut peak_kb) = (0usize, 0u64);
    loop {
        let n = stdout.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        read += n;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let rss: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0);
        peak_kb = peak_kb.max(rss);
    }
    child.wait().unwrap();
    assert!(read > 100 << 20, "{read} bytes of trace");
    assert!(peak_kb < 100_000, "{peak_kb} kB resident while tracing");
    // a prefix that would not lint clean
    let long = "p".repeat(40);
    let (code, _, err) = emit(&d.join("o"), &["--prefix", &long]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("at most 32"), "{err}");
    // a value of the wrong type names its key and what it takes
    let cfg = d.join("u.toml");
    std::fs::write(&cfg, "crossbar = 5\n").unwrap();
    let (code, _, err) = pisa_env(
        &["emit", "--config", cfg.to_str().unwrap(), "--out", d.join("o").to_str().unwrap()],
        &[],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("u.toml:1:12: ") && err.contains("crossbar = 5"), "{err}");
    assert!(err.contains("\"spread\"") && err.contains("\"compact\""), "{err}");
    // --out naming a file: no advice to --force, with or without it
    let file = d.join("file");
    std::fs::write(&file, "x").unwrap();
    for extra in [&[][..], &["--force"][..]] {
        let (code, _, err) = emit(&file, extra);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("is not a folder") && !err.contains("--force"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    let _ = std::fs::remove_dir_all(d);
}
