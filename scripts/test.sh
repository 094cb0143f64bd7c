#!/usr/bin/env bash
# The test command: sets up what is missing, builds the presets (native, wasm,
# fuzz and sanitize), runs every suite, the core and CLI suites again under
# ASan + UBSan, every fuzz target for a bounded time, and checks that a copy
# of the tree builds and tests with nothing beside it.
# Prints each stage's time and one summary line; exits non-zero on any failure.
# Usage: scripts/test.sh [--no-setup] [--quick]
#   --quick: a first check (native core and CLI suites, the wasm core suite,
#            the stand-alone copy); CI runs everything
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
setup=1
quick=0
for a in "$@"; do
  case $a in
    --no-setup) setup=0 ;;
    --quick) quick=1 ;;
    *) echo "test.sh: unknown argument '$a' (usage: scripts/test.sh [--no-setup] [--quick])" >&2; exit 2 ;;
  esac
done

# Stages: each prints its name; its time is printed when the next begins and
# listed again at the end.
stage_name=""
stage_t0=$SECONDS
stage_times=()
stage_end() {
  [ -n "$stage_name" ] || return 0
  local dt=$((SECONDS - stage_t0))
  stage_times+=("$(printf '%6d s  %s' "$dt" "$stage_name")")
  printf -- '-- %s: %d s\n' "$stage_name" "$dt"
  stage_name=""
}
stage() { stage_end; stage_name=$*; stage_t0=$SECONDS; printf '\n== %s\n' "$*"; }
times_table() {
  stage_end
  echo
  echo "stage times (total $SECONDS s):"
  printf '%s\n' "${stage_times[@]}"
}
die() { echo "test.sh: $*" >&2; times_table; echo "summary: $passed passed, $((failed + 1)) failed"; exit 1; }

if [ $setup = 1 ]; then
  stage "setup"
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
  # Skipped cases say why (a GPU, a Python reference): counted as passed by
  # JUnit, listed here with the reason their output gives, so a skip is
  # never silent.
  local skipped
  skipped=$(grep -c '<skipped' "$2" 2>/dev/null || true)
  if [ "${skipped:-0}" != 0 ]; then
    echo "$1: $skipped skipped:"
    awk '/<testcase name=/ { match($0, /name="[^"]*"/); name = substr($0, RSTART + 6, RLENGTH - 7); skip = 0 }
         /<skipped/ { skip = 1 }
         skip && /: Skipped$/ { getline why; printf "  %s: %s\n", name, why; skip = 0 }' "$2" | head -20
    skipped_total=$((skipped_total + skipped))
  fi
}
skipped_total=0

build_preset() {  # PRESET [TARGET...]
  local preset=$1; shift
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  cmake --preset "$preset" >"$LOG/configure-$preset.log" 2>&1 \
    || { cat "$LOG/configure-$preset.log"; die "configure ($preset) failed"; }
  cmake --build --preset "$preset" -j "$JOBS" "${targets[@]}" 2>&1 | tee "$LOG/build-$preset.log" | grep -E 'error:|warning:' ;
  [ "${PIPESTATUS[0]}" = 0 ] || { tail -50 "$LOG/build-$preset.log"; die "build ($preset) failed"; }
}

# A copy of the working tree (tracked and untracked files git does not
# ignore) in a folder with nothing beside it configures, builds the core and
# runs the core suite: the repository must not need the optional data folder
# beside it (or anything else outside it). Files that build or test must not
# name that folder either; the pattern is assembled so this file does not.
standalone_check() {
  local tmp clone rc
  tmp=$(mktemp -d /tmp/fastslow-standalone.XXXXXX)
  clone=$tmp/fastslow
  mkdir -p "$clone"
  git ls-files -z --cached --others --exclude-standard \
    | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$clone"
  local names
  local beside='shared' up='\.\.'
  names=$(git grep -nE "$up/$beside|'$up', '$beside'" -- '*.cmake' '*CMakeLists.txt' '*.json' '*.sh' '*.py' \
          '*.mjs' '*.js' '*.cpp' '*.h' ':!scripts/test.sh' 2>/dev/null || true)
  if [ -n "$names" ]; then
    echo "$names"; problems+=("standalone: files name the folder beside the repository (above)"); failed=$((failed + 1))
  fi
  if [ -e "$tmp/shared" ]; then die "standalone: $tmp/shared exists"; fi
  # Debug without -g: the fastest build that runs the suite.
  if cmake -S "$clone" -B "$clone/build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
       -DFASTSLOW_TORCH=OFF -DFASTSLOW_BUILD_BENCH=OFF >"$LOG/standalone-configure.log" 2>&1 &&
     cmake --build "$clone/build" -j "$JOBS" --target fastslow_core_tests >"$LOG/standalone-build.log" 2>&1; then
    (cd "$tmp" && "$clone/build/bin/fastslow_core_tests" --gtest_brief=1 --gtest_output="xml:$tmp/junit.xml") \
      >"$LOG/standalone-tests.log" 2>&1
    rc=$?
    cp "$tmp/junit.xml" "$LOG/standalone-junit.xml" 2>/dev/null
    tail -3 "$LOG/standalone-tests.log"
    local before=$failed
    count_junit standalone "$LOG/standalone-junit.xml" "$LOG/standalone-tests.log"
    if [ $rc != 0 ] && [ "$failed" = "$before" ]; then
      problems+=("standalone: the core suite exited $rc"); failed=$((failed + 1))
    fi
  else
    tail -30 "$LOG/standalone-configure.log" "$LOG/standalone-build.log"
    problems+=("standalone: a copy with nothing beside it did not configure or build (see $LOG/standalone-*.log)")
    failed=$((failed + 1))
  fi
  rm -rf "$tmp"
}

if [ $quick = 1 ]; then
  stage "build (native: core and CLI suites)"
  build_preset native fastslow fastslow_core_tests fastslow_cli_tests
  stage "build (wasm: core suite)"
  build_preset wasm fastslow_core_tests
else
  for preset in native wasm fuzz; do
    stage "build ($preset)"
    build_preset "$preset"
  done
fi

# Native: one ctest entry per GoogleTest case.
stage "native tests (ctest)"
labels=()
[ $quick = 1 ] && labels=(-L '^(core|cli)$')
ctest --preset native -j "$JOBS" "${labels[@]}" --output-junit "$PWD/$LOG/native-junit.xml" >"$LOG/ctest-native.log" 2>&1
tail -3 "$LOG/ctest-native.log"
count_junit native "$LOG/native-junit.xml" "$LOG/ctest-native.log"

# Sanitizers: the CLI and the core and CLI suites with ASan + UBSan.
if [ $quick = 0 ] && [ "${FASTSLOW_SANITIZE_TESTS:-1}" != 0 ]; then
  stage "build (sanitize)"
  build_preset sanitize
  stage "sanitize tests (ctest: core and CLI suites, ASan + UBSan)"
  ctest --preset sanitize -j "$JOBS" --output-junit "$PWD/$LOG/sanitize-junit.xml" >"$LOG/ctest-sanitize.log" 2>&1
  tail -3 "$LOG/ctest-sanitize.log"
  count_junit sanitize "$LOG/sanitize-junit.xml" "$LOG/ctest-sanitize.log"
fi

# Wasm: the same core suite compiled with emcc, one node process.
stage "wasm core tests (node)"
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

if [ $quick = 0 ]; then
  # JS side: node's test runner over web/tests (the wasm module from JS).
  stage "web tests (node --test)"
  node --test web/tests/ >"$LOG/web-tests.log" 2>&1
  rc=$?
  tail -9 "$LOG/web-tests.log"
  grep -h "\[ parity \]" "$LOG/web-tests.log" || true
  # CI keeps only what this prints: each failed test with the head of its error.
  grep -E -A 30 "^(    )?not ok " "$LOG/web-tests.log" | grep -v -E "^ +at " | head -150 || true
  j_pass=$(grep -oE '^# pass [0-9]+' "$LOG/web-tests.log" | grep -oE '[0-9]+')
  j_fail=$(grep -oE '^# fail [0-9]+' "$LOG/web-tests.log" | grep -oE '[0-9]+')
  passed=$((passed + ${j_pass:-0})); failed=$((failed + ${j_fail:-0}))
  if [ $rc != 0 ] && [ "${j_fail:-0}" = 0 ]; then problems+=("web: node --test exited $rc"); failed=$((failed + 1)); fi

  # Fuzzing: each target from its seeds (the regression inputs among them) for a
  # bounded time; a crash, sanitizer report, leak, slow input or allocation over
  # the budget fails that target (scripts/fuzz.sh names the input it kept).
  FUZZ_SECONDS=${FASTSLOW_FUZZ_SECONDS:-20}
  if [ "$FUZZ_SECONDS" != 0 ]; then
    stage "fuzz ($FUZZ_SECONDS s per target)"
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
fi

stage "stand-alone copy (nothing beside it): configure, build the core, run the core suite"
standalone_check

times_table
echo
for p in "${problems[@]}"; do echo "problem: $p"; done
skip_note=""
[ "$skipped_total" = 0 ] || skip_note=" ($skipped_total native cases skipped, listed above)"
echo "summary: $passed passed, $failed failed$skip_note"
[ "$failed" = 0 ]
