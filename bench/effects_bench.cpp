// The core's side of the node-effects benchmark (bench/effects_bench.py is
// the driver and numpy the reference): node_effects(npz) on FILE, streamed
// from the archive as `fastslow info --nodes` and the page read it, best of
// REPEAT in this process (no process start in the figure).
// Usage: fastslow_bench_effects FILE REPEAT
// Prints one JSON object: seconds (best), and the effects as info --json has them.
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "fastslow/error.h"
#include "fastslow/graph/node_effects.h"
#include "fastslow/graph/node_effects_json.h"
#include "fastslow/io/npz_reader.h"

using namespace fastslow;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fastslow_bench_effects FILE REPEAT\n");
    return 2;
  }
  try {
    const int repeat = std::stoi(argv[2]);
    double best = 1e30;
    NodeEffects e;
    for (int r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      e = node_effects(NpzReader::open(argv[1]));
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    const NpzReader npz = NpzReader::open(argv[1]);
    const std::vector<int64_t> opcodes = npz.read("node_opcode").to_int64("node_opcode");
    const nlohmann::json out = {{"seconds", best}, {"node_effects", node_effects_json<nlohmann::json>(e, opcodes)}};
    std::printf("%s\n", out.dump().c_str());
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "fastslow_bench_effects: %s\n", ex.what());
    return 1;
  }
  return 0;
}
