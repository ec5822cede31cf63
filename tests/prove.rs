//! `pisa prove`: the full proofs at 32 lanes (the CI run), a hand-edited RTL directory refuted
//! with a counterexample that replays on the model and on the edited RTL, and located errors for
//! bad arguments.

mod common;

use std::path::Path;
use std::process::Command;

use common::pisa;

fn tmp(name: &str) -> std::path::PathBuf {
    common::fresh_dir(&format!("prove-test-{name}"))
}

/// Every property at 32 lanes: crossbar, priority encoder, all 48 reduction forms, and the
/// pipelined units (2 and 5 stages) against the combinational one.
#[test]
fn all_proofs_pass_at_32_lanes() {
    let dir = tmp("all32");
    let report = dir.join("report.json");
    let (code, out, err) =
        pisa(&["prove", "--jobs", "2", "--report", report.to_str().unwrap()], "");
    println!("{out}");
    assert_eq!(code, 0, "{out}\n{err}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let outcomes = r["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 52, "xbar + lzc + 48 reduce forms + 2 pipelines");
    assert!(outcomes.iter().all(|o| o["verdict"] == "PASS" && o["lanes"] == 32));
    for block in ["xbar", "lzc", "reduce", "pipeline"] {
        assert!(outcomes.iter().any(|o| o["block"] == block), "{block} proven");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Emits the unit of `toml` and proves it by a relative `--rtl-dir` from its own directory;
/// returns `pisa prove`'s report after checking that it passed.
fn prove_pipeline(name: &str, toml: &str) -> String {
    prove_emitted(name, toml, &[])
}

/// As [`prove_pipeline`], with more `pisa prove` arguments.
fn prove_emitted(name: &str, toml: &str, more: &[&str]) -> String {
    let dir = tmp(name);
    std::fs::write(dir.join("unit.toml"), toml).unwrap();
    let run = |args: &[&str]| {
        let o =
            Command::new(env!("CARGO_BIN_EXE_pisa")).args(args).current_dir(&dir).output().unwrap();
        (
            o.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr),
        )
    };
    let (code, out) = run(&["emit", "--config", "unit.toml", "--out", "rtl"]);
    assert_eq!(code, 0, "{out}");
    let mut args = vec!["prove", "--rtl-dir", "rtl", "--work", "w"];
    args.extend_from_slice(more);
    let (code, out) = run(&args);
    assert_eq!(code, 0, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// A unit with a register at boundary 0 (in front of the trees), after levels 2 and 3, and all
/// three `pipeline_extra` registers (split select logic / leaf values; select after the lookup /
/// root after the last node; tree results before the output mux): equal to the combinational
/// unit over its 6-cycle latency.
#[test]
fn boundary_zero_pipeline_equals_the_combinational_unit() {
    let out = prove_pipeline(
        "b0",
        "lanes = 8\npipeline_at = [0, 2, 3]\npipeline_extra = [\"front\", \"root\", \"result\"]\n",
    );
    assert!(out.contains("PASS  l8  unit pipeline=6 == unit pipeline=0, 6-cycle latency"), "{out}");
}

/// `"pick"` beside stage registers after levels 2 and 3: a register after level 2's picks and
/// one before the last node's pick in the reduction, and the crossbar's result and the controls
/// delayed two cycles in the unit; equal to the combinational unit over its 4-cycle latency.
#[test]
fn pick_pipeline_equals_the_combinational_unit() {
    let out =
        prove_pipeline("pick", "lanes = 8\npipeline_at = [2, 3]\npipeline_extra = [\"pick\"]\n");
    assert!(out.contains("PASS  l8  unit pipeline=4 == unit pipeline=0, 4-cycle latency"), "{out}");
}

/// `"input"` and `"root"` beside the output register: the blocks' input registers (the opcode
/// and the mask once per four lanes), one root per four lanes and the crossbar's participation
/// lookup split at the root register; equal to the combinational unit over its 3-cycle latency.
#[test]
fn input_pipeline_equals_the_combinational_unit() {
    let out = prove_pipeline(
        "input",
        "lanes = 8\npipeline_at = [3]\npipeline_extra = [\"input\", \"root\"]\n",
    );
    assert!(out.contains("PASS  l8  unit pipeline=3 == unit pipeline=0, 3-cycle latency"), "{out}");
}

/// `crossbar = "compact"` at 16 lanes with a register at every boundary inside the trees: the
/// crossbar holds two (before level 1, after level 3) and delays its outputs two cycles, the
/// reduction keeps one per level; equal to the combinational unit over its 4-cycle latency.
#[test]
fn compact_crossbar_pipeline_equals_the_combinational_unit() {
    let out = prove_pipeline(
        "compact",
        "lanes = 16\npipeline_at = [0, 1, 2, 3]\ncrossbar = \"compact\"\n",
    );
    assert!(
        out.contains("PASS  l16  unit pipeline=4 == unit pipeline=0, 4-cycle latency"),
        "{out}"
    );
}

/// `reduction = "compact"` (each node picks before its register) proven against the spec on
/// its own: every reduction form of the combinational 8-lane unit.
#[test]
fn compact_reduction_proves_against_the_spec() {
    let out =
        prove_emitted("rcompact8", "lanes = 8\nreduction = \"compact\"\n", &["--block", "reduce"]);
    assert!(out.contains("48 properties: 48 PASS, 0 FAIL"), "{out}");
}

/// `reduction = "compact"` with a register at every boundary, `front`, `root`, `result` and the
/// compact crossbar (the `small` preset's form at 16 lanes): the registers hold the nodes'
/// values; equal to the combinational unit (pair nodes) over its 8-cycle latency.
#[test]
fn compact_reduction_pipeline_equals_the_combinational_unit() {
    let out = prove_pipeline(
        "rcompact16",
        "lanes = 16\npipeline_at = [0, 1, 2, 3, 4]\npipeline_extra = [\"front\", \"root\", \"result\"]\ncrossbar = \"compact\"\nreduction = \"compact\"\n",
    );
    assert!(
        out.contains("PASS  l16  unit pipeline=8 == unit pipeline=0, 8-cycle latency"),
        "{out}"
    );
}

/// Simulates the (edited) reduction tree in `rtl` with iverilog on one input.
fn rtl_reduce(rtl: &Path, op: u8, part: u32, src0: &[u32]) -> u32 {
    let mut bits = String::new();
    for v in src0.iter().rev() {
        bits.push_str(&format!("{v:08x}"));
    }
    let tb = format!(
        "module tb; wire [31:0] r;\n pisa_sg_reduce rtl (.clk_i(1'b0), .op_i(8'h{op:02x}), .part_i(32'h{part:08x}), .src0_i(1024'h{bits}), .result_o(r));\n initial begin #1; $display(\"R %h\", r); end\nendmodule\n"
    );
    std::fs::write(rtl.join("tb.v.txt"), tb).unwrap();
    let mut files: Vec<String> = std::fs::read_dir(rtl)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path().display().to_string())
        .filter(|p| p.contains("reduce") && p.ends_with(".v"))
        .collect();
    files.push(rtl.join("tb.v.txt").display().to_string());
    let vvp = rtl.join("tb.vvp");
    let c = Command::new("iverilog")
        .args(["-g2005", "-o", vvp.to_str().unwrap()])
        .arg(format!("-I{}", rtl.display()))
        .args(&files)
        .output()
        .expect("iverilog");
    assert!(c.status.success(), "{}", String::from_utf8_lossy(&c.stderr));
    let r = Command::new("vvp").args(["-n", vvp.to_str().unwrap()]).output().expect("vvp");
    let out = String::from_utf8_lossy(&r.stdout);
    let line = out.lines().find(|l| l.starts_with("R ")).expect("result line");
    u32::from_str_radix(line[2..].trim(), 16).unwrap()
}

#[test]
fn hand_edited_rtl_is_refuted_with_a_replayable_counterexample() {
    let dir = tmp("edited");
    let rtl = dir.join("rtl");
    let (code, _, err) = pisa(&["emit", "--out", rtl.to_str().unwrap()], "");
    assert_eq!(code, 0, "{err}");
    // swap the NaN rule: .nanp and the default exchange places
    let root = rtl.join("pisa_sg_reduce_root.v");
    let text = std::fs::read_to_string(&root).unwrap();
    let from = "(ctl_i[7+:1] && root_i[34+:1])";
    assert!(text.contains(from));
    std::fs::write(&root, text.replacen(from, "(~ctl_i[7+:1] && root_i[34+:1])", 1)).unwrap();
    let (code, out, err) = pisa(
        &[
            "prove",
            "--rtl-dir",
            rtl.to_str().unwrap(),
            "--block",
            "reduce",
            "--ops",
            "fred.max.f",
            "--work",
            dir.join("w").to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("FAIL  l32  reduce == spec: fred.max.f"), "{out}");
    let line = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("counterexample: "))
        .expect("counterexample line")
        .to_string();
    let case: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(case["program"], "fred.max.f %d, %a, %m;");
    // replay on the model: `pisa exec` accepts the line as it is
    let (code, answer, err) = pisa(&["exec"], &format!("{line}\n"));
    assert_eq!(code, 0, "{answer}\n{err}");
    let answer: serde_json::Value = serde_json::from_str(answer.trim()).unwrap();
    let active =
        u32::from_str_radix(case["activemask"].as_str().unwrap().trim_start_matches("0x"), 16)
            .unwrap();
    assert_ne!(active, 0);
    let lane = active.trailing_zeros() as usize;
    let model = answer["regs"]["%d"][lane].as_u64().unwrap() as u32;
    // replay on the edited RTL: it answers differently
    let src0: Vec<u32> =
        case["regs"]["%a"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32).collect();
    let op = "fred.max.f".parse::<pisa_model::SgOp>().unwrap().encode();
    let edited = rtl_reduce(&rtl, op, active, &src0);
    assert_ne!(model, edited, "the counterexample must separate the model and the edited RTL");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_are_named() {
    let dir = tmp("bad");
    let (code, _, err) = pisa(&["prove", "--rtl-dir", dir.join("missing").to_str().unwrap()], "");
    assert_eq!(code, 2);
    assert!(err.contains("missing"), "{err}");
    let (code, _, err) = pisa(&["prove", "--ops", "fred.max.q"], "");
    assert_eq!(code, 2);
    assert!(err.contains("'fred.max.q' is not a sub-group instruction form"), "{err}");
    let (code, _, err) = pisa(&["prove", "--ops", "shfl.idx.32b"], "");
    assert_eq!(code, 2);
    assert!(err.contains("not a reduction form"), "{err}");
    let (code, _, err) = pisa(&["prove", "--lanes", "7"], "");
    assert_eq!(code, 2);
    assert!(err.contains("--lanes 7"), "{err}");
    // a directory of Verilog without a manifest needs --lanes
    std::fs::write(
        dir.join("x.v"),
        "module foo_lzc(input [7:0] bits_i, output [31:0] idx_o); assign idx_o = 0; endmodule\n",
    )
    .unwrap();
    let (code, _, err) = pisa(&["prove", "--rtl-dir", dir.to_str().unwrap()], "");
    assert_eq!(code, 2);
    assert!(err.contains("pass --lanes"), "{err}");
    // a broken manifest is located
    std::fs::write(dir.join("manifest.json"), "{\n  \"lanes\": 8,\n  oops\n}\n").unwrap();
    let (code, _, err) = pisa(&["prove", "--rtl-dir", dir.to_str().unwrap()], "");
    assert_eq!(code, 2);
    assert!(err.contains("manifest.json:3:"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wrong_netlist_is_refuted_at_small_lanes() {
    // a hand-written 8-lane priority encoder that returns 0 when empty
    let dir = tmp("lzc8");
    std::fs::write(
        dir.join("my_lzc.v"),
        "module my_lzc(input wire [7:0] bits_i, output reg [31:0] idx_o);\n integer i;\n always @* begin idx_o = 0; for (i = 7; i >= 0; i = i - 1) if (bits_i[i]) idx_o = i; end\nendmodule\n",
    )
    .unwrap();
    let (code, out, err) =
        pisa(&["prove", "--rtl-dir", dir.to_str().unwrap(), "--lanes", "8", "--block", "lzc"], "");
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("FAIL  l8  lzc"), "{out}");
    assert!(out.contains("\"mask\":\"0x00000000\""), "the empty mask separates them: {out}");
    let _ = std::fs::remove_dir_all(&dir);
}
