// Neighbour lists of a graph's edges in compressed rows (CSR), for code
// that walks producers or users: the explorer's views, structure hashes.
#pragma once

#include <cstdint>
#include <vector>

namespace fastslow {

// Neighbours per node of `edges` ([u, v] rows as in the files: u consumes
// v): producers (operands) when `producers`, else users. Node v's are
// idx[ptr[v], ptr[v + 1]), in edge order. Ids must lie in 0..n-1.
void build_csr(int64_t n, const std::vector<int64_t>& edges, bool producers, std::vector<int64_t>& ptr,
               std::vector<int32_t>& idx);

}  // namespace fastslow
