#include "fastslow/graph/prune.h"

#include <numeric>
#include <string>

#include "fastslow/error.h"

namespace fastslow {

namespace {

void check_inputs(const GraphNodes& graph, const std::vector<int64_t>& configurable, int khop) {
  const int64_t n = graph.num_nodes;
  if (khop < 0) throw Error(graph.file, "", "prune: khop must be >= 0, got " + std::to_string(khop));
  if (graph.edge_index.size() % 2 != 0)
    throw Error(graph.file, "edge_index",
                "holds " + std::to_string(graph.edge_index.size()) + " values, not pairs [u, v]");
  for (size_t i = 0; i < graph.edge_index.size(); ++i) {
    const int64_t id = graph.edge_index[i];
    if (id < 0 || id >= n)
      throw Error(graph.file, "edge_index",
                  "edge " + std::to_string(i / 2) + " names node " + std::to_string(id) + ", outside [0, " +
                      std::to_string(n) + ")");
  }
  for (size_t i = 0; i < configurable.size(); ++i) {
    const int64_t id = configurable[i];
    if (id < 0 || id >= n)
      throw Error(graph.file, "node_config_ids",
                  "entry " + std::to_string(i) + " names node " + std::to_string(id) + ", outside [0, " +
                      std::to_string(n) + ")");
  }
}

// Multi-source BFS over the undirected edges, cut at khop hops.
std::vector<uint8_t> within_khop(const GraphNodes& graph, const std::vector<int64_t>& configurable, int khop) {
  const int64_t n = graph.num_nodes;
  const int64_t m = graph.num_edges();
  const std::vector<int64_t>& e = graph.edge_index;

  // CSR adjacency: each edge appears in both of its ends' lists.
  std::vector<int64_t> start(static_cast<size_t>(n) + 1, 0);
  for (int64_t i = 0; i < 2 * m; ++i) ++start[static_cast<size_t>(e[i]) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<int64_t> fill(start.begin(), start.end() - 1);
  std::vector<int64_t> adj(static_cast<size_t>(2 * m));
  for (int64_t k = 0; k < m; ++k) {
    const int64_t u = e[2 * k], v = e[2 * k + 1];
    adj[fill[u]++] = v;
    adj[fill[v]++] = u;
  }

  std::vector<uint8_t> keep(static_cast<size_t>(n), 0);
  std::vector<int64_t> frontier, next;
  for (int64_t c : configurable)
    if (!keep[c]) {
      keep[c] = 1;
      frontier.push_back(c);
    }
  for (int hop = 0; hop < khop && !frontier.empty(); ++hop) {
    next.clear();
    for (int64_t u : frontier)
      for (int64_t a = start[u]; a < start[u + 1]; ++a) {
        const int64_t v = adj[a];
        if (!keep[v]) {
          keep[v] = 1;
          next.push_back(v);
        }
      }
    frontier.swap(next);
  }
  return keep;
}

}  // namespace

PrunedGraph prune_graph(const GraphNodes& graph, const std::vector<int64_t>& configurable, int khop) {
  check_inputs(graph, configurable, khop);
  const int64_t n = graph.num_nodes;
  PrunedGraph out;
  if (khop == 0 || configurable.empty()) {
    out.kept.resize(static_cast<size_t>(n));
    std::iota(out.kept.begin(), out.kept.end(), int64_t{0});
    out.edge_index = graph.edge_index;
    out.config_positions = configurable;
    return out;
  }

  const std::vector<uint8_t> keep = within_khop(graph, configurable, khop);
  std::vector<int64_t> position(static_cast<size_t>(n), -1);
  for (int64_t i = 0; i < n; ++i)
    if (keep[i]) {
      position[i] = static_cast<int64_t>(out.kept.size());
      out.kept.push_back(i);
    }
  const std::vector<int64_t>& e = graph.edge_index;
  for (int64_t k = 0; k < graph.num_edges(); ++k) {
    const int64_t u = position[e[2 * k]], v = position[e[2 * k + 1]];
    if (u >= 0 && v >= 0) {
      out.edge_index.push_back(u);
      out.edge_index.push_back(v);
    }
  }
  out.config_positions.reserve(configurable.size());
  for (int64_t c : configurable) out.config_positions.push_back(position[c]);
  return out;
}

}  // namespace fastslow
