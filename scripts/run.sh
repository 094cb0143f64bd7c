#!/usr/bin/env bash
# The main job. For now: set up, build, and describe the real sample graph.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset native >/dev/null
cmake --build --preset native --target fastslow
sample=../shared/data/cleaned_alexnet.npz
if [ ! -f "$sample" ]; then
  echo "run.sh: $sample not found (the sample data lives beside the repository)" >&2
  exit 1
fi
echo
build/native/bin/fastslow info "$sample"
