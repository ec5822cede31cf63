//! The behavioural baselines of `fpga/baseline/` compute what the generator's RTL computes, so the
//! QoR ratio in `pisa synth` reports compares like with like. iverilog simulates the whole-unit
//! baseline (`pisa_base_unit`: the crossbar, reduction and priority-encoder baselines and its own
//! opcode decode) beside the emitted combinational `pisa_sg_unit` on every one of the 256 opcodes
//! with edge-weighted random operands, and compares `wen_o`, `valid_o` and `dst_o` of the lanes
//! that write (the unit leaves the others unspecified). Two independently written designs: the
//! baselines are plain loops over lanes, the RTL is the generator's trees.

use std::path::Path;
use std::process::Command;

mod common;

const BASELINES: [(&str, &str); 4] = [
    ("pisa_base_unit.v", include_str!("../fpga/baseline/pisa_base_unit.v")),
    ("pisa_base_xbar.v", include_str!("../fpga/baseline/pisa_base_xbar.v")),
    ("pisa_base_reduce.v", include_str!("../fpga/baseline/pisa_base_reduce.v")),
    ("pisa_base_lzc.v", include_str!("../fpga/baseline/pisa_base_lzc.v")),
];

/// The testbench: `reps` cases per opcode; prints `CHECKED n` and `MISMATCHES m` (and the first
/// mismatches as `DIFF ...`).
fn testbench(lanes: usize, reps: usize) -> String {
    let k = lanes.trailing_zeros();
    let w = 32 * lanes;
    format!(
        r#"`timescale 1ns/1ps
module tb;
    localparam integer N = {lanes}, K = {k};
    reg  [7:0] op;
    reg  [{w1}:0] src0, src1;
    reg  [31:0] mask;
    reg  [N-1:0] act;
    reg  valid;
    wire [{w1}:0] dst_r, dst_b;
    wire [N-1:0] wen_r, wen_b;
    wire valid_r, valid_b;
    pisa_sg_unit rtl (.clk_i(1'b0), .rst_ni(1'b1), .valid_i(valid), .op_i(op), .src0_i(src0),
        .src1_i(src1), .mask_i(mask), .activemask_i(act), .dst_o(dst_r), .wen_o(wen_r), .valid_o(valid_r));
    pisa_base_unit #(.N(N), .K(K)) base (.clk_i(1'b0), .rst_ni(1'b1), .valid_i(valid), .op_i(op),
        .src0_i(src0), .src1_i(src1), .mask_i(mask), .activemask_i(act), .dst_o(dst_b), .wen_o(wen_b),
        .valid_o(valid_b));
    integer seed, o, r, l, checked, bad;
    reg [31:0] x, y;
    // lane values: zeros, signs, infinities, 32- and 16-bit NaNs (quiet, signalling, bfloat16),
    // the integer extremes, then random words
    function [31:0] pick(input [31:0] a, input [31:0] b);
        case (a[4:0])
            0: pick = 32'h00000000;
            1: pick = 32'h80000000;
            2: pick = 32'h7fc00000;
            3: pick = 32'hff800001;
            4: pick = 32'h7f800000;
            5: pick = 32'hff800000;
            6: pick = 32'h7e007c00;
            7: pick = 32'hfc01fe00;
            8: pick = 32'h7fc1ffc0;
            9: pick = 32'h7fffffff;
            10: pick = 32'hffffffff;
            11: pick = 32'h00000001;
            12: pick = {{16'h8000, b[15:0]}};
            13: pick = {{b[31:16], 16'h7c00}};
            14: pick = b & 32'h8000ffff;
            default: pick = b;
        endcase
    endfunction
    function [31:0] lanes_of(input [31:0] a, input [31:0] b);
        case (a[2:0])
            0: lanes_of = 32'hffffffff;
            1: lanes_of = 32'h0;
            2: lanes_of = 32'h1 << b[4:0];
            3: lanes_of = ~(32'h1 << b[4:0]);
            default: lanes_of = b;
        endcase
    endfunction
    initial begin
        seed = 32'h5eed_ba5e;
        checked = 0;
        bad = 0;
        for (o = 0; o < 256; o = o + 1) begin
            for (r = 0; r < {reps}; r = r + 1) begin
                op = o;
                for (l = 0; l < N; l = l + 1) begin
                    x = $random(seed);
                    y = $random(seed);
                    src0[l*32 +: 32] = pick(x, y);
                    x = $random(seed);
                    y = $random(seed);
                    // shfl reads lane numbers from bits [K-1:0], [8+K-1:8], [16+K-1:16]
                    src1[l*32 +: 32] = x[5] ? y : (y & 32'h001f1f1f);
                end
                x = $random(seed);
                y = $random(seed);
                mask = lanes_of(x, y);
                x = $random(seed);
                y = $random(seed);
                act = lanes_of(x, y);
                valid = x[8];
                #1;
                checked = checked + 1;
                if (wen_r !== wen_b || valid_r !== valid_b) begin
                    bad = bad + 1;
                    if (bad <= 5) $display("DIFF op=%h wen rtl=%h base=%h valid rtl=%b base=%b", op, wen_r, wen_b, valid_r, valid_b);
                end else
                    for (l = 0; l < N; l = l + 1)
                        if (wen_r[l] && dst_r[l*32 +: 32] !== dst_b[l*32 +: 32]) begin
                            bad = bad + 1;
                            if (bad <= 5) $display("DIFF op=%h lane %0d rtl=%h base=%h", op, l, dst_r[l*32 +: 32], dst_b[l*32 +: 32]);
                        end
            end
        end
        $display("CHECKED %0d", checked);
        $display("MISMATCHES %0d", bad);
        $finish;
    end
endmodule
"#,
        w1 = w - 1
    )
}

/// Emits the combinational unit for `lanes`, simulates it beside the baseline; (checked, mismatches, log).
fn compare(lanes: usize, reps: usize) -> (u64, u64, String) {
    let dir = common::fresh_dir(&format!("baseline-{lanes}"));
    let cfg = dir.join("unit.toml");
    std::fs::write(&cfg, format!("lanes = {lanes}\n")).unwrap();
    let rtl = dir.join("rtl");
    let (code, out, err) = common::pisa(
        &["emit", "--config", cfg.to_str().unwrap(), "--out", rtl.to_str().unwrap()],
        "",
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let mut files = vec!["tb.v".to_string()];
    for (name, text) in BASELINES {
        std::fs::write(dir.join(name), text).unwrap();
        files.push(name.to_string());
    }
    for f in std::fs::read_dir(&rtl).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|x| x == "v") {
            files.push(p.to_str().unwrap().to_string());
        }
    }
    std::fs::write(dir.join("tb.v"), testbench(lanes, reps)).unwrap();
    run(
        &dir,
        "iverilog",
        &[
            &["-g2005", "-o", "tb.vvp", &format!("-I{}", rtl.display())][..],
            &files.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        ]
        .concat(),
    );
    let out = run(&dir, "vvp", &["-n", "tb.vvp"]);
    let num = |key: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(key).map(|v| v.trim().parse::<u64>().expect("a count")))
            .unwrap_or_else(|| panic!("no {key} in the simulation output:\n{out}"))
    };
    let (checked, bad) = (num("CHECKED "), num("MISMATCHES "));
    let _ = std::fs::remove_dir_all(&dir);
    (checked, bad, out)
}

fn run(dir: &Path, tool: &str, args: &[&str]) -> String {
    let o = Command::new(tool)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{tool} runs (scripts/install-deps.sh installs it): {e}"));
    let text =
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{tool} failed:\n{text}");
    text
}

#[test]
fn unit_baseline_matches_the_rtl_at_8_lanes() {
    let (checked, bad, log) = compare(8, 24);
    assert_eq!(checked, 256 * 24);
    assert_eq!(bad, 0, "{log}");
}

#[test]
fn unit_baseline_matches_the_rtl_at_32_lanes() {
    let (checked, bad, log) = compare(32, 4);
    assert_eq!(checked, 256 * 4);
    assert_eq!(bad, 0, "{log}");
}
