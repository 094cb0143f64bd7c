#include "fastslow/graph/adjacency.h"

#include <cstddef>

namespace fastslow {

void build_csr(int64_t n, const std::vector<int64_t>& edges, bool producers, std::vector<int64_t>& ptr,
               std::vector<int32_t>& idx) {
  const size_t m = edges.size() / 2;
  ptr.assign(static_cast<size_t>(n + 1), 0);
  for (size_t e = 0; e < m; ++e) ++ptr[edges[2 * e + (producers ? 0 : 1)] + 1];
  for (int64_t i = 0; i < n; ++i) ptr[i + 1] += ptr[i];
  idx.resize(m);
  std::vector<int64_t> next(ptr.begin(), ptr.end() - 1);
  for (size_t e = 0; e < m; ++e) {
    const int64_t u = edges[2 * e], v = edges[2 * e + 1];
    if (producers)
      idx[next[u]++] = static_cast<int32_t>(v);
    else
      idx[next[v]++] = static_cast<int32_t>(u);
  }
}

}  // namespace fastslow
