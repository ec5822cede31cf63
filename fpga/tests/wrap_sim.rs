//! The place-and-route harness in iverilog: `dout` must be the XOR of all the block's outputs,
//! as many cycles later as the pipelined XOR tree has register levels, for output widths that do
//! and do not divide by 4. The testbench computes the XOR itself (`^dut.out_d`), independently of
//! the generated tree.

use std::process::Command;

use pisa_fpga::wrap::{ports, wrapper};

fn block(width: usize) -> String {
    format!(
        "module blk(clk_i, a_i, b_i, y_o, z_o);\n    input wire  clk_i;\n    input wire  [{0}:0] a_i;\n    input wire  b_i;\n    output reg  [{0}:0] y_o;\n    output reg  z_o;\n    always @(posedge clk_i) begin y_o <= a_i ^ {{{1}{{b_i}}}}; z_o <= b_i; end\nendmodule\n",
        width - 2,
        width - 1
    )
}

fn check(width: usize) {
    let blk = block(width);
    let wrap = wrapper("blk", &ports(&blk, "blk").expect("ports"));
    // register levels between out_q and dout: ceil(log4(width)), and the out_q register itself
    let mut levels = 0;
    let mut w = width;
    while w > 1 {
        w = w.div_ceil(4);
        levels += 1;
    }
    let delay = levels.max(1) + 1;
    let tb = format!(
        "module tb;\n  reg clk = 0; reg din = 0; wire dout; integer i; integer bad = 0; reg [63:0] hist = 0;\n  pisa_fpga_wrap w(.clk(clk), .din(din), .dout(dout));\n  initial begin\n    for (i = 0; i < 400; i = i + 1) begin\n      din = $random; #1 clk = 1; #1 clk = 0;\n      hist = {{hist[62:0], ^w.dut.y_o ^ w.dut.z_o}};\n      if (i > 80 && dout !== hist[{}]) bad = bad + 1;\n    end\n    $display(\"BAD %0d\", bad); $finish;\n  end\nendmodule\n",
        delay
    );
    let dir = std::env::temp_dir().join(format!("pisa-wrap-sim-{width}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("all.v");
    std::fs::write(&src, format!("{blk}\n{wrap}\n{tb}")).unwrap();
    let exe = dir.join("sim");
    let o = Command::new("iverilog")
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("iverilog is installed (scripts/install-deps.sh)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new("vvp").arg(&exe).output().expect("vvp");
    let log = String::from_utf8_lossy(&o.stdout);
    assert!(log.contains("BAD 0"), "width {width}: {log}\n{wrap}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dout_is_the_xor_of_every_output_bit() {
    for width in [2, 5, 16, 17, 64, 1058] {
        check(width);
    }
}
