// pisa_spec_lzc — specification of the redfirstidx search (PISA §7.3) for the formal proofs,
// written from the pseudocode, not from the rust-hdl description:
//   i = 0; while (!(mask & (1 << i))) i++;  dst = i
// The loop never ends for mask == 0; docs/spec-notes.md pins the result N (the lane count).
module pisa_spec_lzc #(
    parameter integer N = 32
) (
    input  wire [N-1:0] bits,
    output reg  [31:0]  idx
);
    integer i;
    always @(bits) begin
        idx = N;
        // scan from the top so the lowest set bit is the last one written
        for (i = N - 1; i >= 0; i = i - 1)
            if (bits[i]) idx = i;
    end
endmodule
