#!/usr/bin/env bash
# The main job: installs the tools, builds the `pisa` CLI, and runs the spec's example programs
# through it as a smoke check. Usage: scripts/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cargo build --release --bin pisa
P=target/release/pisa
for f in reference-model/tests/spec-examples/*.pisa; do
  "$P" run "$f" >/dev/null
done
echo "build.sh: built $P ($("$P" --version)); the spec's examples run."
echo "Try: $P run reference-model/tests/spec-examples/shfl-dn-sg-cval29.pisa"
