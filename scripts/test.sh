#!/usr/bin/env bash
# The test command. CI runs exactly `scripts/test.sh` (through .ci/run).
#
#   scripts/test.sh          every test: installs the tools (scripts/install-deps.sh), checks
#                            formatting (cargo fmt) and lints (cargo clippy, warnings are errors),
#                            builds and checks the model-only variant with a broken verilator
#                            first on PATH (scripts/check-model-only.sh), then runs the whole
#                            workspace's tests (cargo nextest, release), then installs the
#                            Python package (pip install ./python) and runs its tests (pytest:
#                            the API, a property test against pisa exec, the cocotb testbench
#                            on Icarus and Verilator).
#   scripts/test.sh --fast   the daily tier, a few minutes once built: the model, the assembler
#                            and the exec contract, the quadrants API on the model, the RTL
#                            generator's unit tests, emit + lint of an 8-lane unit, a short
#                            co-simulation. No tool install, no fmt/clippy.
#   scripts/test.sh --long   the long flows CI leaves out (it runs smaller variants): the
#                            32-lane behavioural baselines for xc7, ECP5 and iCE40 (about 30 min
#                            on 2 cores; CI synthesizes the 8-lane ones). Installs the tools.
#                            The 32-lane seed sweep is its own command (hours):
#                            target/release/pisa synth --target ecp5 --preset fast --block unit \
#                              --pnr --no-baseline --seeds 1,2,3,4,5 --jobs 2
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
start=$(date +%s)

mode=full
case "${1:-}" in
  "") ;;
  --fast) mode=fast ;;
  --long) mode=long ;;
  *) echo "test.sh: unknown option '$1' (use --fast or --long)" >&2; exit 2 ;;
esac

run_tests() {
  if command -v cargo-nextest >/dev/null 2>&1; then
    cargo nextest run --workspace --release --no-fail-fast "$@"
  else
    # without nextest: cargo test (a filter expression needs nextest; run everything)
    cargo test --workspace --release --no-fail-fast
  fi
}

if [ "$mode" = fast ]; then
  run_tests -E "$(tr '\n' ' ' <<'EOF'
package(pisa-model)
| (package(pisa-rtl) & (kind(lib) | binary(snapshots) | test(/lint_small/)))
| (package(pisa) & (binary(cli) | binary(quadrants_ref)))
| (package(pisa-sim) & (binary(smoke) | test(/shards_partition/)))
EOF
)"
  echo "test.sh --fast: passed in $(( $(date +%s) - start )) s"
  exit 0
fi

if [ "$mode" = long ]; then
  scripts/install-deps.sh
  cargo nextest run --workspace --release --no-fail-fast --run-ignored only \
    -E 'test(/unit_baseline_synthesizes/)'
  echo "test.sh --long: passed in $(( $(date +%s) - start )) s"
  exit 0
fi

scripts/install-deps.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -- -D warnings
scripts/check-model-only.sh
run_tests
python3 -m pip install -q --disable-pip-version-check ./python
python3 -m pytest -q -p no:cacheprovider python/tests
echo "test.sh: all tests passed in $(( $(date +%s) - start )) s"
