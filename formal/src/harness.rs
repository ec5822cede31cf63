//! Miter generation: the RTL module and the spec (or a second RTL configuration) side by side,
//! with one output `trigger` that is 1 exactly when they disagree where the ISA defines the result.
//!
//! What is compared (everything else is unspecified by PISA and not compared):
//! - crossbar: `dst` of every participating lane;
//! - reduction: the result when at least one lane participates;
//! - priority encoder: the index, for every input;
//! - pipeline: `valid_o` every cycle, `wen_o` and the `dst_o` lanes with `wen_o` set whenever
//!   `valid_o` is 1, against the combinational unit's outputs delayed by the latency (the delay
//!   line's valid bits reset like the unit's).

use std::fmt::Write;

use pisa_model::SgOp;

/// log2 of a lane count.
fn log2(n: usize) -> usize {
    n.trailing_zeros() as usize
}

/// Crossbar miter for `lanes` lanes; `module` is the RTL crossbar's name.
pub fn xbar(module: &str, lanes: usize) -> String {
    let n = lanes;
    let mut s = String::new();
    writeln!(s, "module miter (").unwrap();
    writeln!(s, "    input  wire [1:0] mode, input wire sg, input wire [{}:0] part,", n - 1)
        .unwrap();
    writeln!(s, "    input  wire [{w}:0] src0, input wire [{w}:0] src1,", w = 32 * n - 1).unwrap();
    writeln!(s, "    output wire trigger);").unwrap();
    writeln!(s, "    wire [{}:0] spec_dst;", 32 * n - 1).unwrap();
    writeln!(
        s,
        "    pisa_spec_shfl #(.N({n}), .K({k})) spec (.mode(mode), .sg(sg), .part(part), .src0(src0), .src1(src1), .dst(spec_dst));",
        k = log2(n)
    )
    .unwrap();
    writeln!(s, "    wire [{}:0] rtl_dst;", 32 * n - 1).unwrap();
    writeln!(
        s,
        "    {module} rtl (.clk_i(1'b0), .mode_i(mode), .sg_i(sg), .part_i(part), .src0_i(src0), .src1_i(src1),\n        .dst_o(rtl_dst));"
    )
    .unwrap();
    let terms: Vec<String> = (0..n)
        .map(|i| format!("(part[{i}] && rtl_dst[{o}+:32] != spec_dst[{o}+:32])", o = 32 * i))
        .collect();
    writeln!(s, "    assign trigger = {};", terms.join("\n        | ")).unwrap();
    writeln!(s, "endmodule").unwrap();
    s
}

/// Reduction-tree miter with `op_i` fixed to `op`'s encoding.
pub fn reduce(module: &str, lanes: usize, op: SgOp) -> String {
    let n = lanes;
    let code = op.encode();
    format!(
        "// {op}\n\
         module miter (input wire [{p}:0] part, input wire [{w}:0] src0, output wire trigger);\n\
         \x20   wire [31:0] spec_r, rtl_r;\n\
         \x20   pisa_spec_reduce #(.N({n}), .OP(8'h{code:02x})) spec (.part(part), .src0(src0), .result(spec_r));\n\
         \x20   {module} rtl (.clk_i(1'b0), .op_i(8'h{code:02x}), .part_i(part), .src0_i(src0), .result_o(rtl_r));\n\
         \x20   assign trigger = (part != {n}'d0) && (spec_r != rtl_r);\n\
         endmodule\n",
        p = n - 1,
        w = 32 * n - 1
    )
}

/// Priority-encoder miter.
pub fn lzc(module: &str, lanes: usize) -> String {
    let n = lanes;
    format!(
        "module miter (input wire [{p}:0] bits, output wire trigger);\n\
         \x20   wire [31:0] spec_idx, rtl_idx;\n\
         \x20   pisa_spec_lzc #(.N({n})) spec (.bits(bits), .idx(spec_idx));\n\
         \x20   {module} rtl (.bits_i(bits), .idx_o(rtl_idx));\n\
         \x20   assign trigger = spec_idx != rtl_idx;\n\
         endmodule\n",
        p = n - 1
    )
}

/// Sequential miter of a pipelined unit (`piped`, `latency` cycles) against the combinational
/// unit (`comb`) followed by a `latency`-deep delay line.
pub fn pipeline(piped: &str, comb: &str, lanes: usize, latency: usize) -> String {
    let n = lanes;
    let w = 32 * n - 1;
    let mut s = String::new();
    writeln!(s, "module miter (").unwrap();
    writeln!(s, "    input wire clk, input wire rst_n, input wire valid, input wire [7:0] op,")
        .unwrap();
    writeln!(s, "    input wire [{w}:0] src0, input wire [{w}:0] src1, input wire [31:0] mask,")
        .unwrap();
    writeln!(s, "    input wire [{}:0] activemask, output wire trigger);", n - 1).unwrap();
    // Cycle 0 is a reset cycle (`started` is the only initialised register): the valid bits of
    // the unit and of the delay line start unknown and are cleared by it.
    writeln!(s, "    reg started = 1'b0;").unwrap();
    writeln!(s, "    always @(posedge clk) started <= 1'b1;").unwrap();
    writeln!(s, "    wire rst_eff = rst_n && started;").unwrap();
    for side in ["p", "c"] {
        writeln!(
            s,
            "    wire [{w}:0] {side}_dst; wire [{}:0] {side}_wen; wire {side}_valid;",
            n - 1
        )
        .unwrap();
    }
    for (side, m) in [("p", piped), ("c", comb)] {
        writeln!(
            s,
            "    {m} u_{side} (.clk_i(clk), .rst_ni(rst_eff), .valid_i(valid), .op_i(op), .src0_i(src0), .src1_i(src1),\n        .mask_i(mask), .activemask_i(activemask), .dst_o({side}_dst), .wen_o({side}_wen), .valid_o({side}_valid));"
        )
        .unwrap();
    }
    for k in 1..=latency {
        writeln!(s, "    reg [{w}:0] d_dst_{k}; reg [{}:0] d_wen_{k}; reg d_valid_{k};", n - 1)
            .unwrap();
    }
    writeln!(s, "    always @(posedge clk) begin").unwrap();
    for k in 1..=latency {
        let (dd, dw, dv) = if k == 1 {
            ("c_dst".to_string(), "c_wen".to_string(), "c_valid".to_string())
        } else {
            (format!("d_dst_{}", k - 1), format!("d_wen_{}", k - 1), format!("d_valid_{}", k - 1))
        };
        writeln!(
            s,
            "        d_dst_{k} <= {dd}; d_wen_{k} <= {dw}; d_valid_{k} <= rst_eff ? {dv} : 1'b0;"
        )
        .unwrap();
    }
    writeln!(s, "    end").unwrap();
    let (dd, dw, dv) = if latency == 0 {
        ("c_dst".to_string(), "c_wen".to_string(), "c_valid".to_string())
    } else {
        (format!("d_dst_{latency}"), format!("d_wen_{latency}"), format!("d_valid_{latency}"))
    };
    let lanes_differ: Vec<String> = (0..n)
        .map(|i| format!("(p_wen[{i}] && p_dst[{o}+:32] != {dd}[{o}+:32])", o = 32 * i))
        .collect();
    writeln!(
        s,
        "    assign trigger = started && ((p_valid != {dv}) || (p_valid && (p_wen != {dw}\n        || {})));",
        lanes_differ.join("\n        || ")
    )
    .unwrap();
    writeln!(s, "endmodule").unwrap();
    s
}

/// A wrapper `name` with the unit's ports around the mutated netlist `netlist` (`lanes` lanes),
/// its `mutsel` input (`width` bits) tied to `index`: one mutant as a unit.
pub fn mutant(name: &str, netlist: &str, lanes: usize, width: u32, index: u32) -> String {
    let (n, w) = (lanes, 32 * lanes - 1);
    format!(
        "module {name} (\n\
         \x20   input wire clk_i, input wire rst_ni, input wire valid_i, input wire [7:0] op_i,\n\
         \x20   input wire [{w}:0] src0_i, input wire [{w}:0] src1_i, input wire [31:0] mask_i,\n\
         \x20   input wire [{p}:0] activemask_i, output wire [{w}:0] dst_o, output wire [{p}:0] wen_o,\n\
         \x20   output wire valid_o);\n\
         \x20   {netlist} u (.clk_i(clk_i), .rst_ni(rst_ni), .valid_i(valid_i), .op_i(op_i), .src0_i(src0_i),\n\
         \x20       .src1_i(src1_i), .mask_i(mask_i), .activemask_i(activemask_i), .dst_o(dst_o),\n\
         \x20       .wen_o(wen_o), .valid_o(valid_o), .mutsel({width}'d{index}));\n\
         endmodule\n",
        p = n - 1
    )
}

/// Combinational miter of two units of `lanes` lanes with the unit's ports (`a` and `b`, both
/// latency 0): valid_i high, trigger when `valid_o`, `wen_o` or a written lane's `dst_o`
/// differ.
pub fn units_comb(a: &str, b: &str, lanes: usize) -> String {
    let (n, w) = (lanes, 32 * lanes - 1);
    let mut s = String::new();
    writeln!(
        s,
        "module miter (input wire [7:0] op, input wire [{w}:0] src0, input wire [{w}:0] src1,"
    )
    .unwrap();
    writeln!(
        s,
        "    input wire [31:0] mask, input wire [{}:0] activemask, output wire trigger);",
        n - 1
    )
    .unwrap();
    for (side, m) in [("p", a), ("c", b)] {
        writeln!(
            s,
            "    wire [{w}:0] {side}_dst; wire [{}:0] {side}_wen; wire {side}_valid;",
            n - 1
        )
        .unwrap();
        writeln!(
            s,
            "    {m} u_{side} (.clk_i(1'b0), .rst_ni(1'b1), .valid_i(1'b1), .op_i(op), .src0_i(src0), .src1_i(src1),\n        .mask_i(mask), .activemask_i(activemask), .dst_o({side}_dst), .wen_o({side}_wen), .valid_o({side}_valid));"
        )
        .unwrap();
    }
    let lanes_differ: Vec<String> = (0..n)
        .map(|i| format!("(p_wen[{i}] && p_dst[{o}+:32] != c_dst[{o}+:32])", o = 32 * i))
        .collect();
    writeln!(
        s,
        "    assign trigger = (p_valid != c_valid) || (p_wen != c_wen)\n        || {};",
        lanes_differ.join("\n        || ")
    )
    .unwrap();
    writeln!(s, "endmodule").unwrap();
    s
}
