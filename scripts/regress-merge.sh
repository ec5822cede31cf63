#!/usr/bin/env bash
# Combines the shard reports in OUT_DIR (written by scripts/regress-shard.sh) into
# OUT_DIR/merged.json, OUT_DIR/coverage.html and OUT_DIR/junit.xml (JUnit, for CI dashboards),
# and prints the merged coverage and verdict. Exit status 1 if any shard had a mismatch or a
# shard of the run is missing (PARTIAL), 2 if the reports do not belong to one run.
#
# Usage: scripts/regress-merge.sh OUT_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
out=$1
shopt -s nullglob
reports=("$out"/shard-*.json)
[ ${#reports[@]} -gt 0 ] || { echo "$0: no shard-*.json in $out" >&2; exit 2; }
exec "${PISA:-target/release/pisa}" regress merge "${reports[@]}" --report "$out/merged.json" --html "$out/coverage.html" \
  --junit "$out/junit.xml"
