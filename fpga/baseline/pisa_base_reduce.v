// pisa_base_reduce — behavioural baseline of the reduction tree (PISA §7.1, §7.2) for QoR
// comparison: one independent tree per fred/ired form (the plain Verilog folds of
// formal/spec/pisa_spec_reduce.v, nothing shared between forms or formats) and a mux on op_i.
// Same function as pisa_sg_reduce for the 48 forms (reserved codes give 0).
module pisa_base_reduce #(
    parameter integer N = 32
) (
    input  wire            clk_i,
    input  wire [7:0]      op_i,
    input  wire [N-1:0]    part_i,
    input  wire [32*N-1:0] src0_i,
    output reg  [31:0]     result_o
);
    // the 48 form codes (pisa_model::op encoding), form f in FORMS[8f +: 8]
    localparam [8*48-1:0] FORMS =
        384'h9897969594939291908887868584838281806662656164605e5a5d595c585652555154504e4a4d494c48464245414440;
    wire [31:0] r [0:47];
    genvar f;
    for (f = 0; f < 48; f = f + 1) begin : g_form
        pisa_spec_reduce #(.N(N), .OP(FORMS[8*f +: 8])) u (.part(part_i), .src0(src0_i), .result(r[f]));
    end
    integer i;
    always @(*) begin
        result_o = 32'h0;
        for (i = 0; i < 48; i = i + 1)
            if (op_i == FORMS[8*i +: 8]) result_o = r[i];
    end
endmodule
