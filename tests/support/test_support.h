// Helpers shared by the test suites: the repository's sample data, scratch
// directories, and numpy as an independent reference (native only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/error.h"

namespace fastslow::test {

// Path of a file in the repository's data/ (the tables and the real samples).
std::string data_file(const std::string& name);

// A fresh directory removed with everything in it when the object dies, or
// when the process exits normally if it never does (a fixture kept to the end).
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// numpy (Debian's /usr/bin/python3 + python3-numpy) is there natively; the
// wasm suite running under node has no subprocesses.
bool numpy_available();
// Runs a Python script with /usr/bin/python3 in a clean environment;
// returns its exit code, stdout and stderr in *out.
int run_python(const std::string& script, std::string* out = nullptr);
// The version of /usr/bin/python3's torch ("" when python3 or torch is missing).
std::string python_torch_version();
// Why a test comparing against Python torch must skip here, or "" when it
// can run: python3 or its torch missing, or a torch other than the 1.13
// (Debian's python3-torch) the reference was checked against.
std::string python_torch_skip_reason();

// The message of the fastslow::Error thrown by f, or "" when none is thrown.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const fastslow::Error& e) {
    return e.what();
  }
  return "";
}

// A zip bomb: the npz `base` with its entry `array` + ".npy" replaced (or, if
// it has none, joined) by a deflated float32 array of `shape` holding zeros.
// Deflate shrinks zeros about 1000:1, so a 4 GB claim takes about 4 MB; the
// stream and its CRC-32 are valid (built from flushed pieces repeated, in well
// under a second) and sizes over 4 GB get zip64 fields, so only the size
// claimed is a problem for the reader.
std::vector<uint8_t> npz_bomb(const std::vector<uint8_t>& base, const std::string& array,
                              const std::vector<int64_t>& shape);

// A generated tile:xla kernel (valid split) of about `nodes` nodes and
// `configs` configs written as DIR/NAME; returns its path.
std::string write_tile_kernel(const TempDir& dir, uint64_t seed, int nodes, int64_t configs,
                              const std::string& name = "kernel.npz");

std::vector<uint8_t> read_bytes(const std::string& path);
// A fuzz regression input: fuzz/corpus/TARGET/NAME, also a seed of that fuzzer.
std::vector<uint8_t> fuzz_input(const std::string& target, const std::string& name);
// Files beside `path` whose names start with its name + ".tmp" (what an
// atomic writer leaves when it fails to clean up).
std::vector<std::string> temp_files_beside(const std::string& path);
void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace fastslow::test
