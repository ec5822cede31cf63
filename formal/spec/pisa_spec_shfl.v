// pisa_spec_shfl — specification of shfl.{up,dn,xor,idx}[.sg] (PISA §7.4), written directly from
// the pseudocode for the formal proofs. Not derived from the rust-hdl description.
//
// For every lane: laneOffset = src1[4:0]; with .sg cval = src1[12:8], segmask = src1[20:16],
// else cval = (.up ? 0 : 31), segmask = 0 (fields are log2(N) bits wide for N lanes);
// clampLane = (laneid & segmask) | (cval & ~segmask); minLane = laneid & segmask;
// srcLane = up: laneid - laneOffset | dn: laneid + laneOffset | xor: laneid ^ laneOffset
//           | idx: minLane | (laneOffset & ~segmask)           (signed integer arithmetic)
// inBounds = .up ? srcLane >= clampLane : srcLane <= clampLane
// dst = (!inBounds || !participating[srcLane]) ? src0[laneid] : src0[srcLane]
// dst is only meaningful in participating lanes (the others do not write it).
module pisa_spec_shfl #(
    parameter integer N = 32,  // lanes
    parameter integer K = 5    // log2(N)
) (
    input  wire [1:0]      mode,   // up = 0, dn = 1, xor = 2, idx = 3
    input  wire            sg,
    input  wire [N-1:0]    part,   // participating lanes: src2 & %activemask
    input  wire [32*N-1:0] src0,
    input  wire [32*N-1:0] src1,
    output reg  [32*N-1:0] dst
);
    localparam integer FIELD = N - 1;
    // lane numbers as exact signed integers: srcLane ranges over -(N-1) .. 2N-2, K+2 bits
    integer laneid, w;
    reg [31:0] word [0:N-1];  // src0 as lane words
    reg signed [K+1:0] lane, lane_offset, cval, segmask, clamp_lane, min_lane, src_lane;
    reg in_bounds;
    always @(mode or sg or part or src0 or src1) begin  // explicit: the block writes what it reads
        dst = {32*N{1'b0}};
        for (w = 0; w < N; w = w + 1) word[w] = src0[w*32 +: 32];
        for (laneid = 0; laneid < N; laneid = laneid + 1) begin
            lane = laneid;
            lane_offset = {2'b00, src1[laneid*32 +: K]};
            if (sg) begin
                cval = {2'b00, src1[laneid*32 + 8 +: K]};
                segmask = {2'b00, src1[laneid*32 + 16 +: K]};
            end else begin
                cval = (mode == 2'd0) ? 0 : FIELD;
                segmask = 0;
            end
            clamp_lane = (lane & segmask) | (cval & ~segmask & FIELD);
            min_lane = lane & segmask;
            case (mode)
                2'd0: src_lane = lane - lane_offset;
                2'd1: src_lane = lane + lane_offset;
                2'd2: src_lane = lane ^ lane_offset;
                default: src_lane = min_lane | (lane_offset & ~segmask & FIELD);
            endcase
            if (mode == 2'd0) in_bounds = src_lane >= clamp_lane;
            else              in_bounds = src_lane <= clamp_lane;
            if (!in_bounds)
                dst[laneid*32 +: 32] = word[laneid];
            else if (!part[src_lane[K-1:0]])  // in bounds, so srcLane fits K bits
                dst[laneid*32 +: 32] = word[laneid];
            else  // in bounds: 0 <= srcLane <= N-1
                dst[laneid*32 +: 32] = word[src_lane[K-1:0]];
        end
    end
endmodule
