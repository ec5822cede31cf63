#!/usr/bin/env bash
# One shard of a sharded co-simulation run: `pisa regress --shard auto`, its report into OUT_DIR.
# The shard comes from the environment: PISA_SHARD=K/N (the GitHub Actions matrix sets it) or a
# Slurm array task (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT).
#
# Usage: scripts/regress-shard.sh OUT_DIR [pisa regress options: --count N --seed S --config C ...]
# Every shard of one run must get the same --count, --seed, --config and --ops.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 OUT_DIR [pisa regress options]" >&2; exit 2; }
out=$1
shift
if [ -n "${PISA_SHARD:-}" ]; then
  name="shard-${PISA_SHARD/\//-of-}"
elif [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
  name="shard-slurm-${SLURM_ARRAY_TASK_ID}"
else
  echo "$0: set PISA_SHARD=K/N or run as a Slurm array task" >&2
  exit 2
fi
mkdir -p "$out"
exec "${PISA:-target/release/pisa}" regress --shard auto --report "$out/$name.json" "$@"
