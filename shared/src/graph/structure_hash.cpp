#include "fastslow/graph/structure_hash.h"

#include <algorithm>
#include <string>

#include "fastslow/error.h"
#include "fastslow/graph/adjacency.h"

namespace fastslow {

namespace {

// splitmix64's finaliser: a fixed mix, so hashes agree across platforms
// (std::hash does not promise that).
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t combine(uint64_t seed, uint64_t v) { return mix(seed ^ (v + 0x632be59bd9b4e019ull + (seed << 6) + (seed >> 2))); }

}  // namespace

std::vector<uint64_t> structure_hashes(const GraphNodes& g, int rounds) {
  const int64_t n = g.num_nodes;
  const auto& e = g.edge_index;
  for (size_t k = 0; k + 1 < e.size(); k += 2)
    if (e[k] < 0 || e[k] >= n || e[k + 1] < 0 || e[k + 1] >= n)
      throw Error(g.file + ": edge_index row " + std::to_string(k / 2) + " refers to a node outside 0.." + std::to_string(n - 1));
  std::vector<int64_t> in_ptr, out_ptr;
  std::vector<int32_t> in_idx, out_idx;
  build_csr(n, e, true, in_ptr, in_idx);
  build_csr(n, e, false, out_ptr, out_idx);
  std::vector<uint64_t> h(static_cast<size_t>(n)), next(static_cast<size_t>(n)), scratch;
  for (int64_t v = 0; v < n; ++v) h[v] = mix(static_cast<uint64_t>(g.node_opcode[v]) + 1);
  for (int r = 0; r < rounds; ++r) {
    for (int64_t v = 0; v < n; ++v) {
      uint64_t s = h[v];
      // Neighbours as a multiset: sorted, so their order in the file does not count.
      for (int side = 0; side < 2; ++side) {
        const auto& ptr = side ? out_ptr : in_ptr;
        const auto& idx = side ? out_idx : in_idx;
        scratch.clear();
        for (int64_t k = ptr[v]; k < ptr[v + 1]; ++k) scratch.push_back(h[idx[k]]);
        std::sort(scratch.begin(), scratch.end());
        s = combine(s, 0x5151u + static_cast<uint64_t>(side));
        for (uint64_t x : scratch) s = combine(s, x);
      }
      next[v] = s;
    }
    h.swap(next);
  }
  return h;
}

}  // namespace fastslow
