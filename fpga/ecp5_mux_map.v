// fpga/ecp5_mux_map.v — yosys techmap: muxcover's $_MUX4_ / $_MUX8_ onto ECP5 slice muxes.
//
// Used by fpga/synth.sh on the crossbar's mux trees (module pisa_sg_shfl_xbar_mux) only:
// `muxcover -mux4 -mux8 -nodecode` groups the 2:1 mux trees, this file maps each group onto
// the slice structure that synth_ecp5 uses for a LUT6 (two PFUMX feeding one L6MUX21), with
// every LUT4 a plain 2:1 mux:
//
//   $_MUX8_:  A B  C D  E F  G H       $_MUX4_:  A B  C D
//             LUT LUT  LUT LUT   (S)             LUT LUT   (S)
//              PFUMX    PFUMX    (T)              PFUMX    (T)
//                 L6MUX21        (U)
//
// A 32:1 mux is then 4 x $_MUX8_ + 1 x $_MUX4_ = 18 LUT4 + 9 PFUMX + 4 L6MUX21; yosys 0.23's
// own path (abc -lut 4:7, then LUT5..7 -> PFUMX/L6MUX21) spends a whole LUT6 (4 LUT4) on each
// 4:1 step. Select on the LUT's A input (its fastest, 141 ps in cells_sim.v); D is tied low.

// LUT4 INIT for Z = A ? C : B (D = 0; the upper half repeats the lower).
`define PISA_ECP5_MUX2_INIT 16'hE4E4

module \$_MUX4_ (A, B, C, D, S, T, Y);
  input A, B, C, D, S, T;
  output Y;
  wire lo, hi;
  LUT4 #(.INIT(`PISA_ECP5_MUX2_INIT)) l0 (.A(S), .B(A), .C(B), .D(1'b0), .Z(lo));
  LUT4 #(.INIT(`PISA_ECP5_MUX2_INIT)) l1 (.A(S), .B(C), .C(D), .D(1'b0), .Z(hi));
  PFUMX m (.ALUT(hi), .BLUT(lo), .C0(T), .Z(Y));
endmodule

module \$_MUX8_ (A, B, C, D, E, F, G, H, S, T, U, Y);
  input A, B, C, D, E, F, G, H, S, T, U;
  output Y;
  wire l0, l1, l2, l3, m0, m1;
  LUT4 #(.INIT(`PISA_ECP5_MUX2_INIT)) k0 (.A(S), .B(A), .C(B), .D(1'b0), .Z(l0));
  LUT4 #(.INIT(`PISA_ECP5_MUX2_INIT)) k1 (.A(S), .B(C), .C(D), .D(1'b0), .Z(l1));
  LUT4 #(.INIT(`PISA_ECP5_MUX2_INIT)) k2 (.A(S), .B(E), .C(F), .D(1'b0), .Z(l2));
  LUT4 #(.INIT(`PISA_ECP5_MUX2_INIT)) k3 (.A(S), .B(G), .C(H), .D(1'b0), .Z(l3));
  PFUMX p0 (.ALUT(l1), .BLUT(l0), .C0(T), .Z(m0));
  PFUMX p1 (.ALUT(l3), .BLUT(l2), .C0(T), .Z(m1));
  L6MUX21 q (.D0(m0), .D1(m1), .SD(U), .Z(Y));
endmodule
