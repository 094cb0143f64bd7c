#!/usr/bin/env bash
# The main job: set up, build (native + wasm), prepare the demo (generated
# `small` data if absent, a default layout model trained briefly if none,
# exported to ONNX), stage the explorer as a static site and serve it on
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
if [ ! -f $demo/model/model.onnx ]; then
  # synth resumes an interrupted run and skips finished files.
  $f synth --scale small --seed 0 --out $demo/small
  if [ -f $demo/run/config.json ]; then
    $f train --resume --out $demo/run  # an interrupted earlier run goes on
  else
    # A couple of minutes on two cores; the page only needs a reasonable model.
    $f train --data $demo/small --collection layout:xla:random --out $demo/run --epochs 8
  fi
  $f export --run $demo/run -o $demo/model
elif [ $f -nt $demo/model/model.onnx ] && [ -f $demo/run/best.pt ]; then
  # An updated fastslow may export more (new inputs, faster ops): the trained
  # run is kept, only its export is redone.
  $f export --run $demo/run -o $demo/model
fi
if [ ! -f $demo/model/demo.npz ]; then
  first=$(ls $demo/small/npz/layout/xla/random/valid/*.npz | head -1)
  cp "$first" $demo/model/demo.npz
fi
bash scripts/stage_site.sh build/site $demo/model >/dev/null
echo
echo "demo graph: $(ls $demo/small/npz/layout/xla/random/valid/*.npz | head -1)"
exec node web/serve.mjs build/site "${PORT:-8000}"
