#!/usr/bin/env bash
# The test command: sets up what is missing, builds the presets (native, wasm,
# fuzz and sanitize), runs every suite, the core and CLI suites again under
# ASan + UBSan, then every fuzz target for a bounded time.
# Prints one summary line; exits non-zero on any failure.
# Usage: scripts/test.sh [--no-setup]
#   FASTSLOW_FUZZ_SECONDS: seconds per fuzz target (default 20; 0 skips fuzzing)
#   FASTSLOW_SANITIZE_TESTS: 0 skips the sanitize build and its suites
set -uo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs
JOBS=${FASTSLOW_JOBS:-$(nproc)}
LOG=build/test-logs
passed=0
failed=0
problems=()

step() { printf '\n== %s\n' "$*"; }
die() { echo "test.sh: $*" >&2; echo "summary: $passed passed, $((failed + 1)) failed"; exit 1; }

if [ "${1:-}" != "--no-setup" ]; then
  step "setup"
  bash scripts/setup.sh || die "scripts/setup.sh failed"
fi
mkdir -p "$LOG"

# Adds a ctest run's JUnit counts to the totals; a run without tests is a failure.
count_junit() {  # NAME JUNIT_XML CTEST_LOG
  local tests fails
  tests=$(grep -o 'tests="[0-9]*"' "$2" 2>/dev/null | head -1 | grep -o '[0-9]*')
  fails=$(grep -o 'failures="[0-9]*"' "$2" 2>/dev/null | head -1 | grep -o '[0-9]*')
  if [ -z "$tests" ] || [ "$tests" = 0 ]; then
    cat "$3"; problems+=("$1: no tests ran"); failed=$((failed + 1))
  else
    passed=$((passed + tests - fails)); failed=$((failed + fails))
    [ "$fails" = 0 ] || { grep -E '\*\*\*Failed|Failed  ' "$3"; problems+=("$1: $fails failed (see $3)"); }
  fi
}

for preset in native wasm fuzz; do
  step "build ($preset)"
  cmake --preset "$preset" >"$LOG/configure-$preset.log" 2>&1 \
    || { cat "$LOG/configure-$preset.log"; die "configure ($preset) failed"; }
  cmake --build --preset "$preset" -j "$JOBS" 2>&1 | tee "$LOG/build-$preset.log" | grep -E 'error:|warning:' ;
  [ "${PIPESTATUS[0]}" = 0 ] || { tail -50 "$LOG/build-$preset.log"; die "build ($preset) failed"; }
done

# Native: one ctest entry per GoogleTest case.
step "native tests (ctest)"
ctest --preset native -j "$JOBS" --output-junit "$PWD/$LOG/native-junit.xml" >"$LOG/ctest-native.log" 2>&1
tail -3 "$LOG/ctest-native.log"
count_junit native "$LOG/native-junit.xml" "$LOG/ctest-native.log"

# Sanitizers: the CLI and the core and CLI suites with ASan + UBSan.
if [ "${FASTSLOW_SANITIZE_TESTS:-1}" != 0 ]; then
  step "build (sanitize)"
  t0=$SECONDS
  cmake --preset sanitize >"$LOG/configure-sanitize.log" 2>&1 \
    || { cat "$LOG/configure-sanitize.log"; die "configure (sanitize) failed"; }
  cmake --build --preset sanitize -j "$JOBS" 2>&1 | tee "$LOG/build-sanitize.log" | grep -E 'error:|warning:' ;
  [ "${PIPESTATUS[0]}" = 0 ] || { tail -50 "$LOG/build-sanitize.log"; die "build (sanitize) failed"; }
  echo "sanitize build: $((SECONDS - t0)) s"
  step "sanitize tests (ctest: core and CLI suites, ASan + UBSan)"
  t0=$SECONDS
  ctest --preset sanitize -j "$JOBS" --output-junit "$PWD/$LOG/sanitize-junit.xml" >"$LOG/ctest-sanitize.log" 2>&1
  tail -3 "$LOG/ctest-sanitize.log"
  echo "sanitize tests: $((SECONDS - t0)) s"
  count_junit sanitize "$LOG/sanitize-junit.xml" "$LOG/ctest-sanitize.log"
fi

# Wasm: the same core suite compiled with emcc, one node process.
step "wasm core tests (node)"
node build/wasm/bin/fastslow_core_tests.js --gtest_brief=1 >"$LOG/wasm-tests.log" 2>&1
rc=$?
tail -4 "$LOG/wasm-tests.log"
w_pass=$(grep -oE '^\[  PASSED  \] [0-9]+' "$LOG/wasm-tests.log" | grep -oE '[0-9]+$')
# Counted from each test's own result line: under node, gtest's closing
# summary (the failure count and list) can be lost when the process exits.
w_failed_lines=$(grep -E '^\[  FAILED  \] [^ ]+ \([0-9]+ ms\)$' "$LOG/wasm-tests.log" || true)
w_fail=0; [ -z "$w_failed_lines" ] || w_fail=$(printf '%s\n' "$w_failed_lines" | wc -l)
passed=$((passed + ${w_pass:-0})); failed=$((failed + w_fail))
[ "$w_fail" = 0 ] || { printf '%s\n' "$w_failed_lines"; problems+=("wasm: $w_fail failed"); }
if [ $rc != 0 ] && [ "$w_fail" = 0 ]; then problems+=("wasm: node exited $rc"); failed=$((failed + 1)); fi

# JS side: node's test runner over web/tests (the wasm module from JS).
step "web tests (node --test)"
node --test web/tests/ >"$LOG/web-tests.log" 2>&1
rc=$?
tail -9 "$LOG/web-tests.log"
grep -h "\[ parity \]" "$LOG/web-tests.log" || true
j_pass=$(grep -oE '^# pass [0-9]+' "$LOG/web-tests.log" | grep -oE '[0-9]+')
j_fail=$(grep -oE '^# fail [0-9]+' "$LOG/web-tests.log" | grep -oE '[0-9]+')
passed=$((passed + ${j_pass:-0})); failed=$((failed + ${j_fail:-0}))
if [ $rc != 0 ] && [ "${j_fail:-0}" = 0 ]; then problems+=("web: node --test exited $rc"); failed=$((failed + 1)); fi

# Fuzzing: each target from its seeds (the regression inputs among them) for a
# bounded time; a crash, sanitizer report, leak, slow input or allocation over
# the budget fails that target (scripts/fuzz.sh names the input it kept).
FUZZ_SECONDS=${FASTSLOW_FUZZ_SECONDS:-20}
if [ "$FUZZ_SECONDS" != 0 ]; then
  step "fuzz ($FUZZ_SECONDS s per target)"
  FASTSLOW_JOBS=$JOBS bash scripts/fuzz.sh all "$FUZZ_SECONDS" >"$LOG/fuzz.log" 2>&1
  rc=$?
  grep '^fuzz: ' "$LOG/fuzz.log"
  f_pass=$(grep -cE '^fuzz: [a-z_]+ +ok ' "$LOG/fuzz.log")
  f_fail=$(grep -cE '^fuzz: [a-z_]+ +FAIL ' "$LOG/fuzz.log")
  passed=$((passed + f_pass)); failed=$((failed + f_fail))
  [ "$f_fail" = 0 ] || problems+=("fuzz: $f_fail targets with findings (inputs under build/fuzz/findings/)")
  if [ $rc != 0 ] && [ "$f_fail" = 0 ]; then
    tail -20 "$LOG/fuzz.log"; problems+=("fuzz: scripts/fuzz.sh exited $rc"); failed=$((failed + 1))
  fi
fi

echo
for p in "${problems[@]}"; do echo "problem: $p"; done
echo "summary: $passed passed, $failed failed"
[ "$failed" = 0 ]
