#!/usr/bin/env bash
# Checks the model-only build (`scripts/build.sh --model-only`) on a machine where Verilator
# cannot run: a `verilator` that fails is put first on PATH. The build must not touch it; the
# model's commands must work; the co-simulation commands must say by name what is missing.
# Leaves the model-only binary in target/model-only/pisa. Run by scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
printf '#!/bin/sh\necho "verilator: broken on purpose (model-only check)" >&2\nexit 127\n' >"$fake/verilator"
chmod +x "$fake/verilator"
export PATH="$fake:$PATH"

fail() { echo "check-model-only: FAILED: $*" >&2; exit 1; }

scripts/build.sh --model-only >/dev/null || fail "scripts/build.sh --model-only"
mkdir -p target/model-only
cp target/release/pisa target/model-only/pisa
P=target/model-only/pisa

case=$(printf '%s' '{"program": ".reg .32b %r;\nredfirstidx.32b %r, 0xf0;"}')
out=$(printf '%s\n' "$case" | "$P" exec) || fail "pisa exec"
[[ $out == *'"%r":[4,4,4,4'* ]] || fail "pisa exec answered $out"
"$P" emit --config fpga/configs/l8_qor.toml --out "$fake/rtl" >/dev/null || fail "pisa emit"
[ -f "$fake/rtl/manifest.json" ] || fail "pisa emit wrote no manifest"
"$P" bench --forms ired.sum.32b --time-ms 20 --rounds 1 >/dev/null || fail "pisa bench"
for cmd in "regress --count 10" "exec --backend rtl"; do
  set +e
  err=$("$P" $cmd </dev/null 2>&1 >/dev/null)
  code=$?
  set -e
  [ "$code" = 2 ] || fail "pisa $cmd exited $code (want 2)"
  [[ $err == *"built without it (cargo feature \`cosim\`"* ]] || fail "pisa $cmd said: $err"
done
echo "check-model-only: the model-only pisa builds and runs with a broken verilator on PATH"
