#!/usr/bin/env bash
# Installs everything fastslow needs on a fresh Debian bookworm machine.
# Idempotent: each step checks first, so a second run takes seconds.
# Needs root for apt (CI and developer machines run as root).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DEPS=$ROOT/.deps            # ignored: Debian source packages for the wasm build

log() { printf '[setup] %s\n' "$*"; }

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# What the build, the tests and the benchmarks use, each for a reason:
PKGS=(
  build-essential cmake ninja-build
  dpkg-dev                              # apt-get source (Dear ImGui, zlib for wasm)
  zlib1g-dev nlohmann-json3-dev libcli11-dev
  libgtest-dev googletest               # native tests; googletest's sources for the wasm tests
  libtorch-dev libopenblas0-pthread     # the trainer (OpenBLAS: 47x faster matmul than reference BLAS)
  libgloo-dev                           # data-parallel training: gloo's headers for LibTorch's ProcessGroupGloo
  libeigen3-dev                         # ridge baseline
  libonnx-dev                           # ONNX export and its checker
  libpagmo-dev libtomlplusplus-dev      # search: NSGA-II and hypervolume; the study file (TOML)
  libboost-dev                          # search: Sobol sequences (boost/random/sobol.hpp)
  python3-numpy python3-torch           # reference checks in tests and benchmarks
  emscripten nodejs npm                 # the wasm build and the web tests
  chromium                              # browser tests (driven by npm playwright-core)
  libglfw3-dev libgles-dev xvfb xauth   # the explorer built natively (GLFW + OpenGL ES 3), its UI test under Xvfb
  clang-14 libfuzzer-14-dev             # fuzzing the readers (libFuzzer, ASan, UBSan): scripts/fuzz.sh
)

missing=()
for p in "${PKGS[@]}"; do
  # dpkg-query answers per architecture-qualified name too; "install ok installed" only.
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# A nodejs from another origin (NodeSource) already provides node and npm.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs}"); missing=("${missing[@]/npm}")
  read -r -a missing <<< "${missing[*]:-}"
fi

SRC_LIST=/etc/apt/sources.list.d/fastslow-deb-src.sources
need_src=0
[ -f "$SRC_LIST" ] || need_src=1
ls "$DEPS"/imgui-*/imgui.h >/dev/null 2>&1 || need_src=1
ls "$DEPS"/zlib-*/zlib.h >/dev/null 2>&1 || need_src=1

if [ ${#missing[@]} -gt 0 ] || [ $need_src = 1 ]; then
  if [ ! -f "$SRC_LIST" ]; then
    log "enabling deb-src for bookworm main"
    $SUDO tee "$SRC_LIST" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  fi
  log "apt-get update"
  $SUDO apt-get update -qq
fi

if [ ${#missing[@]} -gt 0 ]; then
  log "installing: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Sources of Dear ImGui and zlib for the Emscripten build (never committed).
mkdir -p "$DEPS"
for src in imgui zlib; do
  hdr=imgui.h; [ $src = zlib ] && hdr=zlib.h
  if ! ls "$DEPS"/$src-*/$hdr >/dev/null 2>&1; then
    log "fetching Debian source package $src"
    (cd "$DEPS" && apt-get source -qq "$src" >/dev/null 2>&1) || {
      echo "[setup] error: 'apt-get source $src' failed (is deb-src reachable?)" >&2; exit 1; }
  fi
done

# npm packages for the web side, pinned by the committed lock file.
if [ -f web/package-lock.json ]; then
  if [ ! -d web/node_modules ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
    log "npm ci (web/)"
    (cd web && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

log "ok"
