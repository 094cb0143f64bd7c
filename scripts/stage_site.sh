#!/usr/bin/env bash
# Stages the explorer as a static site: scripts/stage_site.sh OUT [DEMO_DIR]
# OUT gets the page, its JS, the explorer's .js/.wasm, ONNX Runtime Web's
# files (from npm) and, when DEMO_DIR holds demo.npz + model.onnx + model.json,
# the demo. Any static server can serve OUT (web/serve.mjs adds the headers
# that let ONNX Runtime use threads).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1; demo=${2:-}
mkdir -p "$out/ort"
cp web/index.html web/src/app.mjs web/src/core.mjs web/src/ranker.mjs "$out/"
cp build/wasm/bin/fastslow_explorer.js build/wasm/bin/fastslow_explorer.wasm "$out/"
ort=web/node_modules/onnxruntime-web/dist
cp $ort/ort.wasm.min.mjs $ort/ort-wasm-simd-threaded.mjs $ort/ort-wasm-simd-threaded.wasm "$out/ort/"
if [ -n "$demo" ]; then
  mkdir -p "$out/demo"
  cp "$demo/demo.npz" "$demo/model.onnx" "$demo/model.json" "$out/demo/"
fi
echo "$out"
