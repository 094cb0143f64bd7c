#!/usr/bin/env bash
# Builds the fuzz preset (clang-14, libFuzzer, ASan + UBSan) and runs one or
# every fuzz target for SECONDS each. Each run starts from the committed seeds
# (fuzz/corpus/TARGET, regression inputs included) plus what earlier runs
# found (build/fuzz/corpus/TARGET, ignored); new inputs go there, never into
# the repository. A finding is any crash, sanitizer report, leak, input slower
# than the timeout or allocation over the budget; its input is written under
# build/fuzz/findings/TARGET/ and named in the message.
#
# Usage: scripts/fuzz.sh [TARGET|all] [SECONDS]     (default: all, 60 s each)
#   targets: zip_directory npy_header npz_read npz_partial graph_validate
#            model_card submission_csv node_search
#   FASTSLOW_JOBS: build jobs, and targets fuzzed at once (default: all cores)
# Prints one line per target (result, executions, exec/s, coverage) and exits
# non-zero on any finding. Reproduce one: build/fuzz/bin/fuzz_TARGET FILE
set -uo pipefail
cd "$(dirname "$0")/.."
TARGETS=(zip_directory npy_header npz_read npz_partial graph_validate model_card submission_csv node_search)
which=${1:-all}
seconds=${2:-60}
JOBS=${FASTSLOW_JOBS:-$(nproc)}
# Budgets: memory (RSS, and any single malloc) and time per input.
RSS_MB=2048
MALLOC_MB=2048
TIMEOUT_S=10

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 1; }
case "$seconds" in ''|*[!0-9]*) usage ;; esac
if [ "$which" = all ]; then
  run=("${TARGETS[@]}")
elif printf '%s\n' "${TARGETS[@]}" | grep -qx -- "$which"; then
  run=("$which")
else
  echo "fuzz.sh: unknown target '$which'" >&2; usage
fi

OUT=build/fuzz
LOGS=$OUT/logs
mkdir -p "$LOGS"
cmake --preset fuzz >"$LOGS/configure.log" 2>&1 \
  || { cat "$LOGS/configure.log"; echo "fuzz.sh: configure (fuzz) failed" >&2; exit 2; }
cmake --build --preset fuzz -j "$JOBS" >"$LOGS/build.log" 2>&1 \
  || { tail -50 "$LOGS/build.log"; echo "fuzz.sh: build (fuzz) failed" >&2; exit 2; }

dict_of() {
  case "$1" in
    npy_header) echo fuzz/dict/npy.dict ;;
    model_card) echo fuzz/dict/model_card.dict ;;
    submission_csv) echo fuzz/dict/submission_csv.dict ;;
    node_search) echo fuzz/dict/node_search.dict ;;
    *) echo fuzz/dict/npz.dict ;;
  esac
}

# Stack traces for UBSan; leaks are checked (libFuzzer's -detect_leaks=1).
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

# One target's run; its exit status goes to LOGS/TARGET.rc.
run_one() {
  local t=$1 corpus=$OUT/corpus/$1 found=$OUT/findings/$1 log=$LOGS/$1.log
  mkdir -p "$corpus" "$found"
  # The first folder takes new inputs; the seeds are only read.
  timeout $((seconds + 120)) "$OUT/bin/fuzz_$t" "$corpus" "fuzz/corpus/$t" \
    -max_total_time="$seconds" -rss_limit_mb=$RSS_MB -malloc_limit_mb=$MALLOC_MB -timeout=$TIMEOUT_S \
    -dict="$(dict_of "$t")" -artifact_prefix="$found/" -print_final_stats=1 >"$log" 2>&1
  echo $? >"$LOGS/$t.rc"
}

# One line per target from its log; returns 1 on a finding.
report() {
  local t=$1 log=$LOGS/$1.log rc runs eps cov file what
  rc=$(cat "$LOGS/$t.rc" 2>/dev/null || echo "no status")
  runs=$(grep -o 'stat::number_of_executed_units:[[:space:]]*[0-9]*' "$log" | grep -o '[0-9]*$')
  eps=$(grep -o 'stat::average_exec_per_sec:[[:space:]]*[0-9]*' "$log" | grep -o '[0-9]*$')
  cov=$(grep -oE '^#[0-9]+.*cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$')
  if [ "$rc" = 0 ]; then
    printf 'fuzz: %-15s ok    %4s s  %9s runs  %6s exec/s  cov %s\n' "$t" "$seconds" "${runs:-?}" "${eps:-?}" "${cov:-?}"
    return 0
  fi
  file=$(grep -oE 'Test unit written to [^ ]+' "$log" | tail -1 | sed 's/^Test unit written to //')
  what=$(grep -m1 -oE 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer): [a-zA-Z -]+|runtime error: .*|FUZZ_CHECK failed: .*|terminate called .*|ALARM: .*' "$log" | head -1)
  [ -n "$what" ] || what="exit status $rc"
  printf 'fuzz: %-15s FAIL  %s\n' "$t" "$what"
  printf 'fuzz: %-15s       input %s  (log %s; reproduce: %s/bin/fuzz_%s %s)\n' \
    "$t" "${file:-none written}" "$log" "$OUT" "$t" "${file:-FILE}"
  return 1
}

# Targets run JOBS at a time (each libFuzzer process uses one core), so
# every target still gets SECONDS of a core; results print in target order.
findings=0
start=$SECONDS
active=0
for t in "${run[@]}"; do
  rm -f "$LOGS/$t.rc"
  run_one "$t" &
  active=$((active + 1))
  if [ $active -ge "$JOBS" ]; then
    wait -n
    active=$((active - 1))
  fi
done
wait
for t in "${run[@]}"; do report "$t" || findings=$((findings + 1)); done
echo "fuzz: ${#run[@]} targets, $findings with findings, $((SECONDS - start)) s"
[ $findings = 0 ]
