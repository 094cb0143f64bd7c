#!/usr/bin/env bash
# Builds fastslow against this machine's PyTorch LibTorch (CUDA) and checks
# the GPU path end to end, in under 8 minutes on a machine of 16 cores:
#   - the build (`cmake --preset cuda`; --prefix DIR: the other libraries
#     from scripts/gpu_payload.sh, for a machine without network);
#   - the test cases that need CUDA (and the losses), from the trainer suite;
#   - the default layout model trained on generated `small` data on CUDA
#     (CUDA graphs, and op by op) and on the CPU, same seed and steps:
#     scores and seconds;
#   - eval on CUDA and on the CPU of the same run; export; rank --device cuda
#     and cpu on a 1,000-config graph (command time and scoring time);
#     ONNX Runtime (Python) against both rankings (bench/onnx_parity.py);
#   - the training step against the same model in PyTorch on the same GPU
#     (bench/train_step_bench.py --device cuda).
# Prints a summary table (also OUT/summary.md) and exits non-zero when a
# check failed.
#
#   scripts/gpu_check.sh [--prefix DIR] [--out DIR] [--build-dir DIR] [--jobs N] [--quick]
#     --prefix     libraries packed by scripts/gpu_payload.sh (default: the system's)
#     --out        results: summary.md, log.txt, build.log, artefacts (default build/gpu-check)
#     --build-dir  the build folder (default OUT/build; an existing one is built on)
#     --quick      fewer steps (a dry run on a CPU machine: --device cpu stands in)
#     --tests-only build and run the test cases that need CUDA (and the losses), nothing else
#   FASTSLOW_GPU_PYTHON: the python3 with torch (default: python3 on PATH)
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PREFIX=""
OUT=build/gpu-check
B=""
JOBS=$(nproc)
QUICK=0
TESTS_ONLY=0
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) PREFIX=$(cd "$2" && pwd); shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --build-dir) B=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --tests-only) TESTS_ONLY=1; shift ;;
    *) echo "gpu_check: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$OUT/work
rm -rf "$WORK"
mkdir -p "$WORK"
LOG=$OUT/log.txt
: > "$LOG"
T0=$SECONDS
PY=${FASTSLOW_GPU_PYTHON:-python3}
RESULTS=()  # "check|status|detail"
say() { echo "[gpu_check $((SECONDS - T0))s] $*" | tee -a "$LOG"; }
result() { RESULTS+=("$1|$2|$3"); say "$1: $2 $3"; }
run() { "$@" >>"$LOG" 2>&1; }

# ------------------------------------------------------------ environment
say "environment"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  "$PY" -c 'import torch,sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available())'
  cmake --version | head -1; ninja --version; g++ --version | head -1; nproc; } >>"$LOG" 2>&1
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
DEVICE=cuda
if [ -z "$GPU" ]; then
  [ $QUICK = 1 ] || { result environment FAIL "no GPU (nvidia-smi); --quick runs the script with the CPU standing in"; }
  DEVICE=cpu
fi
STEPS=100; EPOCHS=3; TS_STEPS=60
[ $QUICK = 1 ] && { STEPS=10; EPOCHS=1; TS_STEPS=6; }

# ------------------------------------------------------------ build
[ -n "$B" ] || B=$OUT/build
mkdir -p "$B"
B=$(cd "$B" && pwd)
cmake_args=(--preset cuda -B "$B" -DFASTSLOW_BUILD_BENCH=ON -DFASTSLOW_PYTHON="$(command -v "$PY")")
[ "$DEVICE" = cpu ] && cmake_args=(--preset native -B "$B")
LD_EXTRA=""
if [ -n "$PREFIX" ]; then
  P=$WORK/prefix
  cp -r "$PREFIX" "$P"
  PLIB=$P/usr/lib/x86_64-linux-gnu
  [ -f "$PLIB/libpagmo.so.8.gz" ] && gzip -d "$PLIB/libpagmo.so.8.gz"
  [ -f "$P/usr/include.tar.gz" ] && tar -xzf "$P/usr/include.tar.gz" -C "$P/usr" && rm "$P/usr/include.tar.gz"
  TORCH_LIB=$("$PY" -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))' 2>/dev/null || true)
  NV=$("$PY" -c 'import nvidia, os; print(os.path.dirname(nvidia.__file__))' 2>/dev/null || true)
  RPL=$PLIB${TORCH_LIB:+:$TORCH_LIB}
  [ -n "$NV" ] && for d in "$NV"/*/lib; do [ -d "$d" ] && RPL=$RPL:$d; done
  cmake_args+=(-DCMAKE_PREFIX_PATH="$P/usr" -DProtobuf_INCLUDE_DIR="$P/usr/include"
               -DProtobuf_LIBRARY="$PLIB/libprotobuf.so.32" -DZLIB_INCLUDE_DIR="$P/usr/include"
               -DZLIB_LIBRARY="$PLIB/libz.so" -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$RPL")
  LD_EXTRA=$PLIB
fi
export LD_LIBRARY_PATH=${LD_EXTRA}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
TARGETS=(fastslow fastslow_trainer_tests fastslow_bench_train_step)
[ $TESTS_ONLY = 1 ] && TARGETS=(fastslow fastslow_trainer_tests)
build() {  # extra cmake args...
  cmake "${cmake_args[@]}" "$@" >>"$OUT/build.log" 2>&1 && cmake --build "$B" -j "$JOBS" --target "${TARGETS[@]}" >>"$OUT/build.log" 2>&1
}
say "build (${cmake_args[*]})"
t=$SECONDS
: > "$OUT/build.log"
if build; then
  result build ok "$((SECONDS - t)) s, $(grep -o 'fastslow: LibTorch.*' "$OUT/build.log" | head -1)"
elif build -DFASTSLOW_NCCL=OFF; then
  result build ok "$((SECONDS - t)) s, after turning NCCL off (the NCCL build failed: see build.log)"
else
  grep -E "error|Error" "$OUT/build.log" | head -30 | tee -a "$LOG"
  result build FAIL "see $OUT/build.log"
fi
FS=$B/bin/fastslow
if [ ! -x "$FS" ]; then
  printf '%s\n' "${RESULTS[@]}" > "$OUT/results.txt"
  exit 2
fi
"$FS" --version | tee -a "$LOG"

# ------------------------------------------------------------ data
D=$WORK/data
run "$FS" synth --scale small --collection layout:xla:random --seed 1 --out "$D"
run "$FS" synth --graph layout:xla:random --nodes 5000 --configs 1000 --seed 1 --out "$WORK/graph"
G=$(ls "$WORK"/graph/*.npz | head -1)

# ------------------------------------------------------------ tests that need CUDA
say "GoogleTest: CUDA cases and the losses"
# One process per case, as ctest runs them (a case that starts a Python
# reference after another initialised CUDA in the same process crashed).
cases=$("$B/bin/fastslow_trainer_tests" --gtest_list_tests --gtest_filter='Losses.*:FlatAdamW.*:CudaTraining.*' |
        awk '/^[^ ]/ {suite=$1} /^  / {print suite $1}')
: > "$OUT/gtest.txt"
rc=0; pass=0; fail=0; skipped=""
for c in $cases; do
  "$B/bin/fastslow_trainer_tests" --gtest_filter="$c" >>"$OUT/gtest.txt" 2>&1
  code=$?
  if tail -5 "$OUT/gtest.txt" | grep -q '^\[  SKIPPED \] 1 test'; then skipped="$skipped $c"
  elif [ $code = 0 ] && tail -5 "$OUT/gtest.txt" | grep -q '^\[  PASSED  \] 1 test'; then pass=$((pass + 1))
  else fail=$((fail + 1)); failed_cases="${failed_cases:-} $c(exit $code)"; echo "FAILED OR CRASHED (exit $code): $c" >>"$OUT/gtest.txt"; fi
done
skip=$(echo $skipped | wc -w)
[ "$fail" = 0 ] || rc=1
[ $rc = 0 ] && result gtest ok "$pass passed, $skip skipped ${skipped:+($skipped)}" || result gtest FAIL "$pass passed, $fail failed:${failed_cases:-} (see gtest.txt)"

if [ $TESTS_ONLY = 1 ]; then
  printf '%s\n' "${RESULTS[@]}" | tee "$OUT/summary.md"
  [ $rc = 0 ]; exit $?
fi

# ------------------------------------------------------------ training
train() {  # NAME DEVICE EXTRA...
  local name=$1 dev=$2; shift 2
  local t=$SECONDS
  "$FS" train --data "$D" --collection layout:xla:random --out "$WORK/runs/$name" --epochs $EPOCHS \
    --steps-per-epoch $STEPS --seed 0 --device "$dev" "$@" >>"$LOG" 2>&1 || return 1
  echo $((SECONDS - t))
}
last() {  # RUN KEY: the last log line's value
  tail -1 "$WORK/runs/$1/log.jsonl" | "$PY" -c "import json,sys; print(json.load(sys.stdin).get('$2'))"
}
epoch_s() {  # RUN: the last epoch's step seconds
  tail -1 "$WORK/runs/$1/log.jsonl" | "$PY" -c "import json,sys; print('%.2f' % json.load(sys.stdin)['train_seconds'])"
}
say "training: $EPOCHS x $STEPS steps of the default layout model"
declare -A secs
for v in "graphs:$DEVICE:--cuda-graphs 1" "eager:$DEVICE:--cuda-graphs 0" "cpu:cpu:--threads $(nproc)"; do
  IFS=: read -r name dev extra <<<"$v"
  # shellcheck disable=SC2086
  if s=$(train "$name" "$dev" $extra); then
    secs[$name]=$s
    result "train $name" ok "$s s, last epoch's steps $(epoch_s "$name") s, valid score $(last "$name" score) ($(last "$name" cuda_graphs))"
  else
    result "train $name" FAIL "see log.txt"
  fi
done
if [ -n "${secs[graphs]:-}" ] && [ -n "${secs[cpu]:-}" ]; then
  g=$(epoch_s graphs); c=$(epoch_s cpu); e=$(epoch_s eager)
  result "train speed" info "last epoch: $DEVICE graphs ${g} s, $DEVICE eager ${e} s, CPU ($(nproc) threads) ${c} s: graphs $(awk -v a="$c" -v b="$g" 'BEGIN{printf "%.2f", a/b}')x the CPU, $(awk -v a="$e" -v b="$g" 'BEGIN{printf "%.2f", a/b}')x eager"
  sg=$(last graphs score); sc=$(last cpu score)
  close=$(awk -v a="$sg" -v b="$sc" 'BEGIN{d=a-b; if (d<0) d=-d; print (d <= 0.05) ? "yes" : "no"}')
  [ "$close" = yes ] && result "scores close" ok "$DEVICE $sg, cpu $sc" || result "scores close" FAIL "$DEVICE $sg, cpu $sc"
fi

# ------------------------------------------------------------ eval, export, rank, ONNX parity
R=$WORK/runs/graphs
if [ -f "$R/best.pt" ]; then
  "$FS" eval --run "$R" --device "$DEVICE" --json >"$WORK/eval-dev.json" 2>>"$LOG" &&
    "$FS" eval --run "$R" --device cpu --json >"$WORK/eval-cpu.json" 2>>"$LOG"
  same=$("$PY" -c "
import json,sys
a, b = json.load(open('$WORK/eval-dev.json')), json.load(open('$WORK/eval-cpu.json'))
ka, kb = a['mean']['kendall'], b['mean']['kendall']
print('%s %.6f %.6f' % ('yes' if abs(ka - kb) < 1e-3 else 'no', ka, kb))" 2>>"$LOG")
  [ "${same%% *}" = yes ] && result eval ok "mean Kendall $DEVICE/cpu: ${same#* }" || result eval FAIL "${same:-no output}"
  if run "$FS" export --run "$R" -o "$WORK/model"; then
    result export ok "$(ls "$WORK/model" | tr '\n' ' ')"
    for dev in "$DEVICE" cpu; do
      t=$(date +%s.%N)
      "$FS" rank --model "$WORK/model" "$G" --device "$dev" --threads "$(nproc)" --cache "$WORK/cache" \
        --csv "$WORK/rank-$dev.csv" --inputs "$WORK/inputs.npz" >"$WORK/rank-$dev.txt" 2>"$WORK/rank-$dev.err"
      wall=$(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN{printf "%.0f", (b-a)*1000}')
      cat "$WORK/rank-$dev.err" >>"$LOG"
      result "rank $dev" ok "command ${wall} ms; $(head -1 "$WORK/rank-$dev.txt" | sed 's/.*: //'); $(grep -o 'file read.*' "$WORK/rank-$dev.err")"
    done
    if cmp -s <(cut -d, -f2 "$WORK/rank-$DEVICE.csv") <(cut -d, -f2 "$WORK/rank-cpu.csv"); then
      result "rank same order" ok "$DEVICE and cpu rank the 1,000 configs alike"
    else
      result "rank same order" info "orders differ (float ties): see onnx parity"
    fi
    if "$PY" -c "import onnxruntime" 2>/dev/null; then
      if "$PY" bench/onnx_parity.py "$WORK/model" "$WORK/inputs.npz" "$WORK/rank-$DEVICE.csv" "$WORK/rank-cpu.csv" \
           --json "$OUT/parity.json" >"$WORK/parity.txt" 2>&1; then
        result "onnx parity" ok "$(tr '\n' ';' < "$WORK/parity.txt")"
      else
        result "onnx parity" FAIL "$(tr '\n' ';' < "$WORK/parity.txt")"
      fi
    else
      result "onnx parity" SKIPPED "no onnxruntime for $PY"
    fi
  else
    result export FAIL "see log.txt"
  fi
fi

# ------------------------------------------------------------ training step vs PyTorch on the same device
say "training step: fastslow vs PyTorch eager on $DEVICE"
if "$PY" bench/train_step_bench.py "$B" "$WORK/ts" --device "$DEVICE" --engine fastslow --steps $TS_STEPS --rounds 2 \
     >"$WORK/ts.txt" 2>>"$LOG"; then
  result "train step" info "$(grep -E 'median|ratio' "$WORK/ts.txt" | tr -s ' ' | tr '\n' ';')"
else
  result "train step" FAIL "see log.txt"
fi

# ------------------------------------------------------------ GPU defaults: configs per step
# One epoch each at other batch sizes (configs per graph x graphs per step):
# configs/s of the steps, and the score after as many configs as the
# default sees in an epoch, to choose the GPU's defaults by measurement.
if [ "$DEVICE" = cuda ] && [ $QUICK = 0 ] && [ $((SECONDS - T0)) -lt "${GPU_CHECK_SWEEP_BEFORE:-360}" ]; then
  say "batch sweep on $DEVICE"
  for v in 32:1 64:1 128:1 32:4 128:4; do
    IFS=: read -r cpg gps <<<"$v"
    n=$(( STEPS * 32 / (cpg * gps) )); [ $n -lt 10 ] && n=10
    name=sweep-$cpg-$gps
    if "$FS" train --data "$D" --collection layout:xla:random --out "$WORK/runs/$name" --epochs 1 --steps-per-epoch $((n * gps)) \
         --configs-per-graph $cpg --graphs-per-step $gps --seed 0 --device cuda >>"$LOG" 2>&1; then
      ts=$(epoch_s "$name")
      result "sweep $cpg x $gps" info "$n steps in $ts s: $(awk -v n=$n -v c=$cpg -v g=$gps -v t=$ts 'BEGIN{printf "%.0f", n*c*g/t}') configs/s, valid score $(last "$name" score)"
    else
      result "sweep $cpg x $gps" FAIL "see log.txt"
    fi
  done
fi

# ------------------------------------------------------------ summary
{
  echo "# GPU check ($(date -u +%Y-%m-%dT%H:%M:%SZ), $((SECONDS - T0)) s)"
  echo
  echo "GPU: ${GPU:-none}; $("$FS" --version | tail -1)"
  echo
  echo "| check | status | detail |"
  echo "|---|---|---|"
  for r in "${RESULTS[@]}"; do IFS='|' read -r a b c <<<"$r"; echo "| $a | $b | $c |"; done
} > "$OUT/summary.md"
cat "$OUT/summary.md"
printf '%s\n' "${RESULTS[@]}" | grep -q '|FAIL|' && exit 1
exit 0
