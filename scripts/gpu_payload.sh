#!/usr/bin/env bash
# Packs, on a Debian bookworm machine with apt, the libraries fastslow builds
# against besides LibTorch (JSON, CLI11, Eigen, GoogleTest, gloo, ONNX and
# protobuf, pagmo, TBB, Boost, toml++, zlib), for a GPU machine that has
# PyTorch but no network: scripts/gpu_check.sh --prefix DIR builds with them.
#
#   scripts/gpu_payload.sh [DIR]      (default .gpu/prefix; about 14 MB)
#
# The packages are unpacked with dpkg -x. Big header trees (Boost, Eigen,
# protobuf, ONNX) keep the folders a native build includes from (its
# header dependencies, as ninja recorded them), the others are kept whole; shared libraries travel under the name the loader
# asks for, with no symbolic links (a copy of the tree may not keep them);
# CMake package files that name /usr are made relative to DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.gpu/prefix}
arch=x86_64-linux-gnu
pkgs=(nlohmann-json3-dev libcli11-dev libeigen3-dev libgtest-dev libgloo-dev libonnx-dev libonnx1 libonnxifi
      libprotobuf-dev libprotobuf32 libpagmo-dev libpagmo8 libtbb12 libboost1.74-dev
      libboost-serialization1.74-dev libboost-serialization1.74.0 libtomlplusplus-dev libtomlplusplus3
      zlib1g-dev zlib1g)
tmp=$(mktemp -d /tmp/fastslow-gpu-payload.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "gpu_payload: downloading ${#pkgs[@]} packages"
(cd "$tmp" && apt-get download "${pkgs[@]}" >/dev/null)
mkdir -p "$tmp/root"
for d in "$tmp"/*.deb; do dpkg -x "$d" "$tmp/root"; done
src=$tmp/root

rm -rf "$out"
mkdir -p "$out/usr/include" "$out/usr/lib/$arch/cmake" "$out/usr/share"

# Headers: small trees whole.
for h in nlohmann CLI toml++ gloo gtest pagmo zlib.h zconf.h; do
  cp -r "$src/usr/include/$h" "$out/usr/include/"
done
# Big trees: every folder a native translation unit included a header from
# (ninja's record of the last native build: build it first).
[ -f build/native/.ninja_deps ] || { echo "gpu_payload: build the native preset first (cmake --build --preset native)" >&2; exit 1; }
closure=$tmp/headers.txt
ninja -C build/native -t deps | grep -o '/usr/include/[^ ]*' | sort -u > "$closure"
for tree in boost eigen3 google onnx; do
  grep "^/usr/include/$tree/" "$closure" | xargs -r -n1 dirname | sort -u | while read -r d; do
    rel=${d#/usr/include/}
    [ -d "$src/usr/include/$rel" ] || { echo "gpu_payload: $rel is not in the packages" >&2; exit 1; }
    mkdir -p "$out/usr/include/$rel"
    find "$src/usr/include/$rel" -maxdepth 1 -type f -exec cp {} "$out/usr/include/$rel/" \;
  done
done

# Libraries under the names the linker and loader ask for.
lib=$out/usr/lib/$arch
copy_lib() {  # FILE_IN_PACKAGES NAME
  local f
  f=$(find "$src/usr/lib/$arch" "$src/lib/$arch" -name "$1" 2>/dev/null | head -1)
  [ -n "$f" ] || { echo "gpu_payload: $1 is not in the packages" >&2; exit 1; }
  cp -L "$f" "$lib/$2"
}
copy_lib 'libonnx.so.1*' libonnx.so.1
copy_lib 'libonnx_proto.so.1*' libonnx_proto.so.1
copy_lib 'libprotobuf.so.32*' libprotobuf.so.32
copy_lib 'libpagmo.so.8*' libpagmo.so.8
copy_lib 'libtbb.so.12*' libtbb.so.12
copy_lib 'libboost_serialization.so.1.74.0' libboost_serialization.so.1.74.0
copy_lib 'libtomlplusplus.so.3*' libtomlplusplus.so.3
copy_lib 'libgtest.a' libgtest.a
copy_lib 'libgtest_main.a' libgtest_main.a
copy_lib 'libz.so.1.*' libz.so
# ONNX's package file checks that its (unused) onnxifi files exist.
copy_lib 'libonnxifi_dummy.so' libonnxifi_dummy.so
copy_lib 'libonnxifi_loader.a' libonnxifi_loader.a
mkdir -p "$out/usr/lib"
cp -L "$src/usr/lib/libonnxifi.so" "$out/usr/lib/"

# CMake package files.
for d in ONNX GTest Boost-1.74.0 boost_headers-1.74.0 boost_serialization-1.74.0 pagmo tomlplusplus; do
  cp -r "$src/usr/lib/$arch/cmake/$d" "$lib/cmake/"
done
cp "$src/usr/lib/$arch/cmake/BoostDetectToolset-1.74.0.cmake" "$lib/cmake/"
rm -f "$lib"/cmake/GTest/GMock* "$lib"/cmake/boost_serialization-1.74.0/*variant-static*
for d in cmake/CLI11 cmake/nlohmann_json eigen3/cmake; do
  mkdir -p "$out/usr/share/$(dirname "$d")"
  cp -r "$src/usr/share/$d" "$out/usr/share/$d"
done
# pagmo names /usr and the versioned file; toml++ the unversioned one.
sed -i 's|set(_IMPORT_PREFIX "/usr")|get_filename_component(_IMPORT_PREFIX "${CMAKE_CURRENT_LIST_DIR}/../../../.." ABSOLUTE)|' \
  "$lib/cmake/pagmo/pagmo_export.cmake"
sed -i -e "s|\"/usr/lib/$arch/libpagmo.so.8.0\"|\"\${_IMPORT_PREFIX}/lib/$arch/libpagmo.so.8\"|g" \
       -e "s|\"TBB::tbb\"|\"\${_IMPORT_PREFIX}/lib/$arch/libtbb.so.12\"|g" "$lib/cmake/pagmo/pagmo_export-none.cmake"
sed -i "s|lib/$arch/libtomlplusplus.so\"|lib/$arch/libtomlplusplus.so.3\"|" "$lib/cmake/tomlplusplus/tomlplusplusConfig.cmake"
if grep -rqE "\"/usr/lib/[^\"]*\.(so|a)" "$lib/cmake"; then
  grep -rnE "\"/usr/lib/[^\"]*\.(so|a)" "$lib/cmake" >&2
  echo "gpu_payload: CMake files still name libraries under /usr" >&2; exit 1
fi
if [ -n "$(find "$out" -type l)" ]; then echo "gpu_payload: symbolic links left in $out" >&2; exit 1; fi
# The largest library and the headers travel compressed; gpu_check.sh unpacks them.
gzip -9 -n "$lib/libpagmo.so.8"
tar -czf "$out/usr/include.tar.gz" -C "$out/usr" include && rm -rf "$out/usr/include"
echo "gpu_payload: $(du -sh "$out" | cut -f1) in $out"
