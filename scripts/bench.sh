#!/usr/bin/env bash
# Runs the benchmarks under bench/ against their references, in one run each.
# Usage: scripts/bench.sh WHAT [extra args for the driver]
#   npz         core npz reads vs numpy                      (bench/npz_bench.py)
#   train-step  default layout model step, C++ vs PyTorch    (bench/train_step_bench.py)
#   quality     default vs paper baseline on generated small (bench/quality.py)
#   holdout     per-program AlexNet run vs one-hot ridge     (bench/holdout_bench.cpp)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-npz}; shift || true
bash scripts/setup.sh
cmake --preset native >/dev/null
work=build/bench
mkdir -p $work
case $what in
  npz)
    cmake --build --preset native --target fastslow_bench_npz
    /usr/bin/python3 bench/npz_bench.py build/native $work "$@" ;;
  train-step)
    cmake --build --preset native --target fastslow_bench_train_step
    /usr/bin/python3 bench/train_step_bench.py build/native $work "$@" ;;
  quality)
    cmake --build --preset native --target fastslow
    /usr/bin/python3 bench/quality.py build/native $work/quality "$@" ;;
  holdout)
    cmake --build --preset native --target fastslow fastslow_bench_holdout
    run=$work/runs/alexnet-holdout
    if [ -f $run/config.json ]; then
      build/native/bin/fastslow train --resume --out $run
    else
      build/native/bin/fastslow train --graph ../shared/data/cleaned_alexnet.npz --holdout 0.2 --out $run "$@"
    fi
    build/native/bin/fastslow_bench_holdout $run ;;
  *) echo "unknown benchmark '$what' (known: npz, train-step, quality, holdout)" >&2; exit 1 ;;
esac
