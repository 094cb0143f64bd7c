#!/usr/bin/env bash
# Runs the benchmarks under bench/ against their references, in one run each.
# Usage: scripts/bench.sh WHAT [extra args for the driver]
#   npz         core npz reads vs numpy                      (bench/npz_bench.py)
#   effects     info --nodes (the node effects and their forward selection) vs the same in numpy, on the
#               real AlexNet and unet3d (bench/effects_bench.py; extra args: --repeat R, more files)
#   ridge       one-hot ridge fits (tuning's ridge scorer, the wide table, the per-program reference)
#               against the normal equations by LDLT, the solver before: generated small
#               layout:nlp:default transformer_0012 (about 4,000 features) and the real unet3d and
#               AlexNet, at 64, 256 and 1,024 configs (bench/ridge_bench.cpp; extra args: --counts, --lambda)
#   train-step  default layout model step, C++ vs PyTorch    (bench/train_step_bench.py)
#   quality     default vs paper baseline on generated small (bench/quality.py)
#   real        per-program runs on the real graphs with runtimes vs one-hot ridge (bench/real_bench.cpp;
#               the repository's data/ files, plus every layout .npz under each --data DIR given); then
#               zero-shot: a model trained on generated small layout:xla:random only ranks each file
#   fewshot     few measurements: learning curves over N = 16..512 measured configs (5 draws each) on the
#               real AlexNet and unet3d, held-out Kendall, top-1/top-5 slowdown, top-10 tail share for
#               ridge (penalty by CV in the N), fastslow from scratch and fastslow --init from a prior
#               trained on generated small layout:xla:random (bench/fewshot_bench.cpp; extra args: --ns
#               16,32, --draws D); SVG curves in build/bench/fewshot
#   tune        [--parts replay,propose] autotuning sessions replayed on the real files (fastslow tune --measure file): measuring
#               time until a config within 0.1 % of the best, random vs ridge- vs fastslow-guided order
#               (from the file's most common config or a random start), tail configs per round
#               (bench/tune_bench.cpp; extra args: --starts 20, --fastslow-starts 10, --rounds 10, --batch 8,
#               --orders A,B); SVG curves in build/bench/tune. propose: configs proposed from
#               each validation graph of generated small layout and tile collections (tile kernels of
#               seeds 0, 2, 3), priced by the generator's cost (bench/propose_bench.cpp): against the file's
#               best, the space's ceiling where it can be priced whole, and a true-oracle search;
#               models: ridge, physics (layout), fastslow per program, and each collection's prior (a run trained on
#               seed 1's graphs of it) as it is and fine-tuned (--init)
#   realism     generated layout collections beside the real files: runtime and graph statistics
#               (fastslow realism; extra args: synth seeds, default 0 1 2, and --data DIR for more
#               real files beside data/)
#   ensemble    seed ensembles, K-fold out-of-fold scores, mixed collections, real per-program
#               ensembles, exported ensembles on generated test graphs (bench/ensemble_bench.py;
#               extra args: --parts 1,2,3,4,5, --epochs, --seeds, --folds)
#   search      samplers on one study (best score after 10/20/30 trials, nsga2 vs random hypervolume),
#               the default model against the Pareto fronts in the page (bench/search_bench.py;
#               extra args: --parts 1,4,real, --trials, --steps, --seeds); real: per-program
#               studies on the real AlexNet and unet3d, held-out score of the best trial
#   ddp         data-parallel training: configs/s of 1 and 2 processes (1 thread each) on generated small
#               layout:xla:random, the all-reduce share (bench/ddp_bench.py; extra args: --steps, --epochs)
#   segments    graph segment training: peak step memory on a generated 50,000-node graph, whole vs
#               --segment-nodes 5000 (with and without --segment-history); validation score on generated
#               small layout:nlp:random, --khop 0 with segments vs --khop 1 (bench/segment_bench.py;
#               extra args: --parts 1,2, --models, --segment, --epochs, --steps, --seeds)
#   rank        exported model: ONNX Runtime Web vs LibTorch (bench/rank_bench.mjs)
#   ensemble-page  exported 5-member ensemble vs one member, ONNX Runtime Web (bench/ensemble_bench.mjs)
#   precision   one per-program run on the real AlexNet exported with fp32, fp16 and int8 weights, and
#               with the plan a precision study picks (fastslow search, [precision]): bytes, ONNX Runtime
#               Web ms per 1,000 configs against fp32, Kendall (bench/precision_bench.mjs)
#   compress    distillation and lower precision: a 5-seed ensemble teacher, a small student distilled
#               from it (fastslow distill), the same student trained without it, the student in fp16,
#               int8 and a precision study's plan; validation Kendall (generated small
#               layout:xla:random valid; per-program held-out on the real AlexNet and unet3d), then in
#               ONNX Runtime Web: bytes, ms per 1,000 configs under node and in the page, Kendall against
#               runtimes and the teacher (bench/compress_bench.mjs, bench/compress_page.mjs; extra args:
#               --repeats N)
#   webgpu      ONNX Runtime Web's WebGPU back end beside WebAssembly in headless Chromium: the adapter
#               offered, ms per 1,000 configs of one batch on each, score agreement (bench/webgpu_bench.mjs;
#               extra args: --nodes 2000, --config-nodes 250, --repeats 1)
#   explorer    the page in headless Chromium: open, frame, rank, the real nlp graph at fit, search, SVG   (bench/explorer_bench.mjs);
#               ranks with the demo's architecture (a distilled student; EXPLORER_MODEL=model: the default model)
#   gpu         on a machine with a GPU and PyTorch: default layout training on the GPU (CUDA graphs and
#               op by op) against the machine's CPU cores, the training step against PyTorch eager on
#               the same GPU, rank --device cuda against the CPU (scripts/gpu_check.sh, which also
#               checks the GPU path; extra args are its own: --prefix DIR, --out DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-npz}; shift || true
# The GPU benchmark builds its own (cuda preset) and needs no Debian setup.
[ "$what" = gpu ] && exec bash scripts/gpu_check.sh "$@"
# `real` and `realism` read the repository's real samples (data/); each
# `--data DIR` adds the files of a folder of your own (the full dataset, say).
extra_data=()
# The CLI and the wasm core, what the node benches of exported models run.
build_cli_and_core() {
  cmake --build --preset native --target fastslow
  export NODE_PATH=/usr/share/nodejs  # emscripten's optimizer needs Debian's acorn
  cmake --preset wasm >/dev/null && cmake --build --preset wasm --target fastslow_core_js
}
# A precision study's pick: its front's smallest plan within 0.01 of the
# front's best validation score (the trial's folder name).
study_pick() {
  node -e '
    const f = require(process.argv[1]).trials;
    const best = Math.max(...f.map((t) => t.objectives.score));
    const ok = f.filter((t) => t.objectives.score >= best - 0.01).sort((a, b) => a.objectives.onnx_bytes - b.objectives.onnx_bytes);
    console.log(ok[0].run);' "$(realpath $1/pareto.json)"
}
take_data_args() {
  rest=()
  while [ $# -gt 0 ]; do
    case $1 in
      --data) [ $# -ge 2 ] && [ -d "$2" ] || { echo "bench.sh: --data needs a folder (got '${2:-}')" >&2; exit 2; }
              extra_data+=("$2"); shift 2 ;;
      *) rest+=("$1"); shift ;;
    esac
  done
}
# Generated data of the generator's current version: a folder written by
# another version (or with other settings) is written again. DIR ARGS...
synth_current() {
  local d=$1; shift
  build/native/bin/fastslow synth "$@" --out "$d" >/dev/null 2>&1 ||
    { rm -rf "$d"; build/native/bin/fastslow synth "$@" --out "$d" >/dev/null; }
}
# A run trained on generated data: kept while its data is older than it
# (resumed if interrupted), trained again after the data was rewritten.
# RUN DATA TRAIN-ARGS...
train_current() {
  local run=$1 data=$2; shift 2
  # A run older than its data, or begun before fastslow was last built
  # (bench/stale_run.h says why), is trained again.
  if [ -f $run/metrics.json ] && [ $data/synth.json -nt $run/metrics.json ]; then rm -rf $run; fi
  if [ -f $run/config.json ] && [ build/native/bin/fastslow -nt $run/config.json ]; then rm -rf $run; fi
  [ -f $run/metrics.json ] && return 0
  if [ -f $run/config.json ]; then build/native/bin/fastslow train --resume --out $run
  else build/native/bin/fastslow train --data $data "$@" --out $run; fi
}
bash scripts/setup.sh
cmake --preset native >/dev/null
work=build/bench
mkdir -p $work
case $what in
  npz)
    cmake --build --preset native --target fastslow_bench_npz
    /usr/bin/python3 bench/npz_bench.py build/native $work "$@" ;;
  ridge)
    cmake --build --preset native --target fastslow fastslow_bench_ridge
    synth_current $work/ridge/synth-nlp --scale small --seed 0 --collection layout:nlp:default
    build/native/bin/fastslow_bench_ridge $work/ridge/synth-nlp/npz/layout/nlp/default/valid/transformer_0012.npz \
      data/real/layout_xla_default_train_unet3d.npz data/cleaned_alexnet.npz "$@" ;;
  effects)
    cmake --build --preset native --target fastslow_bench_effects
    /usr/bin/python3 bench/effects_bench.py build/native "$@" ;;
  train-step)
    cmake --build --preset native --target fastslow_bench_train_step
    /usr/bin/python3 bench/train_step_bench.py build/native $work "$@" ;;
  quality)
    cmake --build --preset native --target fastslow
    /usr/bin/python3 bench/quality.py build/native $work/quality "$@" ;;
  ensemble)
    cmake --build --preset native --target fastslow
    /usr/bin/python3 bench/ensemble_bench.py build/native $work/ensemble "$@" ;;
  ddp)
    cmake --build --preset native --target fastslow
    /usr/bin/python3 bench/ddp_bench.py build/native $work/ddp "$@" ;;
  segments)
    cmake --build --preset native --target fastslow
    /usr/bin/python3 bench/segment_bench.py build/native $work/segments "$@" ;;
  search)
    # Part 4 times exported models in the page's engine: the wasm core too.
    export NODE_PATH=/usr/share/nodejs
    cmake --build --preset native --target fastslow
    if [ ! -f build/wasm/bin/fastslow_core.js ]; then cmake --preset wasm >/dev/null && cmake --build --preset wasm --target fastslow_core_js; fi
    /usr/bin/python3 bench/search_bench.py build/native $work/search "$@" ;;
  real)
    # Every real layout file with runtimes in data/ (AlexNet, data/real)
    # and under each --data DIR; files with fewer than 10 unique configs
    # are listed and skipped. Finished runs under build/bench/real are reused.
    take_data_args "$@"
    files=(data/cleaned_alexnet.npz data/real/layout_*.npz)
    for d in "${extra_data[@]}"; do
      while IFS= read -r f; do files+=("$f"); done < <(find "$d" -name 'layout_*.npz' -o -name '*alexnet*.npz' | sort)
    done
    cmake --build --preset native --target fastslow fastslow_bench_real
    build/native/bin/fastslow_bench_real $work/real "${files[@]}" "${rest[@]}"
    # Zero-shot (issue 32): models trained on generated data only, with the
    # defaults, on the collection each real file comes from (its name says:
    # layout_xla_default_... is layout:xla:default; the cleaned AlexNet is
    # xla random), one per seed of ZERO_SHOT_SEEDS (default "1 2 3 4": one
    # run's zero-shot Kendall swings by 0.3 between seeds), each ranking the file
    # (`fastslow rank`: Kendall over all its configs), then the generator's
    # cost model itself on the file. Files of another feature width are
    # named and skipped; test files carry no runtimes.
    f=build/native/bin/fastslow
    z=$work/zero-shot
    synth_current $z/synth-small --scale small --seed 0
    zero_shot_model() {  # COLLECTION SEED -> the exported model's folder
      local d=$z/${1//:/-}-seed$2
      mkdir -p $d
      train_current $d/run $z/synth-small --collection "$1" --seed "$2" >$d/train.log 2>&1 ||
        { cat $d/train.log >&2; return 1; }
      [ $d/model/model.onnx -nt $d/run/metrics.json ] || $f export --run $d/run -o $d/model >/dev/null
      echo $d/model
    }
    echo; echo "zero-shot: models trained on generated small data of each file's collection (defaults), per seed"
    for g in "${files[@]}"; do
      name=$(basename "$g")
      case $name in
        layout_*_test_*) echo "  $name: a test file: no runtimes, no Kendall"; continue ;;
        layout_*) c=$(echo "$name" | sed -E 's/^layout_(xla|nlp)_(default|random)_.*/layout:\1:\2/') ;;
        *) c=layout:xla:random ;;
      esac
      # Generated files have the published 140 node features; a model of
      # them cannot read another width (the cleaned AlexNet has 70).
      width=$($f info "$g" | awk '/^node features/ {print $3}')
      if [ "$width" != 140 ]; then echo "  $name: $width node features, the generated data 140: no zero-shot model fits"; continue; fi
      line=""; values=""
      for seed in ${ZERO_SHOT_SEEDS:-1 2 3 4}; do
        m=$(zero_shot_model "$c" "$seed") || exit 1
        k=$($f rank --model "$m" "$g" 2>&1 | grep -E "^kendall|error:" | head -1 || true)
        v=$(echo "$k" | awk '$1 == "kendall" {print $2}')
        case $v in
          "") line=" ${k:-no Kendall}"; values=""; break ;;
          -) line=" no Kendall: every config runs as fast (max/min 1)"; values=""; break ;;
          *) line="$line seed $seed $v,"; values="$values $v" ;;
        esac
      done
      [ -z "$values" ] || line="$line mean $(echo $values | awk '{s = 0; for (i = 1; i <= NF; i++) s += $i; printf "%.4f", s / NF}')"
      echo "  $name ($c):$line"
      # The generator's cost model itself on the file's graph, read back from
      # its features: what the generated data teaches about this file, at best.
      cost=$($f synth --price "$g" --from-features --out $z/price-${name%.npz}.csv 2>&1 | grep -E "^against|error:" || true)
      echo "    the generator's cost model on it (synth --price --from-features): ${cost:-no runtimes}"
    done ;;
  fewshot)
    # The prior: the per-program model's graph part (focus) trained on a
    # generated small layout:xla:random collection (140 node features, as
    # unet3d; AlexNet's cleaned file has 70, so no prior fits it).
    cmake --build --preset native --target fastslow fastslow_bench_fewshot
    f=build/native/bin/fastslow
    d=$work/fewshot/synth-small
    synth_current $d --scale small --seed 0
    prior=$work/fewshot/prior
    train_current $prior $d --collection layout:xla:random --model focus --epochs 6
    build/native/bin/fastslow_bench_fewshot $work/fewshot --init $prior "$@" \
      data/cleaned_alexnet.npz data/real/layout_xla_default_train_unet3d.npz ;;
  tune)
    # --parts replay,propose (default both): sessions replayed on the real
    # files; proposals judged by the generator's true cost on the validation
    # graphs of generated small layout collections (extra args go to the
    # replay; --budget B / --count K to the proposals via FASTSLOW_PROPOSE_ARGS).
    parts=replay,propose
    args=()
    while [ $# -gt 0 ]; do
      case $1 in --parts) parts=$2; shift 2 ;; *) args+=("$1"); shift ;; esac
    done
    for part in ${parts//,/ }; do
      case $part in
        replay)
          cmake --build --preset native --target fastslow_bench_tune
          build/native/bin/fastslow_bench_tune $work/tune "${args[@]}" \
            data/cleaned_alexnet.npz data/real/layout_xla_default_train_unet3d.npz ;;
        propose)
          cmake --build --preset native --target fastslow fastslow_bench_propose
          d=$work/propose/synth-small
          synth_current $d --scale small --seed 0 --collection layout:xla:random \
            --collection layout:xla:default --collection layout:nlp:random --collection layout:nlp:default
          # Kernels of three seeds: one seed's 29 differ a lot from the next's.
          tiles=()
          for seed in 0 2 3; do
            t=$work/propose/synth-small-tile-seed$seed
            synth_current $t --scale small --seed $seed --collection tile:xla
            tiles+=($t/npz/tile)
          done
          # The "prior" that scores the valid kernels: a tile collection's run, trained on another
          # seed's kernels so that none of the kernels it is judged on chose its epoch. At full scale
          # (5,709 kernels: 1 min to make, 2.5 min to train) it ranks far better than a small
          # collection's (240 kernels): 0.5-3.6 % from the true-cost search, fine-tuned, against 10-15 %.
          synth_current $work/propose/synth-full-tile-seed1 --scale full --seed 1 --collection tile:xla
          train_current $work/propose/tile-prior-full $work/propose/synth-full-tile-seed1 --collection tile:xla >/dev/null
          priors=(--prior tile:xla=$work/propose/tile-prior-full)
          # Each layout collection's prior, trained the same way on seed 1's graphs.
          synth_current $work/propose/synth-small-seed1 --scale small --seed 1 --collection layout:xla:random \
            --collection layout:xla:default --collection layout:nlp:random --collection layout:nlp:default
          for c in xla:random xla:default nlp:random nlp:default; do
            run=$work/propose/layout-prior-${c/:/-}
            train_current $run $work/propose/synth-small-seed1 --collection layout:$c >/dev/null
            priors+=(--prior layout:$c=$run)
          done
          mapfile -t valid < <(find $d/npz/layout "${tiles[@]}" -path '*/valid/*.npz' | sort)
          # The real files: proposals that land in a held-out half have true runtimes.
          # shellcheck disable=SC2086
          build/native/bin/fastslow_bench_propose $work/propose ${FASTSLOW_PROPOSE_ARGS:-} \
            "${priors[@]}" --real data/cleaned_alexnet.npz \
            --real data/real/layout_xla_default_train_unet3d.npz "${valid[@]}" ;;
        *) echo "bench.sh tune: unknown part '$part' (replay, propose)" >&2; exit 2 ;;
      esac
    done ;;
  realism)
    # Generated `small` data of a few seeds (the generator's current version:
    # a dataset of another version or seed is regenerated) beside every real
    # file in data/ and under each --data DIR.
    take_data_args "$@"
    cmake --build --preset native --target fastslow
    f=build/native/bin/fastslow
    roots=()
    seeds=("${rest[@]}"); [ ${#seeds[@]} -gt 0 ] || seeds=(0 1 2)
    for seed in "${seeds[@]}"; do
      d=$work/realism/small-$seed
      synth_current "$d" --scale small --seed "$seed"
      roots+=("$d")
    done
    $f realism --by-template "${roots[@]}" data/cleaned_alexnet.npz data/real "${extra_data[@]}" ;;
  rank)
    # 1000 configs of a generated 5,000-node layout graph, scored by the
    # default layout model (briefly trained on tiny data: speed does not
    # depend on how well it ranks).
    build_cli_and_core
    f=build/native/bin/fastslow
    [ -f $work/rank/graph/resnet_5000.npz ] ||
      $f synth --graph layout:xla:random --nodes 5000 --configs 1000 --seed 1 --out $work/rank/graph
    synth_current $work/rank/tiny --scale tiny --seed 7
    # Retrained and re-exported whenever fastslow was rebuilt, so the
    # model always has the current architecture and ONNX writer.
    if [ ! -f $work/rank/model/model.onnx ] || [ $f -nt $work/rank/model/model.onnx ]; then
      rm -rf $work/rank/run $work/rank/model
      $f train --data $work/rank/tiny --collection layout:xla:random --out $work/rank/run --epochs 1 --steps-per-epoch 4
      $f export --run $work/rank/run -o $work/rank/model
    fi
    node bench/rank_bench.mjs $f $work/rank/model $work/rank/graph/resnet_5000.npz "$@" ;;
  ensemble-page)
    # The 1000 configs of the 5,000-node graph `rank` scores, by five seeds of
    # the default layout model (briefly trained on tiny data) exported as one
    # mean ensemble, against the first seed exported alone.
    bash scripts/bench.sh rank --repeats 1 >/dev/null  # the graph, tiny data, the wasm core
    export NODE_PATH=/usr/share/nodejs
    f=build/native/bin/fastslow
    e=$work/ensemble-page
    if [ ! -f $e/model/model.onnx ] || [ $f -nt $e/model/model.onnx ]; then
      rm -rf $e && mkdir -p $e
      $f train --data $work/rank/tiny --collection layout:xla:random --seeds 5 --out $e/runs \
        --epochs 1 --steps-per-epoch 4 >$e/train.log 2>&1 || { cat $e/train.log >&2; exit 1; }
      $f ensemble $e/runs -o $e/ens >$e/ensemble.log 2>&1 || { cat $e/ensemble.log >&2; exit 1; }
      $f export --run $e/ens -o $e/model
      $f export --run $e/runs/seed-0 -o $e/member
    fi
    node bench/ensemble_bench.mjs $e/model $e/member $work/rank/graph/resnet_5000.npz "$@" ;;
  precision)
    build_cli_and_core
    f=build/native/bin/fastslow
    p=$work/precision
    if [ ! -f $p/run/metrics.json ] || [ $f -nt $p/run/metrics.json ]; then
      rm -rf $p && mkdir -p $p
      $f train --graph data/cleaned_alexnet.npz --out $p/run >$p/train.log 2>&1 || { cat $p/train.log >&2; exit 1; }
    fi
    for k in fp32 fp16 int8; do $f export --run $p/run -o $p/models/$k --precision $k >/dev/null; done
    # A precision study on the run (each weight tensor fp32, fp16 or int8).
    if [ ! -f $p/study/pareto.json ] || [ $p/run/metrics.json -nt $p/study/pareto.json ]; then
      rm -rf $p/study
      printf '[precision]\nrun = "%s"\n[objectives]\nscore = "maximize"\nonnx_bytes = "minimize"\n[search]\nsampler = "nsga2"\ntrials = 400\n' \
        "$p/run" > $p/precision.toml
      $f search --config $p/precision.toml --out $p/study >$p/study.log 2>&1 || { cat $p/study.log >&2; exit 1; }
    fi
    plan=$(study_pick $p/study)
    $f export --run $p/run -o $p/models/search --per-layer $p/study/$plan/plan.json >/dev/null
    node bench/precision_bench.mjs $p/models data/cleaned_alexnet.npz "$@" ;;
  compress)
    build_cli_and_core
    f=build/native/bin/fastslow
    c=$work/compress
    mkdir -p $c
    [ -f $c/synth/synth.json ] || $f synth --scale small --seed 0 --collection layout:xla:random --out $c/synth >$c/synth.log 2>&1
    small="--hidden 16 --layers 1"  # the student: focus, 1 layer of width 16 (the teacher's members: 3 of 64)
    # One set: NAME SPLIT TRAIN-ARGS...: teacher, student, scratch, their exports and validation Kendall.
    compress_set() {
      local name=$1 split=$2; shift 2
      local d=$c/$name
      mkdir -p $d
      if [ ! -f $d/teacher/ensemble.json ] || [ $f -nt $d/teacher/ensemble.json ]; then
        rm -rf $d/seeds $d/teacher $d/student $d/scratch $d/models
        $f train "$@" --seeds 5 --out $d/seeds >$d/teacher.log 2>&1 || { cat $d/teacher.log >&2; exit 1; }
        $f ensemble $d/seeds -o $d/teacher >>$d/teacher.log 2>&1 || { cat $d/teacher.log >&2; exit 1; }
      fi
      [ -f $d/student/metrics.json ] || $f distill --teacher $d/teacher "$@" $small --out $d/student >$d/student.log 2>&1 ||
        { cat $d/student.log >&2; exit 1; }
      [ -f $d/scratch/metrics.json ] || $f train "$@" $small --out $d/scratch >$d/scratch.log 2>&1 ||
        { cat $d/scratch.log >&2; exit 1; }
      rm -rf $d/models && mkdir -p $d/models
      $f export --run $d/teacher -o $d/models/teacher >/dev/null
      $f export --run $d/student -o $d/models/student >/dev/null
      $f export --run $d/student -o $d/models/student-fp16 --precision fp16 >/dev/null
      $f export --run $d/student -o $d/models/student-int8 --precision int8 >/dev/null
      $f export --run $d/scratch -o $d/models/scratch >/dev/null
      if [ ! -f $d/study/pareto.json ] || [ $d/student/metrics.json -nt $d/study/pareto.json ]; then
        rm -rf $d/study
        printf '[precision]\nrun = "%s"\n[objectives]\nscore = "maximize"\nonnx_bytes = "minimize"\n[search]\nsampler = "nsga2"\ntrials = 200\n' \
          "$d/student" >$d/precision.toml
        $f search --config $d/precision.toml --out $d/study >$d/study.log 2>&1 || { cat $d/study.log >&2; exit 1; }
      fi
      local plan
      plan=$(study_pick $d/study)
      $f export --run $d/student -o $d/models/student-search --per-layer $d/study/$plan/plan.json >/dev/null
      echo "== $name: validation Kendall ($split split, native)"
      for m in teacher student scratch; do
        printf '%-8s %s\n' $m "$($f eval --run $d/$m --split $split --json 2>/dev/null | node -e '
          let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).mean.kendall.toFixed(4)));')"
      done
    }
    compress_set generated valid --data $c/synth --collection layout:xla:random
    compress_set alexnet holdout --graph data/cleaned_alexnet.npz
    compress_set unet3d holdout --graph data/real/layout_xla_default_train_unet3d.npz
    cmake --build --preset wasm --target fastslow_explorer
    for n in generated alexnet unet3d; do
      case $n in
        generated) files=$(ls $c/synth/npz/layout/xla/random/valid/*.npz) ;;
        alexnet) files=data/cleaned_alexnet.npz ;;
        unet3d) files=data/real/layout_xla_default_train_unet3d.npz ;;
      esac
      echo "== $n: ONNX Runtime Web under node, then in the page (headless Chromium); the real files' every config (the student's training share included)"
      node bench/compress_bench.mjs $c/$n/models $files "$@"
      node bench/compress_page.mjs $c/page $c/$n/models $files "$@"
    done ;;
  webgpu)
    bash scripts/bench.sh rank --repeats 1 >/dev/null  # the model
    node bench/webgpu_bench.mjs $work/rank/model "$@" ;;
  explorer)
    bash scripts/bench.sh rank --repeats 1 >/dev/null  # the 5,000-node graph and its model
    export NODE_PATH=/usr/share/nodejs
    cmake --build --preset wasm --target fastslow_explorer
    f=build/native/bin/fastslow
    # The page ranks with the demo's architecture (scripts/run.sh): a student
    # of one graph layer of width 24 distilled from the rank bench's model.
    if [ ! -f $work/rank/student-model/model.onnx ] || [ $work/rank/model/model.onnx -nt $work/rank/student-model/model.onnx ]; then
      rm -rf $work/rank/student $work/rank/student-model
      $f distill --teacher $work/rank/run --data $work/rank/tiny --collection layout:xla:random --hidden 24 --layers 1 \
        --epochs 1 --steps-per-epoch 4 --out $work/rank/student >/dev/null 2>&1
      $f export --run $work/rank/student -o $work/rank/student-model >/dev/null
    fi
    model=$work/rank/${EXPLORER_MODEL:-student-model}
    [ -f $work/explorer/layout_20000.npz ] || {
      $f synth --graph layout:xla:random --nodes 20000 --configs 200 --seed 2 --out $work/explorer
      mv $work/explorer/resnet_20000.npz $work/explorer/layout_20000.npz; }
    [ -f $work/explorer/layout_50000.npz ] || {
      $f synth --graph layout:xla:random --nodes 50000 --configs 100 --seed 3 --out $work/explorer
      mv $work/explorer/resnet_50000.npz $work/explorer/layout_50000.npz; }
    cp $work/rank/graph/resnet_5000.npz $model/demo.npz
    bash scripts/stage_site.sh $work/explorer/site $model >/dev/null
    node bench/explorer_bench.mjs $work/explorer/site $work/explorer/layout_20000.npz \
      $work/rank/graph/resnet_5000.npz $model $f $work/explorer/layout_50000.npz "$@" ;;
  *) echo "unknown benchmark '$what' (known: npz, ridge, effects, train-step, quality, ensemble, ddp, segments, search, real, fewshot, tune, realism, rank, ensemble-page, precision, compress, webgpu, explorer, gpu)" >&2; exit 1 ;;
esac
