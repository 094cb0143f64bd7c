#include "fastslow/graph/graph_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "fastslow/error.h"
#include "fastslow/graph/structure_hash.h"

namespace fastslow {

GraphComparison compare_graphs(const GraphNodes& a, const GraphNodes& b) {
  GraphComparison r;
  r.nodes_a = a.num_nodes, r.nodes_b = b.num_nodes;
  r.edges_a = a.num_edges(), r.edges_b = b.num_edges();
  r.same_graph = a.num_nodes == b.num_nodes && a.node_opcode == b.node_opcode && a.edge_index == b.edge_index;
  r.same_features = r.same_graph && a.node_feat_width == b.node_feat_width && a.node_feat == b.node_feat;

  std::map<int32_t, GraphComparison::OpcodeCount> ops;
  for (int32_t o : a.node_opcode) ++ops[o].a;
  for (int32_t o : b.node_opcode) ++ops[o].b;
  for (auto& [o, c] : ops) {
    c.opcode = o;
    r.opcodes_a += c.a > 0, r.opcodes_b += c.b > 0;
    if (c.a != c.b) r.opcode_diffs.push_back(c);
  }
  std::stable_sort(r.opcode_diffs.begin(), r.opcode_diffs.end(), [](const auto& x, const auto& y) {
    return std::llabs(x.a - x.b) > std::llabs(y.a - y.b);
  });

  if (r.same_graph) {  // every node its own partner: nothing to hash
    r.matched = a.num_nodes;
    return r;
  }
  const std::vector<uint64_t> ha = structure_hashes(a), hb = structure_hashes(b);
  std::unordered_map<uint64_t, int64_t> left;  // b's members per hash not yet paired
  for (uint64_t h : hb) ++left[h];
  // Walking a in program order pairs each hash's first members: the surplus
  // left unpaired is the last ones.
  for (int64_t v = 0; v < a.num_nodes; ++v) {
    auto it = left.find(ha[v]);
    if (it != left.end() && it->second > 0) {
      --it->second;
      ++r.matched;
    } else {
      r.unmatched_a.push_back(v);
    }
  }
  return r;
}

ConfigOverlap config_overlap(const ConfigGroups& a, const ConfigGroups& b, bool runtimes) {
  for (const ConfigGroups* g : {&a, &b})
    if (g->row_key.size() != 2 * static_cast<size_t>(g->num_groups()))
      throw Error("comparing config sets needs each config's row key; these groups have none (read from a cache?)");
  ConfigOverlap r;
  r.distinct_a = a.num_groups(), r.distinct_b = b.num_groups();
  struct KeyHash {
    size_t operator()(const std::pair<uint64_t, uint64_t>& k) const { return static_cast<size_t>(k.first ^ (k.second * 0x9e3779b97f4a7c15ull)); }
  };
  std::unordered_map<std::pair<uint64_t, uint64_t>, int64_t, KeyHash> in_a;
  for (int64_t g = 0; g < a.num_groups(); ++g) in_a.emplace(std::make_pair(a.row_key[2 * g], a.row_key[2 * g + 1]), g);
  std::vector<double> ratios;
  for (int64_t g = 0; g < b.num_groups(); ++g) {
    const auto it = in_a.find({b.row_key[2 * g], b.row_key[2 * g + 1]});
    if (it == in_a.end()) continue;
    ++r.both;
    const double ra = a.best_runtime[it->second], rb = b.best_runtime[g];
    if (runtimes && ra > 0 && rb > 0) ratios.push_back(rb / ra);
  }
  if (!runtimes || ratios.empty() || static_cast<int64_t>(ratios.size()) < r.both) {
    r.median_runtime_ratio = std::numeric_limits<double>::quiet_NaN();
  } else {
    const size_t m = ratios.size() / 2;
    std::nth_element(ratios.begin(), ratios.begin() + m, ratios.end());
    double med = ratios[m];
    if (ratios.size() % 2 == 0) med = 0.5 * (med + *std::max_element(ratios.begin(), ratios.begin() + m));
    r.median_runtime_ratio = med;
  }
  return r;
}

}  // namespace fastslow
