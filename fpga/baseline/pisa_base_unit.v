// pisa_base_unit — behavioural baseline of the whole sub-group unit (PISA §7) for QoR comparison:
// the three block baselines (pisa_base_xbar, pisa_base_reduce, pisa_base_lzc) side by side and a
// plain output mux, combinational, with the ports of pisa_sg_unit. The opcode is decoded here from
// the encoding table (pisa_model::op), not from the generator's decoder:
//   shfl         op = 00 000 sg mode
//   fred         op = 01 type nanp op    op != 3, type <= 4
//   ired         op = 10 0 w16 op[3:0]   op <= 8
//   redfirstidx  op = 11 000000
// shfl and the reductions write the participating lanes (mask_i & activemask_i), redfirstidx
// every active lane, a reserved code none. Same function as pisa_sg_unit at latency 0 (dst_o of
// lanes with wen_o = 0 is unspecified there and may differ here).
module pisa_base_unit #(
    parameter integer N = 32,  // lanes
    parameter integer K = 5    // log2(N)
) (
    input  wire            clk_i,
    input  wire            rst_ni,
    input  wire            valid_i,
    input  wire [7:0]      op_i,
    input  wire [32*N-1:0] src0_i,
    input  wire [32*N-1:0] src1_i,
    input  wire [31:0]     mask_i,
    input  wire [N-1:0]    activemask_i,
    output reg  [32*N-1:0] dst_o,
    output reg  [N-1:0]    wen_o,
    output wire            valid_o
);
    wire [N-1:0] part = mask_i[N-1:0] & activemask_i;
    wire is_shfl = op_i[7:3] == 5'b00000;
    wire is_fred = op_i[7:6] == 2'b01 && op_i[1:0] != 2'd3 && op_i[5:3] <= 3'd4;
    wire is_ired = op_i[7:6] == 2'b10 && !op_i[5] && op_i[3:0] <= 4'd8;
    wire is_rfi  = op_i == 8'hc0;

    wire [32*N-1:0] shfl_dst;
    wire [31:0] red_result, rfi_idx;
    pisa_base_xbar #(.N(N), .K(K)) u_xbar (
        .clk_i(clk_i), .mode_i(op_i[1:0]), .sg_i(op_i[2]), .part_i(part),
        .src0_i(src0_i), .src1_i(src1_i), .dst_o(shfl_dst));
    pisa_base_reduce #(.N(N)) u_reduce (
        .clk_i(clk_i), .op_i(op_i), .part_i(part), .src0_i(src0_i), .result_o(red_result));
    pisa_base_lzc #(.N(N)) u_lzc (.bits_i(part), .idx_o(rfi_idx));

    integer l;
    always @(*) begin
        for (l = 0; l < N; l = l + 1) begin
            if (is_shfl) dst_o[l*32 +: 32] = shfl_dst[l*32 +: 32];
            else if (is_rfi) dst_o[l*32 +: 32] = rfi_idx;
            else dst_o[l*32 +: 32] = red_result;
        end
        if (is_shfl || is_fred || is_ired) wen_o = part;
        else if (is_rfi) wen_o = activemask_i;
        else wen_o = {N{1'b0}};
    end
    assign valid_o = valid_i;
endmodule
