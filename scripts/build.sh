#!/usr/bin/env bash
# The main job: installs the tools, builds the `pisa` CLI and runs the spec's example programs
# through it as a smoke check, then installs the Python package (`pip install ./python`).
#
# Usage: scripts/build.sh               everything (co-simulation included)
#        scripts/build.sh --model-only  the model, assembler, emit, prove, synth: needs only Rust
#                                       (no Verilator; `pisa regress` and `--backend rtl` say so)
set -euo pipefail
cd "$(dirname "$0")/.."

features=()
case "${1:-}" in
  "") scripts/install-deps.sh ;;
  --model-only) features=(--no-default-features) ;;
  *) echo "build.sh: unknown option '$1' (use --model-only)" >&2; exit 2 ;;
esac
cargo build --release --bin pisa "${features[@]}"
P=target/release/pisa
for f in reference-model/tests/spec-examples/*.pisa; do
  "$P" run "$f" >/dev/null || { echo "build.sh: $P run $f failed" >&2; exit 1; }
done
if [ ${#features[@]} -eq 0 ]; then
  python3 -m pip install -q --disable-pip-version-check ./python \
    || { echo "build.sh: pip install ./python (the Python package pisa_sgu) failed" >&2; exit 1; }
  python3 -c 'import pisa_sgu' || { echo "build.sh: pisa_sgu does not import" >&2; exit 1; }
fi
echo "build.sh: built $P ($("$P" --version)${features:+, model only}); the spec's examples run."
[ ${#features[@]} -eq 0 ] && echo "build.sh: installed the Python package pisa_sgu (python3 -c 'import pisa_sgu')"
echo "Try: $P run reference-model/tests/spec-examples/shfl-dn-sg-cval29.pisa"
