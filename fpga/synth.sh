#!/usr/bin/env bash
# fpga/synth.sh TARGET TOP OUT_DIR FILE.v... — yosys synthesis of module TOP for an FPGA family.
#   TARGET: ecp5  (synth_ecp5 -noflatten -nomux; the crossbar's mux trees (*_shfl_xbar_mux)
#                  go through muxcover + ecp5_mux_map.v onto LUT4 + PFUMX + L6MUX21),
#           ice40 (synth_ice40 -noflatten),
#           xc7   (synth_xilinx -family xc7 -widemux 4; keeps the hierarchy by default)
# The hierarchy is kept so the crossbar's mux trees (pisa_sg_shfl_xbar_mux) are mapped apart
# from the select logic: flattened, ABC folded select terms into the mux LUTs (2.5-4x the LUTs).
# -widemux 4 maps the trees exactly onto LUT6 + MUXF7 + MUXF8. ECP5 has no such option: its LUT
# mapping (abc -lut 4:7) spends a LUT6 (4 LUT4s) on a 4:1 step, so the flow stops synth_ecp5
# before map_luts, groups the mux trees with muxcover and maps the groups with ecp5_mux_map.v
# (next to this script) onto 2:1-mux LUT4s + PFUMX + L6MUX21: 18 LUT4s per 32:1 bit instead of
# 26 (-nomux) or 34 (yosys's own PFUMX cover), measured at 32 lanes. The rest uses -nomux.
# Writes OUT_DIR/TOP.json (netlist for nextpnr), OUT_DIR/stat.json (cells by type),
# OUT_DIR/ltp.txt (logic levels: longest path in cells, flip-flops cut) and OUT_DIR/yosys.log.
# Environment: YOSYS (default yosys). `pisa synth` runs this same script.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 ecp5|ice40|xc7 TOP OUT_DIR FILE.v..." >&2
  exit 2
fi
target=$1 top=$2 out=$3
shift 3
mkdir -p "$out"
case "$target" in
  ecp5)  map="$(cd "$(dirname "$0")" && pwd)/ecp5_mux_map.v"
         [ -f "$map" ] || { echo "$0: missing $map" >&2; exit 2; }
         synth="synth_ecp5 -noflatten -nomux -top $top -run begin:map_luts; \
muxcover -mux4 -mux8 -nodecode *_shfl_xbar_mux; techmap -map \"$map\" *_shfl_xbar_mux; \
synth_ecp5 -noflatten -nomux -top $top -run map_luts:" ;;
  ice40) synth="synth_ice40 -noflatten -top $top" ;;
  xc7)   synth="synth_xilinx -family xc7 -widemux 4 -top $top" ;;
  *) echo "$0: unknown target '$target' (ecp5, ice40, xc7)" >&2; exit 2 ;;
esac
reads=""
for f in "$@"; do reads+="read_verilog \"$f\"; "; done
"${YOSYS:-yosys}" -q -l "$out/yosys.log" -p "$reads $synth; tee -q -o $out/stat.json stat -json; tee -q -o $out/ltp.txt ltp -noff; write_json $out/$top.json"
