#!/usr/bin/env bash
# fpga/equiv.sh TARGET NETLIST.json TOP OUT_DIR GOLD_TOP GOLD.v... — proves a synthesized netlist
# equal to its RTL: the netlist (module TOP, as synth.sh wrote it) is read with yosys's simulation
# models of the family's cells (+/ecp5, +/ice40 or +/xilinx cells_sim.v), the RTL (module GOLD_TOP,
# emitted with another module prefix so the names do not collide) beside it; both are flattened
# into an equivalence miter, bit-blasted to AIGER and proved with ABC's dprove.
# Combinational designs only (a pipelined netlist's flip-flop models carry GSR/init logic).
# Prints EQUIVALENT (exit 0), DIFFERENT (exit 1) or UNDECIDED (exit 3); logs in OUT_DIR.
# Environment: YOSYS (default yosys), YOSYS_ABC (default yosys-abc).
set -euo pipefail
if [ $# -lt 6 ]; then
  echo "usage: $0 ecp5|ice40|xc7 NETLIST.json TOP OUT_DIR GOLD_TOP GOLD.v..." >&2
  exit 2
fi
target=$1 netlist=$2 top=$3 out=$4 gold=$5
shift 5
case "$target" in
  ecp5)  sim="+/ecp5/cells_sim.v" ;;
  ice40) sim="+/ice40/cells_sim.v" ;;
  xc7)   sim="+/xilinx/cells_sim.v" ;;
  *) echo "$0: unknown target '$target' (ecp5, ice40, xc7)" >&2; exit 2 ;;
esac
mkdir -p "$out"
reads=""
for f in "$@"; do reads+="read_verilog \"$f\"; "; done
# the netlist's `top` attribute would make hierarchy drop the RTL: unset it; the miter becomes
# the top before proc, so the family's unused cell models (RAMs) are dropped unelaborated; undriven bits become
# 0 on both sides, so a netlist wire left undriven still shows as a difference
"${YOSYS:-yosys}" -q -l "$out/equiv.log" -p "read_json \"$netlist\"; read_verilog -overwrite $sim; $reads \
setattr -mod -unset top; miter -equiv $gold $top pisa_equiv_miter; \
hierarchy -check -top pisa_equiv_miter; proc; flatten; \
opt -full; setundef -zero; techmap; aigmap; write_aiger -zinit \"$out/miter.aig\"" 2> "$out/equiv.stderr" || {
  grep -m1 ERROR "$out/equiv.log" "$out/equiv.stderr" >&2 || true; exit 2; }
"${YOSYS_ABC:-yosys-abc}" -c "read_aiger $out/miter.aig; strash; dprove" > "$out/abc.log" 2>&1 || true
if grep -q "UNSATISFIABLE" "$out/abc.log"; then echo EQUIVALENT; exit 0; fi
if grep -q "SATISFIABLE" "$out/abc.log"; then echo DIFFERENT; exit 1; fi
echo UNDECIDED; exit 3
