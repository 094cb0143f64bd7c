// Pruning a layout graph to what decides its configs' runtimes: the
// configurable nodes and their k-hop neighbourhood (1st-place solution:
// 4x less memory, up to 5x faster, no loss of accuracy at k = 1).
#pragma once

#include <cstdint>
#include <vector>

#include "fastslow/graph/graph.h"

namespace fastslow {

struct PrunedGraph {
  // Original ids of the kept nodes, ascending (so topological order is kept).
  std::vector<int64_t> kept;
  // Edges among kept nodes, renumbered into kept positions; row [u, v] as in
  // the file (u consumes v's output), in the file's edge order.
  std::vector<int64_t> edge_index;
  // Position in `kept` of each configurable node, in node_config_ids order.
  std::vector<int64_t> config_positions;
  int64_t num_nodes() const { return static_cast<int64_t>(kept.size()); }
  int64_t num_edges() const { return static_cast<int64_t>(edge_index.size() / 2); }
};

// Keeps every node within `khop` undirected hops of a configurable node.
// khop = 0 keeps the whole graph (no pruning). A graph with no configurable
// node (tile graphs) is kept whole. Throws Error (naming graph.file) on
// out-of-range edge or configurable ids, or khop < 0.
PrunedGraph prune_graph(const GraphNodes& graph, const std::vector<int64_t>& configurable, int khop);

// Rows of a row-major (rows x width) matrix at the given row indices.
template <class T>
std::vector<T> gather_rows(const std::vector<T>& m, int64_t width, const std::vector<int64_t>& rows) {
  std::vector<T> out;
  out.reserve(rows.size() * static_cast<size_t>(width));
  for (int64_t r : rows) out.insert(out.end(), m.begin() + r * width, m.begin() + (r + 1) * width);
  return out;
}

}  // namespace fastslow
