// pisa_spec_reduce — specification of fred (PISA §7.1) and ired (§7.2) for the formal proofs,
// written from the spec text and the decisions in docs/spec-notes.md. Not derived from the
// rust-hdl description: floats are ordered by a sign-magnitude IEEE comparison (not order keys),
// packed halves are separate 16-bit trees, integer compares use Verilog $signed / unsigned
// relations, NaN is detected from exponent and fraction fields.
//
// OP is the form, in the unit's encoding (pisa_model::op): OP[7:6] = 01 fred {OP[1:0]: min 0,
// max 1, absmax 2; OP[2]: .nanp; OP[5:3]: f 0, hf 1, bf 2, hfx2 3, bfx2 4}; OP[7:6] = 10 ired
// {OP[3:0]: sum 0, smin 1, smax 2, umin 3, umax 4, and 5, or 6, xor 7, absmax 8; OP[4]: .16b}.
// result is the value every participating lane writes (meaningful when part != 0).
module pisa_spec_reduce #(
    parameter integer N = 32,
    parameter [7:0] OP = 8'h41
) (
    input  wire [N-1:0]    part,
    input  wire [32*N-1:0] src0,
    output wire [31:0]     result
);
    wire [32*N-1:0] high;  // element 1 of packed types, zero-extended
    genvar l;
    for (l = 0; l < N; l = l + 1) begin : g_high
        assign high[l*32 +: 32] = {16'b0, src0[l*32+16 +: 16]};
    end
    if (OP[7:6] == 2'b01 && OP[5:3] <= 3'd2) begin : g_fred
        pisa_spec_fold_float #(.N(N), .FMT(OP[5:3]), .FOP(OP[1:0]), .NANP(OP[2]))
            u (.p(part), .vals(src0), .r(result));
    end else if (OP[7:6] == 2'b01) begin : g_fred_x2
        wire [31:0] lo, hi;
        pisa_spec_fold_float #(.N(N), .FMT(OP[5:3] == 3'd3 ? 1 : 2), .FOP(OP[1:0]), .NANP(OP[2]))
            u_lo (.p(part), .vals(src0), .r(lo));
        pisa_spec_fold_float #(.N(N), .FMT(OP[5:3] == 3'd3 ? 1 : 2), .FOP(OP[1:0]), .NANP(OP[2]))
            u_hi (.p(part), .vals(high), .r(hi));
        assign result = {hi[15:0], lo[15:0]};
    end else begin : g_ired
        pisa_spec_fold_int #(.N(N), .IOP(OP[3:0]), .W16(OP[4])) u (.p(part), .vals(src0), .r(result));
    end
endmodule

// fmin / fmax / fmax(fabs) of one float column: binary32 (FMT 0), binary16 (1), bfloat16 (2).
// NaN inputs are ignored unless every participating input is NaN; with NANP any NaN gives NaN;
// a NaN result is the canonical quiet NaN. Tree in heap layout: node i combines 2i and 2i+1.
module pisa_spec_fold_float #(
    parameter integer N = 32,
    parameter integer FMT = 0,
    parameter integer FOP = 0,   // min 0, max 1, absmax 2
    parameter integer NANP = 0
) (
    input  wire [N-1:0]    p,
    input  wire [32*N-1:0] vals,  // lane i in [32i+31:32i]; 16-bit formats: low half
    output wire [31:0]     r
);
    function is_nan;
        input [31:0] x;
        if (FMT == 0) is_nan = (x[30:23] == 8'hFF) && (x[22:0] != 0);
        else if (FMT == 1) is_nan = (x[14:10] == 5'h1F) && (x[9:0] != 0);
        else is_nan = (x[14:7] == 8'hFF) && (x[6:0] != 0);
    endfunction

    // a < b for non-NaN values: IEEE order, -0 < +0 (sign-magnitude comparison)
    function less;
        input [31:0] a, b;
        reg sa, sb;
        reg [30:0] ma, mb;
        begin
            if (FMT == 0) begin sa = a[31]; sb = b[31]; ma = a[30:0]; mb = b[30:0]; end
            else begin sa = a[15]; sb = b[15]; ma = {16'b0, a[14:0]}; mb = {16'b0, b[14:0]}; end
            if (sa && !sb) less = 1'b1;
            else if (!sa && sb) less = 1'b0;
            else if (!sa) less = ma < mb;
            else less = ma > mb;
        end
    endfunction

    wire [31:0] v [1:2*N-1];  // node i: value (heap layout, leaves N..2N-1)
    wire num [1:2*N-1];       // a participating non-NaN value below node i
    wire nan [1:2*N-1];       // a participating NaN below node i
    genvar i;
    for (i = 0; i < N; i = i + 1) begin : g_leaf
        wire [31:0] x0 = (FMT == 0) ? vals[i*32 +: 32] : {16'b0, vals[i*32 +: 16]};
        wire [31:0] x = (FOP == 2) ? ((FMT == 0) ? {1'b0, x0[30:0]} : {17'b0, x0[14:0]}) : x0;  // fabs
        assign v[N+i] = x;
        assign num[N+i] = p[i] && !is_nan(x);
        assign nan[N+i] = p[i] && is_nan(x);
    end
    for (i = 1; i < N; i = i + 1) begin : g_node
        wire [31:0] a = v[2*i];
        wire [31:0] b = v[2*i+1];
        wire b_better = (FOP == 0) ? less(b, a) : less(a, b);
        assign v[i] = !num[2*i] ? b : !num[2*i+1] ? a : b_better ? b : a;
        assign num[i] = num[2*i] || num[2*i+1];
        assign nan[i] = nan[2*i] || nan[2*i+1];
    end
    wire [31:0] canon = (FMT == 0) ? 32'h7FFF_FFFF : 32'h0000_7FFF;
    assign r = (!num[1] || (NANP != 0 && nan[1])) ? canon : v[1];
endmodule

// sum / smin / smax / umin / umax / and / or / xor / absmax of 32-bit (or with W16, 16-bit)
// integers over the participating lanes (the pseudocode's loop over the lanes in mask, taken
// pairwise: a subtree without participating lanes passes the other one through, as the float
// fold does). Result zero-extended. (An identity-element formulation is equal but made ABC
// take minutes on ired.sum at 32 lanes; docs/spec-notes.md §F.)
module pisa_spec_fold_int #(
    parameter integer N = 32,
    parameter integer IOP = 0,
    parameter integer W16 = 0
) (
    input  wire [N-1:0]    p,
    input  wire [32*N-1:0] vals,
    output wire [31:0]     r
);
    localparam integer W = W16 ? 16 : 32;
    wire [W-1:0] acc [1:2*N-1];  // node i value (heap layout, leaves N..2N-1)
    wire some [1:2*N-1];         // a participating lane below node i
    genvar i;
    for (i = 0; i < N; i = i + 1) begin : g_leaf
        wire [W-1:0] x = vals[i*32 +: W];
        // iabs: |MIN| is MIN read as unsigned, the largest value
        assign acc[N+i] = (IOP == 8 && x[W-1]) ? ({W{1'b0}} - x) : x;
        assign some[N+i] = p[i];
    end
    for (i = 1; i < N; i = i + 1) begin : g_node
        wire [W-1:0] a = acc[2*i];
        wire [W-1:0] b = acc[2*i+1];
        wire [W-1:0] o =
            (IOP == 0) ? a + b :
            (IOP == 1) ? (($signed(b) < $signed(a)) ? b : a) :
            (IOP == 2) ? (($signed(b) > $signed(a)) ? b : a) :
            (IOP == 3) ? ((b < a) ? b : a) :
            (IOP == 5) ? (a & b) :
            (IOP == 6) ? (a | b) :
            (IOP == 7) ? (a ^ b) :
            ((b > a) ? b : a);  // umax, absmax
        assign acc[i] = !some[2*i] ? b : !some[2*i+1] ? a : o;
        assign some[i] = some[2*i] || some[2*i+1];
    end
    assign r = {{32-W{1'b0}}, acc[1]};
endmodule
