// pisa_base_xbar — behavioural baseline of the shfl crossbar (PISA §7.4) for QoR comparison:
// per lane, compute srcLane and read `src0[srcLane*32 +: 32]` with a variable part-select, the way
// one would write it without thinking about the FPGA fabric. Same function as pisa_sg_shfl_xbar.
module pisa_base_xbar #(
    parameter integer N = 32,  // lanes
    parameter integer K = 5    // log2(N)
) (
    input  wire            clk_i,
    input  wire [1:0]      mode_i,  // up 0, dn 1, xor 2, idx 3
    input  wire            sg_i,
    input  wire [N-1:0]    part_i,
    input  wire [32*N-1:0] src0_i,
    input  wire [32*N-1:0] src1_i,
    output reg  [32*N-1:0] dst_o
);
    integer l;
    reg [K:0] off, cval, seg, clamp, src;  // one extra bit: srcLane may leave 0..N-1
    reg ok;
    always @(*) begin
        for (l = 0; l < N; l = l + 1) begin
            off  = {1'b0, src1_i[l*32 +: K]};
            cval = sg_i ? {1'b0, src1_i[l*32 + 8 +: K]} : (mode_i == 2'd0 ? 0 : N - 1);
            seg  = sg_i ? {1'b0, src1_i[l*32 + 16 +: K]} : 0;
            clamp = (l & seg) | (cval & ~seg & (N - 1));
            case (mode_i)
                2'd0: begin src = l - off; ok = (l >= off) && (src >= clamp); end
                2'd1: begin src = l + off; ok = src <= clamp; end
                2'd2: begin src = l ^ off; ok = src <= clamp; end
                default: begin src = (l & seg) | (off & ~seg & (N - 1)); ok = src <= clamp; end
            endcase
            if (ok && part_i[src[K-1:0]]) dst_o[l*32 +: 32] = src0_i[src[K-1:0]*32 +: 32];
            else dst_o[l*32 +: 32] = src0_i[l*32 +: 32];
        end
    end
endmodule
