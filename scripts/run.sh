#!/usr/bin/env bash
# The main job: set up, build (native + wasm), prepare the demo (generated
# `small` data if absent, a default layout model trained briefly if none and
# a small student distilled from it, exported to ONNX), stage the explorer as a static site and serve it on
# http://localhost:8000 (PORT=... to change).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs  # emscripten's optimizer needs Debian's acorn
bash scripts/setup.sh
cmake --preset native >/dev/null
cmake --build --preset native --target fastslow
cmake --preset wasm >/dev/null
cmake --build --preset wasm --target fastslow_explorer
f=build/native/bin/fastslow
demo=build/demo
# Data of an older generator (synth refuses its folder) makes an outdated
# demo: all of it is made again.
if [ -d $demo/small ] && ! $f synth --scale small --seed 0 --out $demo/small >/dev/null 2>&1; then
  echo "build/demo was made by an older generator: making it again"
  rm -rf $demo
fi
# Runs whose inputs a newer fastslow computes differently are refused by
# it, saying "train it again" (see the layout context's version): then the
# demo's runs are trained again. Any other failure is left to the steps below.
refused() {  # RUN
  [ -f "$1/config.json" ] && [ $f -nt "$1/config.json" ] || return 1
  local msg
  msg=$($f eval --run "$1" 2>&1 >/dev/null) && return 1
  grep -q "train it again" <<<"$msg"
}
for r in student run; do
  if refused $demo/$r; then
    echo "build/demo/$r was trained by an older fastslow whose inputs differ: training the demo again"
    rm -rf $demo/run $demo/student $demo/model
    break
  fi
done
if [ ! -f $demo/model/model.onnx ] || [ ! -f $demo/student/metrics.json ]; then
  # synth resumes an interrupted run and skips finished files.
  $f synth --scale small --seed 0 --out $demo/small
  # The teacher: the default layout model, a couple of minutes on two cores.
  if [ ! -f $demo/run/metrics.json ]; then
    if [ -f $demo/run/config.json ]; then
      $f train --resume --out $demo/run  # an interrupted earlier run goes on
    else
      $f train --data $demo/small --collection layout:xla:random --out $demo/run --epochs 8
    fi
  fi
  # The demo: a student distilled from it (one graph layer of width 24, a
  # third of the teacher's bytes; its Kendall beside the teacher's below,
  # over 3 validation graphs: width 24 kept all of the teacher's on the
  # generator of stop 46, 81 % on that of stop 47; width 16 89-95 % earlier).
  if [ -f $demo/student/config.json ]; then
    [ -f $demo/student/metrics.json ] || $f train --resume --out $demo/student
  else
    $f distill --teacher $demo/run --data $demo/small --collection layout:xla:random --hidden 24 --layers 1 \
      --epochs 8 --out $demo/student
  fi
  $f export --run $demo/student -o $demo/model
elif [ $f -nt $demo/model/model.onnx ]; then
  # An updated fastslow may export more (new inputs, faster ops): the trained
  # run is kept, only its export is redone.
  $f export --run $demo/student -o $demo/model
fi
if [ ! -f $demo/model/demo.npz ]; then
  first=$(ls $demo/small/npz/layout/xla/random/valid/*.npz | head -1)
  cp "$first" $demo/model/demo.npz
fi
bash scripts/stage_site.sh build/site $demo/model >/dev/null
echo
for r in run student; do
  printf 'demo %-8s valid Kendall %s\n' $r "$(node -e 'console.log(require(process.argv[1]).mean.kendall.toFixed(4))' "$(realpath $demo/$r/metrics.json)")"
done
echo "demo graph: $(ls $demo/small/npz/layout/xla/random/valid/*.npz | head -1)"
exec node web/serve.mjs build/site "${PORT:-8000}"
