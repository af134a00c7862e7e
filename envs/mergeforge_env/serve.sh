#!/bin/sh
# Starts `mergeforge serve` on the dataset named by MERGEFORGE_DATASET: a folder (a version
# directory or a folder written by `mergeforge publish`) or a Hugging Face Hub dataset id,
# downloaded with its solutions and bundles (the server grades with them; agents never
# see them). PORT (default 8000) and MERGEFORGE_MAX_STEPS (default 50) are optional;
# further arguments go to `mergeforge serve`.
set -eu
dataset="${MERGEFORGE_DATASET:?set MERGEFORGE_DATASET to a dataset folder or a Hugging Face dataset id}"
if [ ! -d "$dataset" ]; then
  dataset=$(python3 -c 'import sys
from huggingface_hub import snapshot_download
print(snapshot_download(sys.argv[1], repo_type="dataset"))' "$dataset")
fi
exec mergeforge serve --dataset "$dataset" --addr "0.0.0.0:${PORT:-8000}" --public \
  --max-steps "${MERGEFORGE_MAX_STEPS:-50}" "$@"
