#!/usr/bin/env bash
# Runs the benchmarks under bench/ against their references, in one run each.
# Usage: scripts/bench.sh [npz] [extra args for the driver]
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-npz}; shift || true
bash scripts/setup.sh
cmake --preset native >/dev/null
cmake --build --preset native --target fastslow_bench_npz
case $what in
  npz) /usr/bin/python3 bench/npz_bench.py build/native build/bench "$@" ;;
  *) echo "unknown benchmark '$what' (known: npz)" >&2; exit 1 ;;
esac
