//! `pisa regress --code-coverage` (issue 61): the RTL code coverage of a short regression on an
//! 8-lane unit, read back from Verilator's `coverage.dat` and lcov's `.info` by this test's own
//! parsing (not the kit's).

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const L8: &str = "fpga/configs/l8_qor.toml";

fn pisa(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_pisa"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// `coverage.dat` as point -> hits.
fn points(dir: &Path) -> BTreeMap<String, u64> {
    let text = std::fs::read(dir.join("coverage.dat")).unwrap();
    String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|l| l.strip_prefix("C '"))
        .map(|l| {
            let (k, n) = l.rsplit_once("' ").unwrap();
            (k.to_string(), n.parse().unwrap())
        })
        .collect()
}

fn field<'a>(key: &'a str, name: &str) -> Option<&'a str> {
    key.split('\x01').find_map(|kv| kv.split_once('\x02').filter(|(k, _)| *k == name).map(|x| x.1))
}

#[test]
fn a_short_run_has_a_known_hit_line_and_a_known_unhit_toggle() {
    let d = common::fresh_dir("coverage-known");
    let cov = d.join("cov");
    // one form only: op_i never changes, so its bits never toggle
    let (code, out, err) = pisa(&[
        "regress",
        "--config",
        L8,
        "--count",
        "2000",
        "--seed",
        "1",
        "--ops",
        "redfirstidx.32b",
        "--code-coverage",
        cov.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("pisa_sg_unit") && out.contains("toggle"), "the summary: {out}");
    let p = points(&cov);
    let unit_toggle = |bit: &str| {
        p.iter()
            .find(|(k, _)| {
                field(k, "t") == Some("toggle")
                    && field(k, "h") == Some("pisa_sg_unit.pisa_sg_unit")
                    && field(k, "o") == Some(bit)
            })
            .map(|(_, n)| *n)
    };
    assert_eq!(unit_toggle("op_i[0]:0->1"), Some(0), "op_i[0] never rises");
    assert!(
        unit_toggle("valid_i:0->1").is_some_and(|n| n > 0)
            || unit_toggle("rst_ni:0->1").is_some_and(|n| n > 0)
    );
    // the line that drives wen_o ran on every cycle: a hit line in the lcov file, at the line
    // where the copied source has it
    let src = std::fs::read_to_string(cov.join("rtl/pisa_sg_unit.v")).unwrap();
    let line = src.lines().position(|l| l.trim_start().starts_with("wen_o = ")).unwrap() + 1;
    let info = std::fs::read_to_string(cov.join("coverage.info")).unwrap();
    let record = info.split("end_of_record").find(|r| r.contains("SF:rtl/pisa_sg_unit.v")).unwrap();
    let hits: u64 = record
        .lines()
        .find_map(|l| l.strip_prefix(&format!("DA:{line},")))
        .expect("a line point at wen_o's assignment")
        .parse()
        .unwrap();
    assert!(hits > 0);
    // the waivers: yosys' constant bits, none of them hit in this run's own points. The 8-lane
    // encoder's index is at most 8 (the spec's result, or LANES when no bit is set): bits 4 and
    // up of its idx_o cannot toggle, bits 0-3 can; op_i[0] is read (it only never rose here)
    assert!(out.contains("waived: "), "{out}");
    let waivers = std::fs::read_to_string(cov.join("waivers.txt")).unwrap();
    let waived: Vec<Vec<&str>> =
        waivers.lines().filter(|l| !l.starts_with('#')).map(|l| l.split('\t').collect()).collect();
    let is_waived = |h: &str, o: &str| waived.iter().any(|w| w[1] == h && w[2] == o);
    let lzc = "pisa_sg_unit.pisa_sg_unit.lzc";
    for b in 0..32 {
        for dir in ["0->1", "1->0"] {
            assert_eq!(
                is_waived(lzc, &format!("idx_o[{b}]:{dir}")),
                b >= 4,
                "idx_o[{b}]: {waivers}"
            );
        }
    }
    assert!(!is_waived("pisa_sg_unit.pisa_sg_unit", "op_i[0]:0->1"));
    for w in &waived {
        let hits =
            p.iter().find(|(k, _)| field(k, "h") == Some(w[1]) && field(k, "o") == Some(w[2]));
        assert_eq!(hits.map(|(_, n)| *n), Some(0), "a waived point was hit: {w:?}");
        assert!(w[4].starts_with("constant") || w[4].contains("no logic reads"), "{w:?}");
    }
    assert!(cov.join("html/index.html").is_file());
    let page = std::fs::read_to_string(cov.join("html/rtl/pisa_sg_unit.v.gcov.html")).unwrap();
    assert!(page.contains("wen_o"), "the page shows the source");
    // the folder is the command's own: another run replaces its files, not someone else's
    let short = |dir: &Path| {
        let args = ["regress", "--config", L8, "--count", "200", "--code-coverage"];
        pisa(&[&args[..], &[dir.to_str().unwrap()]].concat())
    };
    let (code, _, err) = short(&cov);
    assert_eq!(code, 0, "{err}");
    let theirs = d.join("theirs");
    std::fs::create_dir_all(theirs.join("html")).unwrap();
    std::fs::write(theirs.join("html/index.html"), "mine").unwrap();
    let (code, _, err) = short(&theirs);
    assert_eq!(code, 2, "{err}");
    assert_eq!(std::fs::read_to_string(theirs.join("html/index.html")).unwrap(), "mine");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn merged_shard_coverage_equals_one_runs() {
    let d = common::fresh_dir("coverage-merge");
    let p = |s: &str| d.join(s).to_str().unwrap().to_string();
    let base = ["regress", "--config", L8, "--count", "6000", "--seed", "4"];
    let (code, _, err) = pisa(&[&base[..], &["--code-coverage", &p("whole")]].concat());
    assert_eq!(code, 0, "{err}");
    for k in 1..=2 {
        let (shard, cov, report) =
            (format!("{k}/2"), p(&format!("c{k}")), p(&format!("s{k}.json")));
        let args = [&base[..], &["--shard", &shard, "--code-coverage", &cov, "--report", &report]]
            .concat();
        let (code, _, err) = pisa(&args);
        assert_eq!(code, 0, "{err}");
    }
    let (code, out, err) =
        pisa(&["regress", "merge", &p("s1.json"), &p("s2.json"), "--code-coverage", &p("merged")]);
    assert_eq!(code, 0, "{out}{err}");
    let (whole, merged) = (points(&d.join("whole")), points(&d.join("merged")));
    assert_eq!(whole.len(), merged.len(), "the same points");
    let hit = |m: &BTreeMap<String, u64>| {
        m.iter().filter(|(_, n)| **n > 0).map(|(k, _)| k.clone()).collect::<Vec<_>>()
    };
    assert_eq!(hit(&whole), hit(&merged), "the same points hit");
    // each shard's counts add up to the merged ones
    let (c1, c2) = (points(&d.join("c1")), points(&d.join("c2")));
    assert!(merged.iter().all(|(k, n)| c1[k] + c2[k] == *n));
    // the shards' folders collected beside their reports elsewhere (as from other machines)
    let moved = d.join("moved");
    std::fs::create_dir_all(&moved).unwrap();
    for f in ["c1", "c2", "s1.json", "s2.json"] {
        std::fs::rename(d.join(f), moved.join(f)).unwrap();
    }
    let m = |f: &str| moved.join(f).to_str().unwrap().to_string();
    let (code, out, err) =
        pisa(&["regress", "merge", &m("s1.json"), &m("s2.json"), "--code-coverage", &p("again")]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(points(&d.join("again")), merged);
    for f in ["c1", "c2", "s1.json", "s2.json"] {
        std::fs::rename(moved.join(f), d.join(f)).unwrap();
    }
    // a shard's coverage changed after its report was written: refused
    let dat = d.join("c2/coverage.dat");
    let text = std::fs::read_to_string(&dat).unwrap();
    std::fs::write(&dat, text.replacen("' 0\n", "' 1\n", 1)).unwrap();
    let (code, _, err) =
        pisa(&["regress", "merge", &p("s1.json"), &p("s2.json"), "--code-coverage", &p("merged2")]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("changed since the run wrote it"), "{err}");
    let _ = std::fs::remove_dir_all(d);
}
