#include "test_support.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <map>
#include <stdexcept>
#include <unistd.h>
#ifndef __EMSCRIPTEN__
#include <sys/wait.h>
#endif
#include <zlib.h>

#include "fastslow/io/byte_source.h"
#include "fastslow/io/npy.h"
#include "fastslow/io/remove_tree.h"
#include "fastslow/io/zip.h"
#include "fastslow/synth/dataset.h"

namespace fs = std::filesystem;

namespace fastslow::test {

std::string data_file(const std::string& name) {
  const std::string p = std::string(FASTSLOW_DATA_DIR) + "/" + name;
  if (!fs::exists(p)) throw std::runtime_error("sample data missing: " + p + " (data/ is part of the repository)");
  return p;
}

std::vector<uint8_t> fuzz_input(const std::string& target, const std::string& name) {
  const std::string p = std::string(FASTSLOW_FUZZ_CORPUS) + "/" + target + "/" + name;
  if (!fs::exists(p)) throw std::runtime_error("fuzz regression input missing: " + p);
  return read_bytes(p);
}

namespace {

// Folders of TempDirs alive when the process ends, removed then. A fixture
// made once per process is kept to its end behind a static pointer and
// never destroyed; each ctest entry is a process of its own, so such
// folders piled up: one scripts/test.sh run left about 700 in /tmp, with
// whole generated collections and trained runs in them. Each is removed
// by the process that made it (a forked child that exits leaves its
// parent's alone).
struct LiveDirs {
  std::mutex mutex;
  std::map<std::string, pid_t> paths;  // and the process that made it
};
LiveDirs& live_dirs() {
  static auto* dirs = new LiveDirs;  // never destroyed: read at exit
  return *dirs;
}
void remove_live_dirs() {
  LiveDirs& d = live_dirs();
  const std::lock_guard<std::mutex> lock(d.mutex);
  for (const auto& [path, maker] : d.paths)
    if (maker == ::getpid()) remove_tree(path);
  d.paths.clear();
}

}  // namespace

TempDir::TempDir() {
  // mkdtemp makes a fresh name atomically (ctest runs test processes in
  // parallel). TMPDIR is read here rather than by
  // std::filesystem::temp_directory_path: PyTorch's wheels export their own
  // static copy of libstdc++'s filesystem code (pytorch/pytorch#133437),
  // which a binary linked against them may call instead, and that call
  // crashed every test making a temporary folder (SIGSEGV at address 0).
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/fastslow-test-XXXXXX";
  if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot make a temporary folder: " + pattern);
  path_ = pattern;
  static const int registered = std::atexit(remove_live_dirs);
  (void)registered;
  LiveDirs& d = live_dirs();
  const std::lock_guard<std::mutex> lock(d.mutex);
  d.paths[path_] = ::getpid();
}

TempDir::~TempDir() {
  remove_tree(path_);  // not std::filesystem: see io/remove_tree.h
  LiveDirs& d = live_dirs();
  const std::lock_guard<std::mutex> lock(d.mutex);
  d.paths.erase(path_);
}

bool numpy_available() {
#ifdef __EMSCRIPTEN__
  return false;
#else
  static const bool ok = run_python("import numpy\n") == 0;
  return ok;
#endif
}

int run_python(const std::string& script, std::string* out) {
#ifdef __EMSCRIPTEN__
  (void)script;
  (void)out;
  return -1;
#else
  TempDir dir;
  const std::string path = dir.file("script.py");
  std::ofstream(path) << script;
  // A clean environment: the libraries a build under test is run with
  // (LD_LIBRARY_PATH to a carried prefix, say) are not Debian's python's.
  FILE* p = popen(("env -i PATH=/usr/bin:/bin HOME=/tmp /usr/bin/python3 " + path + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
  const int rc = pclose(p);
  if (out) *out = text;
  else if (rc != 0) fprintf(stderr, "python failed:\n%s\n", text.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
#endif
}

std::string python_torch_version() {
#ifdef __EMSCRIPTEN__
  return "";
#else
  static const std::string version = [] {
    std::string out;
    if (run_python("import torch\nprint(torch.__version__)\n", &out) != 0) return std::string();
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    const size_t nl = out.rfind('\n');  // warnings may come first
    return nl == std::string::npos ? out : out.substr(nl + 1);
  }();
  return version;
#endif
}

std::string python_torch_skip_reason() {
  const std::string v = python_torch_version();
  if (v.empty()) return "no /usr/bin/python3 with torch (Debian's python3-torch) for the reference";
  if (v.rfind("1.13", 0) != 0)
    return "/usr/bin/python3's torch is " + v + ", not the 1.13 (Debian's) this reference was checked against";
  return "";
}

std::string write_tile_kernel(const TempDir& dir, uint64_t seed, int nodes, int64_t configs, const std::string& name) {
  synth::SynthItem item;
  item.collection = "tile:xla";
  item.split = "valid";
  item.seed = seed;
  item.target_nodes = nodes;
  item.configs = configs;
  item.path = name;
  synth::synth_write(dir.path(), item);
  return dir.file(name);
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace fastslow::test

namespace fastslow::test {

std::vector<std::string> temp_files_beside(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string prefix = p.filename().string() + ".tmp";
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(p.parent_path()))
    if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().string());
  return out;
}

namespace {

using Bytes = std::vector<uint8_t>;

void put16(Bytes& b, uint64_t v) {
  b.push_back(static_cast<uint8_t>(v & 0xff));
  b.push_back(static_cast<uint8_t>((v >> 8) & 0xff));
}
void put32(Bytes& b, uint64_t v) {
  put16(b, v & 0xffff);
  put16(b, (v >> 16) & 0xffff);
}
void put64(Bytes& b, uint64_t v) {
  put32(b, v & 0xffffffffu);
  put32(b, v >> 32);
}

// Raw deflate of `in` by a fresh stream, ended with `flush`: Z_FULL_FLUSH
// leaves it byte-aligned and referring to nothing before it, so such pieces
// can be concatenated (and repeated); Z_FINISH writes the final block.
Bytes deflate_piece(const Bytes& in, size_t n, int flush) {
  z_stream z{};
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2 failed");
  Bytes out(deflateBound(&z, static_cast<uLong>(n)) + 64);
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(n);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, flush);
  const bool ok = flush == Z_FINISH ? rc == Z_STREAM_END : rc == Z_OK && z.avail_in == 0;
  out.resize(z.total_out);
  deflateEnd(&z);
  if (!ok) throw std::runtime_error("deflate failed");
  return out;
}

// zlib's crc32_combine, here because under Emscripten's JS exceptions a
// call passing zlib's 64-bit z_off_t from a function with cleanups goes
// through an invoke_ wrapper that cannot take it.
uint32_t gf2_times(const uint32_t* mat, uint32_t vec) {
  uint32_t sum = 0;
  for (int i = 0; vec; ++i, vec >>= 1)
    if (vec & 1) sum ^= mat[i];
  return sum;
}
void gf2_square(uint32_t* square, const uint32_t* mat) {
  for (int n = 0; n < 32; ++n) square[n] = gf2_times(mat, mat[n]);
}
uint32_t crc32_append(uint32_t crc1, uint32_t crc2, uint64_t len2) {
  if (len2 == 0) return crc1;
  uint32_t even[32], odd[32];
  odd[0] = 0xedb88320u;
  for (uint32_t n = 1, row = 1; n < 32; ++n, row <<= 1) odd[n] = row;
  gf2_square(even, odd);
  gf2_square(odd, even);
  while (true) {
    gf2_square(even, odd);
    if (len2 & 1) crc1 = gf2_times(even, crc1);
    len2 >>= 1;
    if (len2 == 0) break;
    gf2_square(odd, even);
    if (len2 & 1) crc1 = gf2_times(odd, crc1);
    len2 >>= 1;
    if (len2 == 0) break;
  }
  return crc1 ^ crc2;
}

struct BombEntry {
  std::string name;
  uint16_t method;
  uint32_t crc;
  uint64_t size;
  Bytes data;  // as stored
};

}  // namespace

std::vector<uint8_t> npz_bomb(const std::vector<uint8_t>& base, const std::string& array,
                              const std::vector<int64_t>& shape) {
  const auto src = memory_view_source("base.npz", base.data(), base.size());
  std::vector<BombEntry> entries;
  const std::string bomb_name = array + ".npy";
  bool replaced = false;
  BombEntry bomb{bomb_name, 8, 0, 0, {}};
  {
    const std::string header = make_npy_header(DType::F32, shape);
    uint64_t zeros = 4;
    for (int64_t d : shape) zeros *= static_cast<uint64_t>(d);
    bomb.size = header.size() + zeros;
    const Bytes head(header.begin(), header.end());
    bomb.data = deflate_piece(head, head.size(), Z_FULL_FLUSH);
    uint32_t crc = static_cast<uint32_t>(crc32(0, head.data(), static_cast<uInt>(head.size())));
    constexpr size_t kPiece = size_t(16) << 20;
    const Bytes block(kPiece, 0);
    const uint64_t whole = zeros / kPiece, rest = zeros % kPiece;
    if (whole > 0) {
      const Bytes piece = deflate_piece(block, kPiece, Z_FULL_FLUSH);
      const uLong piece_crc = crc32(0, block.data(), static_cast<uInt>(kPiece));
      for (uint64_t k = 0; k < whole; ++k) {
        bomb.data.insert(bomb.data.end(), piece.begin(), piece.end());
        crc = crc32_append(crc, static_cast<uint32_t>(piece_crc), kPiece);
      }
    }
    const Bytes last = deflate_piece(block, static_cast<size_t>(rest), Z_FINISH);
    bomb.data.insert(bomb.data.end(), last.begin(), last.end());
    crc = crc32_append(crc, static_cast<uint32_t>(crc32(0, block.data(), static_cast<uInt>(rest))), rest);
    bomb.crc = crc;
  }
  for (const ZipEntry& e : read_zip_directory(*src)) {
    if (e.name == bomb_name) {
      entries.push_back(bomb);
      replaced = true;
      continue;
    }
    BombEntry copy{e.name, static_cast<uint16_t>(e.method), e.crc32, e.size, Bytes(e.compressed_size)};
    src->read(e.data_offset, copy.data.size(), copy.data.data());
    entries.push_back(std::move(copy));
  }
  if (!replaced) entries.push_back(bomb);

  Bytes out;
  std::vector<uint64_t> offsets;
  auto zip64 = [](const BombEntry& e) { return e.size >= 0xffffffffu || e.data.size() >= 0xffffffffu; };
  auto extra_of = [&](const BombEntry& e) {
    Bytes x;
    if (zip64(e)) {
      put16(x, 0x0001);
      put16(x, 16);
      put64(x, e.size);
      put64(x, e.data.size());
    }
    return x;
  };
  // The fields the local and the central header share, from "version
  // needed" to the extra field's length.
  auto shared_fields = [&](Bytes& b, const BombEntry& e, const Bytes& extra) {
    put16(b, zip64(e) ? 45 : 20);
    put16(b, 0);
    put16(b, e.method);
    put16(b, 0);
    put16(b, 0x21);
    put32(b, e.crc);
    put32(b, zip64(e) ? 0xffffffffu : e.data.size());
    put32(b, zip64(e) ? 0xffffffffu : e.size);
    put16(b, e.name.size());
    put16(b, extra.size());
  };
  for (const BombEntry& e : entries) {
    offsets.push_back(out.size());
    const Bytes extra = extra_of(e);
    put32(out, 0x04034b50);
    shared_fields(out, e, extra);
    out.insert(out.end(), e.name.begin(), e.name.end());
    out.insert(out.end(), extra.begin(), extra.end());
    out.insert(out.end(), e.data.begin(), e.data.end());
  }
  const uint64_t cd_offset = out.size();
  for (size_t k = 0; k < entries.size(); ++k) {
    const BombEntry& e = entries[k];
    const Bytes extra = extra_of(e);
    put32(out, 0x02014b50);
    put16(out, 45);
    shared_fields(out, e, extra);
    put16(out, 0);
    put16(out, 0);
    put16(out, 0);
    put32(out, 0);
    put32(out, offsets[k]);
    out.insert(out.end(), e.name.begin(), e.name.end());
    out.insert(out.end(), extra.begin(), extra.end());
  }
  const uint64_t cd_size = out.size() - cd_offset;
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, entries.size());
  put16(out, entries.size());
  put32(out, cd_size);
  put32(out, cd_offset);
  put16(out, 0);
  return out;
}

}  // namespace fastslow::test
