#!/usr/bin/env bash
# A sharded co-simulation run on a Slurm cluster: an array of N shard tasks, then one merge.
#
# Usage (from the repository, with target/release/pisa built on a shared file system):
#   scripts/regress-slurm.sh N OUT_DIR --count 100000000 --seed 42 [--config unit.toml]
# submits `sbatch --array=1-N` of this script (each task runs scripts/regress-shard.sh, which
# reads its shard from SLURM_ARRAY_TASK_ID / SLURM_ARRAY_TASK_COUNT) and a merge job that runs
# after all of them (scripts/regress-merge.sh OUT_DIR: merged.json, coverage.html).
# Extra sbatch options (partition, time, cores): SBATCH_OPTS="--partition=cpu --time=02:00:00".
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
  # inside an array task: run this task's shard
  out=$1
  shift
  exec scripts/regress-shard.sh "$out" "$@"
fi
[ $# -ge 2 ] || { echo "usage: $0 N OUT_DIR [pisa regress options]" >&2; exit 2; }
n=$1 out=$2
shift 2
command -v sbatch >/dev/null || { echo "$0: sbatch not found: run this on a Slurm login node" >&2; exit 2; }
# shellcheck disable=SC2086
jid=$(sbatch --parsable ${SBATCH_OPTS:-} --array="1-$n" --job-name=pisa-regress \
  --output="$out/slurm-%A_%a.log" "$0" "$out" "$@")
# shellcheck disable=SC2086
sbatch ${SBATCH_OPTS:-} --dependency="afterok:$jid" --job-name=pisa-regress-merge \
  --output="$out/slurm-merge-%j.log" --wrap "scripts/regress-merge.sh $out"
echo "submitted shards $jid (1-$n) and their merge; results in $out/merged.json and $out/coverage.html"
