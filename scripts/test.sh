#!/usr/bin/env bash
# The test command: installs what the tests need, then runs every test of the workspace.
# Usage: scripts/test.sh            (CI runs exactly this through .ci/run)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
export CARGO_TERM_COLOR=never
start=$(date +%s)
if command -v cargo-nextest >/dev/null 2>&1; then
  cargo nextest run --workspace --release --no-fail-fast
else
  cargo test --workspace --release --no-fail-fast
fi
echo "test.sh: all tests passed in $(( $(date +%s) - start )) s"
