//! `pisa mutate` (issue 61): the mutation score of the regression on an 8-lane unit. What the
//! kit concludes about a mutant is checked with tools it does not use for that conclusion: a
//! kill by simulating the failing case on the mutated netlist with iverilog (the mutant and the
//! unmutated netlist must disagree), an equivalence with yosys' own SAT solver (`sat -prove`,
//! where the kit uses ABC).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn pisa(args: &[&str]) -> (i32, String, String) {
    common::pisa(args, "")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// An 8-lane combinational unit's configuration in `dir`.
fn l8(dir: &Path) -> PathBuf {
    let p = dir.join("l8.toml");
    std::fs::write(&p, "lanes = 8\n").unwrap();
    p
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Ports of the 8-lane netlist `pisa_sg_unit_mutants` driven with `mutsel` = `a` and `b`: the
/// common port list of both instances.
fn ports(width: u32, k: u32, d: &str, w: &str) -> String {
    format!(
        ".clk_i(1'b0), .rst_ni(1'b1), .valid_i(1'b1), .op_i(op_i), .src0_i(src0_i), .src1_i(src1_i), .mask_i(mask_i), .activemask_i(activemask_i), .dst_o({d}), .wen_o({w}), .valid_o(), .mutsel({width}'d{k})"
    )
}

/// The width of the netlist's `mutsel` input.
fn mutsel_width(netlist: &str) -> u32 {
    let l = netlist
        .lines()
        .find(|l| l.trim_start().starts_with("input") && l.contains("mutsel"))
        .unwrap();
    match l.split_once('[') {
        Some((_, r)) => r.split(':').next().unwrap().trim().parse::<u32>().unwrap() + 1,
        None => 1,
    }
}

/// Verilog literals of one 8-lane case: (op_i, src0_i, src1_i, mask_i, activemask_i).
type Case = (String, String, String, String, String);

/// The failing case `replay` (the raw port description a regression prints for an 8-lane unit).
fn from_replay(replay: &str) -> Case {
    let r: Value = serde_json::from_str(replay).unwrap();
    let words = |key: &str| -> String {
        let v: Vec<String> = r[key]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .map(|x| format!("32'd{}", x.as_u64().unwrap()))
            .collect();
        format!("{{{}}}", v.join(", "))
    };
    let hex =
        |key: &str, w: u32| format!("{w}'h{}", r[key].as_str().unwrap().trim_start_matches("0x"));
    (hex("op_i", 8), words("src0"), words("src1"), hex("mask", 32), hex("activemask", 8))
}

/// The solver's counterexample of a combinational proof (hex port values).
fn from_cex(cex: &str) -> Case {
    let r: Value = serde_json::from_str(cex).unwrap();
    let hex =
        |key: &str, w: u32| format!("{w}'h{}", r[key].as_str().unwrap().trim_start_matches("0x"));
    (hex("op", 8), hex("src0", 256), hex("src1", 256), hex("mask", 32), hex("activemask", 8))
}

/// iverilog: the netlist with mutant `k` and with none, on `case`: whether they disagree in
/// `wen_o` or in a written lane.
fn iverilog_disagrees(dir: &Path, netlist: &Path, k: u32, case: &Case) -> bool {
    let width = mutsel_width(&std::fs::read_to_string(netlist).unwrap());
    let tb = format!(
        "module tb;\n\
         reg [7:0] op_i = {}; reg [255:0] src0_i = {}; reg [255:0] src1_i = {};\n\
         reg [31:0] mask_i = {}; reg [7:0] activemask_i = {};\n\
         wire [255:0] d0, d1; wire [7:0] w0, w1; integer i; reg differ;\n\
         pisa_sg_unit_mutants none ({p0});\n\
         pisa_sg_unit_mutants mutant ({p1});\n\
         initial begin\n\
           #1 differ = (w0 !== w1);\n\
           for (i = 0; i < 8; i = i + 1) if (w0[i] && d0[32*i +: 32] !== d1[32*i +: 32]) differ = 1;\n\
           $display(\"DIFFER=%0d\", differ); $finish;\n\
         end\n\
         endmodule\n",
        case.0,
        case.1,
        case.2,
        case.3,
        case.4,
        p0 = ports(width, 0, "d0", "w0"),
        p1 = ports(width, k, "d1", "w1"),
    );
    let tbp = dir.join(format!("tb{k}.v"));
    std::fs::write(&tbp, tb).unwrap();
    let vvp = dir.join(format!("tb{k}.vvp"));
    let c = Command::new("iverilog").arg("-o").arg(&vvp).arg(netlist).arg(&tbp).output().unwrap();
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    let o = Command::new("vvp").arg(&vvp).output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("DIFFER="), "{out}");
    out.contains("DIFFER=1")
}

/// yosys `sat -prove` (not ABC) on a combinational miter of mutant `k` and the unmutated netlist:
/// whether yosys proves them equal where the unit's outputs are defined.
fn yosys_proves_equal(dir: &Path, netlist: &Path, k: u32) -> bool {
    let width = mutsel_width(&std::fs::read_to_string(netlist).unwrap());
    let m = format!(
        "module eqm (input [7:0] op_i, input [255:0] src0_i, input [255:0] src1_i, input [31:0] mask_i,\n\
         \x20   input [7:0] activemask_i, output trigger);\n\
         \x20 wire [255:0] d0, d1; wire [7:0] w0, w1; wire [7:0] diff;\n\
         \x20 pisa_sg_unit_mutants none ({});\n\
         \x20 pisa_sg_unit_mutants mutant ({});\n\
         \x20 genvar i;\n\
         \x20 for (i = 0; i < 8; i = i + 1) begin : l\n\
         \x20   assign diff[i] = w0[i] && d0[32*i +: 32] != d1[32*i +: 32];\n\
         \x20 end\n\
         \x20 assign trigger = (w0 != w1) || (|diff);\n\
         endmodule\n",
        ports(width, 0, "d0", "w0"),
        ports(width, k, "d1", "w1")
    );
    let mp = dir.join(format!("eq{k}.v"));
    std::fs::write(&mp, m).unwrap();
    let o = Command::new("yosys")
        .arg("-q")
        .arg("-p")
        .arg(format!(
            "read_verilog {} {}; hierarchy -top eqm; proc; flatten; opt; sat -prove trigger 0 -verify",
            s(netlist),
            s(&mp)
        ))
        .output()
        .unwrap();
    o.status.success()
}

#[test]
fn mutants_are_killed_or_set_aside_and_shards_merge() {
    let d = common::fresh_dir("mutate");
    let cfg = l8(&d);
    let mut reports = Vec::new();
    for k in 1..=2 {
        let (work, report) = (d.join(format!("w{k}")), d.join(format!("s{k}.json")));
        let shard = format!("{k}/2");
        let (code, out, err) = pisa(&[
            "mutate",
            "--config",
            s(&cfg),
            "--mutants",
            "30",
            "--count",
            "20000",
            "--seed",
            "1",
            "--shard",
            &shard,
            "--work",
            s(&work),
            "--report",
            s(&report),
        ]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("PASS: 15 mutants") && out.contains("pisa mutate merge"), "{out}");
        reports.push(report);
    }
    let merged = d.join("merged.json");
    let (code, out, err) =
        pisa(&["mutate", "merge", s(&reports[0]), s(&reports[1]), "--report", s(&merged)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PASS: 30 mutants"), "{out}");
    let m = read(&merged);
    let outcomes = m["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 30);
    let with = |st: &str| outcomes.iter().filter(|o| o["status"] == st).collect::<Vec<_>>();
    let (killed, equivalent) = (with("killed"), with("equivalent"));
    assert_eq!(killed.len() + equivalent.len(), 30, "{out}");
    assert!(!killed.is_empty() && !equivalent.is_empty(), "{out}");

    // every kill is real: iverilog sees the mutant and the unmutated netlist disagree on the
    // failing case (each shard built the same netlist from the same list)
    let netlist = d.join("w1").join("mutants.v");
    assert_eq!(
        std::fs::read(&netlist).unwrap(),
        std::fs::read(d.join("w2").join("mutants.v")).unwrap()
    );
    for o in &killed {
        let k = o["index"].as_u64().unwrap() as u32;
        assert!(
            iverilog_disagrees(
                &d,
                &netlist,
                k,
                &from_replay(o["killed_by"]["replay"].as_str().unwrap())
            ),
            "mutant {k} was reported killed, but iverilog sees no difference on its case"
        );
    }
    // every equivalence holds for yosys' SAT solver too; and the same check refutes a killed one
    for o in &equivalent {
        let k = o["index"].as_u64().unwrap() as u32;
        assert!(yosys_proves_equal(&d, &netlist, k), "mutant {k}: yosys does not prove it equal");
    }
    let k = killed[0]["index"].as_u64().unwrap() as u32;
    assert!(!yosys_proves_equal(&d, &netlist, k), "the yosys check cannot fail");

    // a planted list: one mutant the regression must kill, one that is equivalent
    let list = d.join("planted.txt");
    std::fs::write(
        &list,
        format!(
            "# planted\n{}\n{}\n",
            killed[0]["mutation"].as_str().unwrap(),
            equivalent[0]["mutation"].as_str().unwrap()
        ),
    )
    .unwrap();
    let (code, out, err) = pisa(&[
        "mutate",
        "--config",
        s(&cfg),
        "--mutations",
        s(&list),
        "--count",
        "20000",
        "--work",
        s(&d.join("wp")),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PASS: 2 mutants, 1 killed, 1 equivalent"), "{out}");

    // one shard alone is not the run
    let (code, out, _) = pisa(&["mutate", "merge", s(&reports[0])]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("PARTIAL") && out.contains("missing shards 2/2"), "{out}");
    // a report that claims what did not happen is refused, naming the outcome
    let mut v = read(&reports[0]);
    let i = v["outcomes"].as_array().unwrap().iter().position(|o| o["status"] == "killed").unwrap();
    v["outcomes"][i]["status"] = "equivalent".into();
    let forged = d.join("forged.json");
    std::fs::write(&forged, v.to_string()).unwrap();
    let (code, _, err) = pisa(&["mutate", "merge", s(&forged), s(&reports[1])]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("outcome {i}: status equivalent")), "{err}");
    let mut v = read(&reports[0]);
    v["outcomes"].as_array_mut().unwrap().pop();
    std::fs::write(&forged, v.to_string()).unwrap();
    let (code, _, err) = pisa(&["mutate", "merge", s(&forged), s(&reports[1])]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not exactly the mutants of shards 1/2"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_regression_too_short_leaves_gaps_that_the_proof_names() {
    let d = common::fresh_dir("mutate-gaps");
    let cfg = l8(&d);
    // one case per mutant: most mutants live through it; the proof tells the gaps
    let (code, out, err) = pisa(&[
        "mutate",
        "--config",
        s(&cfg),
        "--mutants",
        "10",
        "--count",
        "1",
        "--seed",
        "1",
        "--work",
        s(&d.join("w")),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("FAIL: 10 mutants"), "{out}");
    // a survivor is listed with the solver's counterexample (the port values), on which
    // iverilog sees the mutant and the unmutated netlist disagree
    let netlist = d.join("w").join("mutants.v");
    let mut survivors = 0;
    for l in out.lines().filter(|l| l.contains("): survived; {")) {
        let k: u32 = l.strip_prefix("mutant ").unwrap().split(' ').next().unwrap().parse().unwrap();
        let cex = l.split_once("survived; ").unwrap().1;
        assert!(iverilog_disagrees(&d, &netlist, k, &from_cex(cex)), "mutant {k}: {cex}");
        survivors += 1;
    }
    assert!(survivors > 0, "{out}");
    // bad input: the list's file, line and column
    let bad = d.join("bad.txt");
    std::fs::write(&bad, "# a list\nmutate -mode inv -module m; shell rm -rf /\n").unwrap();
    let (code, _, err) = pisa(&["mutate", "--config", s(&cfg), "--mutations", s(&bad)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("{}:2:27", s(&bad))), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}
