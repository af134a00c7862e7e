#!/usr/bin/env bash
# Submits a sharded gen-tasks run to Slurm: a job array of SHARDS tasks, then the merge
# job, which waits for every array task to succeed (--dependency=afterok).
#
#   OUT_ROOT=/shared/mergeforge SHARDS=8 GEN_ARGS="--seed 0 --per-cell 10" \
#       deploy/slurm/submit.sh
#
# DATASET and VERSION (defaults mergeforge-embedded, 1.0.0) must match GEN_ARGS'
# --dataset and --version, for the merge to find the shard folders.
set -euo pipefail

: "${OUT_ROOT:?set OUT_ROOT to a folder every node can write}"
: "${SHARDS:?set SHARDS to the number of shards}"
case "$SHARDS" in
    '' | *[!0-9]* | 0) echo "error: SHARDS=$SHARDS: use a whole number of at least 1" >&2; exit 1 ;;
esac
export OUT_ROOT SHARDS GEN_ARGS DATASET VERSION
here="$(cd "$(dirname "$0")" && pwd)"
array=$(sbatch --parsable --export=ALL --array="0-$((SHARDS - 1))" "$here/shards.sbatch")
array="${array%%;*}"
merge=$(sbatch --parsable --export=ALL --dependency="afterok:$array" "$here/merge.sbatch")
echo "shards: job array $array (${SHARDS} tasks); merge: job ${merge%%;*} (after all shards succeed)"
