// pisa_base_reduce — behavioural baseline of the reduction of fred (PISA §7.1) and ired (§7.2)
// for QoR comparison, written the way one would without thinking about the fabric: a binary
// tree over the lanes whose every node computes each form's combine of its two children (IEEE
// min/max by a sign-magnitude compare per float width, the nine integer ops) and picks one with
// the decoded form. Nothing clever: no order keys, no shared compare chain, a plain adder, a
// NaN flag pair per 16-bit column. Same function as pisa_sg_reduce for the 48 forms (the value
// every participating lane writes; reserved codes and an empty mask give an unspecified value).
//   op_i: fred = 01 type[2:0] nanp op[1:0] (min 0, max 1, absmax 2; f 0, hf 1, bf 2, hfx2 3,
//         bfx2 4); ired = 10 0 w16 op[3:0] (sum 0, smin 1, smax 2, umin 3, umax 4, and 5, or 6,
//         xor 7, absmax 8) — the encoding of pisa_model::op.
module pisa_base_reduce #(
    parameter integer N = 32
) (
    input  wire            clk_i,
    input  wire [7:0]      op_i,
    input  wire [N-1:0]    part_i,
    input  wire [32*N-1:0] src0_i,
    output reg  [31:0]     result_o
);
    wire       is_fred = op_i[7:6] == 2'b01;
    wire [1:0] fop = op_i[1:0];
    wire       nanp = op_i[2];
    wire [2:0] fty = op_i[5:3];
    wire       f32 = fty == 3'd0;
    wire       half_fmt_bf = fty == 3'd2 || fty == 3'd4;  // 16-bit columns are bfloat16
    wire       packed_ty = fty == 3'd3 || fty == 3'd4;
    wire [3:0] iop = op_i[3:0];
    wire       w16 = op_i[4];

    // a < b on non-NaN values, IEEE order with -0 < +0, sign-magnitude words of 32 / 16 bits
    function less32;
        input [31:0] a, b;
        less32 = (a[31] != b[31]) ? a[31] : (a[31] ? a[30:0] > b[30:0] : a[30:0] < b[30:0]);
    endfunction
    function less16;
        input [15:0] a, b;
        less16 = (a[15] != b[15]) ? a[15] : (a[15] ? a[14:0] > b[14:0] : a[14:0] < b[14:0]);
    endfunction
    function nan16;
        input [15:0] x;
        input bf;
        nan16 = bf ? (x[14:7] == 8'hFF && x[6:0] != 0) : (x[14:10] == 5'h1F && x[9:0] != 0);
    endfunction

    // node i (heap layout, leaves N..2N-1): value, a participating lane below it, and per
    // 16-bit column (lo, hi; a binary32 uses lo) a participating non-NaN / NaN value below it
    wire [31:0] v    [1:2*N-1];
    wire        some [1:2*N-1];
    wire        num_lo [1:2*N-1], num_hi [1:2*N-1], nan_lo [1:2*N-1], nan_hi [1:2*N-1];

    genvar i;
    for (i = 0; i < N; i = i + 1) begin : g_leaf
        wire [31:0] x = src0_i[i*32 +: 32];
        wire        p = part_i[i];
        wire        x_nan32 = x[30:23] == 8'hFF && x[22:0] != 0;
        wire        x_nan_lo = f32 ? x_nan32 : nan16(x[15:0], half_fmt_bf);
        wire        x_nan_hi = nan16(x[31:16], half_fmt_bf);
        // fabs for fred.absmax; iabs for ired.absmax (|MIN| = MIN read unsigned)
        wire [31:0] fabs = f32 ? {1'b0, x[30:0]} : {1'b0, x[30:16], 1'b0, x[14:0]};
        wire [31:0] iabs = w16 ? {16'b0, x[15] ? 16'd0 - x[15:0] : x[15:0]}
                               : (x[31] ? 32'd0 - x : x);
        assign v[N+i] = is_fred ? (fop == 2'd2 ? fabs : x) : (iop == 4'd8 ? iabs : x);
        assign some[N+i] = p;
        assign num_lo[N+i] = p && !x_nan_lo;
        assign nan_lo[N+i] = p && x_nan_lo;
        assign num_hi[N+i] = p && !x_nan_hi;
        assign nan_hi[N+i] = p && x_nan_hi;
    end

    for (i = 1; i < N; i = i + 1) begin : g_node
        wire [31:0] a = v[2*i];
        wire [31:0] b = v[2*i+1];
        wire        sa = some[2*i], sb = some[2*i+1];
        // fred: per column, the better of the two non-NaN values (min: the smaller; max and
        // absmax: the larger); a column without a non-NaN value on one side takes the other
        wire        b_better32 = fop == 2'd0 ? less32(b, a) : less32(a, b);
        wire        b_better_lo = fop == 2'd0 ? less16(b[15:0], a[15:0]) : less16(a[15:0], b[15:0]);
        wire        b_better_hi = fop == 2'd0 ? less16(b[31:16], a[31:16]) : less16(a[31:16], b[31:16]);
        wire        take_b_lo = !num_lo[2*i] || (num_lo[2*i+1] && (f32 ? b_better32 : b_better_lo));
        wire        take_b_hi = !num_hi[2*i] || (num_hi[2*i+1] && b_better_hi);
        wire [31:0] fred_v = f32 ? (take_b_lo ? b : a)
                           : {take_b_hi ? b[31:16] : a[31:16], take_b_lo ? b[15:0] : a[15:0]};
        // ired: the op over both values (16-bit: the low halves, zero-extended)
        reg  [31:0] ired_v;
        always @(*) begin
            if (w16)
                case (iop)
                    4'd0: ired_v = {16'b0, a[15:0] + b[15:0]};
                    4'd1: ired_v = {16'b0, $signed(b[15:0]) < $signed(a[15:0]) ? b[15:0] : a[15:0]};
                    4'd2: ired_v = {16'b0, $signed(b[15:0]) > $signed(a[15:0]) ? b[15:0] : a[15:0]};
                    4'd3: ired_v = {16'b0, b[15:0] < a[15:0] ? b[15:0] : a[15:0]};
                    4'd5: ired_v = {16'b0, a[15:0] & b[15:0]};
                    4'd6: ired_v = {16'b0, a[15:0] | b[15:0]};
                    4'd7: ired_v = {16'b0, a[15:0] ^ b[15:0]};
                    default: ired_v = {16'b0, b[15:0] > a[15:0] ? b[15:0] : a[15:0]};  // umax, absmax
                endcase
            else
                case (iop)
                    4'd0: ired_v = a + b;
                    4'd1: ired_v = $signed(b) < $signed(a) ? b : a;
                    4'd2: ired_v = $signed(b) > $signed(a) ? b : a;
                    4'd3: ired_v = b < a ? b : a;
                    4'd5: ired_v = a & b;
                    4'd6: ired_v = a | b;
                    4'd7: ired_v = a ^ b;
                    default: ired_v = b > a ? b : a;  // umax, absmax
                endcase
        end
        assign v[i] = is_fred ? fred_v : (!sa ? b : !sb ? a : ired_v);
        assign some[i] = sa || sb;
        assign num_lo[i] = num_lo[2*i] || num_lo[2*i+1];
        assign nan_lo[i] = nan_lo[2*i] || nan_lo[2*i+1];
        assign num_hi[i] = num_hi[2*i] || num_hi[2*i+1];
        assign nan_hi[i] = nan_hi[2*i] || nan_hi[2*i+1];
    end

    // the root: a column without a non-NaN value, or (.nanp) with a NaN, is the canonical NaN
    wire nan_out_lo = !num_lo[1] || (nanp && nan_lo[1]);
    wire nan_out_hi = !num_hi[1] || (nanp && nan_hi[1]);
    always @(*) begin
        if (!is_fred)
            result_o = w16 ? {16'b0, v[1][15:0]} : v[1];
        else if (f32)
            result_o = nan_out_lo ? 32'h7FFF_FFFF : v[1];
        else
            result_o = {packed_ty ? (nan_out_hi ? 16'h7FFF : v[1][31:16]) : 16'h0000,
                        nan_out_lo ? 16'h7FFF : v[1][15:0]};
    end
endmodule
