// pisa_base_lzc — behavioural baseline of the redfirstidx priority encoder (PISA §7.3): a
// loop that keeps the lowest set bit; N when no bit is set. Same function as pisa_sg_lzc.
module pisa_base_lzc #(
    parameter integer N = 32
) (
    input  wire [N-1:0] bits_i,
    output reg  [31:0]  idx_o
);
    integer i;
    always @(*) begin
        idx_o = N;
        for (i = N - 1; i >= 0; i = i - 1)
            if (bits_i[i]) idx_o = i;
    end
endmodule
