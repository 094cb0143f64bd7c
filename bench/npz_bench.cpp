// The core's side of the npz benchmark (bench/npz_bench.py is the driver and
// numpy the reference):
//   make PATH stored|deflate CONFIGS NODES   a layout-like npz, about
//                                            CONFIGS x NODES x 18 float32
//   read-all PATH REPEAT                     every array, whole
//   read-rows PATH REPEAT K                  K random configs per repeat
// Prints one JSON object: seconds per repeat, bytes, peak RSS.
#include <chrono>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "fastslow/io/npz_reader.h"
#include "fastslow/io/npz_writer.h"

using namespace fastslow;

namespace {

long rss_kb(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::strlen(field)));
  return -1;
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Configs near a default layout with a few local changes each, like a
// genetic search: this compresses the way real files do.
int make(const std::string& path, bool deflate, int64_t configs, int64_t nodes) {
  std::mt19937 rng(1234);
  const int64_t w = 18;
  std::vector<float> base(nodes * w);
  for (int64_t n = 0; n < nodes; ++n) {
    for (int g = 0; g < 3; ++g) {
      const int rank = 2 + static_cast<int>(rng() % 3);
      std::vector<int> perm(rank);
      for (int i = 0; i < rank; ++i) perm[i] = i;
      std::shuffle(perm.begin(), perm.end(), rng);
      for (int i = 0; i < 6; ++i) base[n * w + g * 6 + i] = i < rank ? static_cast<float>(perm[i]) : -1.0f;
    }
  }
  std::vector<float> feat(configs * nodes * w);
  std::vector<int64_t> runtime(configs);
  for (int64_t c = 0; c < configs; ++c) {
    float* row = feat.data() + c * nodes * w;
    std::copy(base.begin(), base.end(), row);
    for (int k = 0; k < 3; ++k) {  // swap two dims of a random group
      float* g = row + (rng() % nodes) * w + (rng() % 3) * 6;
      std::swap(g[0], g[1]);
    }
    runtime[c] = 1000000 + static_cast<int64_t>(rng() % 100000);
  }
  std::vector<int64_t> ids(nodes), edges;
  for (int64_t i = 0; i < nodes; ++i) ids[i] = i * 3;
  const int64_t n = nodes * 3;
  for (int64_t i = 1; i < n; ++i) {
    edges.push_back(i);
    edges.push_back(i - 1);
  }
  std::vector<float> node_feat(n * 140, 0.5f);
  std::vector<uint8_t> opcode(n, 26);
  NpzWriter out(path, deflate ? Compression::Deflate : Compression::Stored);
  out.add("edge_index", edges, {n - 1, 2});
  out.add("node_feat", node_feat, {n, 140});
  out.add("node_opcode", opcode, {n});
  out.add("node_config_ids", ids, {nodes});
  out.add("node_config_feat", feat, {configs, nodes, w});
  out.add("config_runtime", runtime, {configs});
  out.close();
  std::printf("{\"path\": \"%s\"}\n", path.c_str());
  return 0;
}

void report(const std::vector<double>& secs, uint64_t bytes, long base_kb) {
  std::printf("{\"seconds\": [");
  for (size_t i = 0; i < secs.size(); ++i) std::printf("%s%.6f", i ? ", " : "", secs[i]);
  std::printf("], \"bytes\": %llu, \"peak_rss_kb\": %ld, \"baseline_rss_kb\": %ld}\n",
              static_cast<unsigned long long>(bytes), rss_kb("VmHWM:"), base_kb);
}

int read_all(const std::string& path, int repeat) {
  const long base = rss_kb("VmRSS:");
  std::vector<double> secs;
  uint64_t bytes = 0;
  for (int r = 0; r < repeat; ++r) {
    const double t0 = now();
    const NpzReader npz = NpzReader::open(path);
    std::vector<NpyArray> arrays;  // all held at once, as np.load materialising each
    for (const std::string& name : npz.names()) arrays.push_back(npz.read(name));
    secs.push_back(now() - t0);
    bytes = 0;
    for (const NpyArray& a : arrays) bytes += a.nbytes();
  }
  report(secs, bytes, base);
  return 0;
}

int read_rows(const std::string& path, int repeat, int k) {
  const long base = rss_kb("VmRSS:");
  std::mt19937 rng(99);
  std::vector<double> secs;
  uint64_t bytes = 0;
  for (int r = 0; r < repeat; ++r) {
    const double t0 = now();
    const NpzReader npz = NpzReader::open(path);
    const int64_t n = npz.header("node_config_feat").rows();
    std::vector<int64_t> rows(k);
    for (int64_t& x : rows) x = static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
    const NpyArray a = npz.read_rows("node_config_feat", rows);
    secs.push_back(now() - t0);
    bytes = a.nbytes();
  }
  report(secs, bytes, base);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> a(argv + 1, argv + argc);
  try {
    if (a.size() == 5 && a[0] == "make") return make(a[1], a[2] == "deflate", std::stoll(a[3]), std::stoll(a[4]));
    if (a.size() == 3 && a[0] == "read-all") return read_all(a[1], std::stoi(a[2]));
    if (a.size() == 4 && a[0] == "read-rows") return read_rows(a[1], std::stoi(a[2]), std::stoi(a[3]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fastslow_bench_npz: %s\n", e.what());
    return 2;
  }
  std::fprintf(stderr,
               "usage: fastslow_bench_npz make PATH stored|deflate CONFIGS NODES\n"
               "       fastslow_bench_npz read-all PATH REPEAT\n"
               "       fastslow_bench_npz read-rows PATH REPEAT K\n");
  return 1;
}
