#include "compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"

namespace fastslow::explorer {

ConfigDiff diff_configs(const Document& doc, int64_t a, int64_t b) {
  if (doc.kind != GraphKind::Layout)
    throw Error(doc.name + ": comparing configs node by node needs a layout file (a tile config has no nodes)");
  const int64_t n = doc.info.configs;
  for (int64_t c : {a, b})
    if (c < 0 || c >= n)
      throw Error(doc.name + ": config " + std::to_string(c) + " out of range [0, " + std::to_string(n) + ")");
  ConfigDiff d;
  d.a = a;
  d.b = b;
  const std::vector<float> ra = doc.config_row(a);  // a copy: the cache may evict it when b is read
  const std::vector<float>& rb = doc.config_row(b);
  const int64_t w = doc.config_width();
  std::vector<int64_t> order(doc.config_nodes.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return doc.config_nodes[x] < doc.config_nodes[y]; });
  for (int64_t slot : order) {
    std::string change;
    for (int64_t k = 0; k < w; ++k) {
      const float x = ra[slot * w + k], y = rb[slot * w + k];
      if (x == y) continue;
      char part[64];
      std::snprintf(part, sizeof part, "%s[%lld] %g->%g", change.empty() ? "" : "  ", static_cast<long long>(k),
                    static_cast<double>(x), static_cast<double>(y));
      change += part;
    }
    if (change.empty()) continue;
    d.nodes.push_back(doc.config_nodes[slot]);
    d.slots.push_back(slot);
    d.changes.push_back(std::move(change));
  }
  return d;
}

FileComparison compare_files(const Document& a, const Document& b) {
  FileComparison c;
  c.other = b.name;
  c.graph = compare_graphs(a.graph, b.graph);
  // Config rows compare only over one set of configurable nodes.
  if (c.graph.same_graph && a.kind == b.kind && a.config_nodes == b.config_nodes && a.config_width() == b.config_width()) {
    c.configs_compared = true;
    c.configs = config_overlap(a.groups, b.groups, !a.runtime.empty() && !b.runtime.empty());
  }
  return c;
}

nlohmann::json file_comparison_json(const FileComparison& c) {
  const GraphComparison& g = c.graph;
  nlohmann::json diffs = nlohmann::json::array();
  for (const auto& d : g.opcode_diffs) diffs.push_back({{"opcode", opcode_name(d.opcode)}, {"a", d.a}, {"b", d.b}});
  nlohmann::json configs = nullptr;
  if (c.configs_compared) {
    const double r = c.configs.median_runtime_ratio;
    configs = {{"distinct", {c.configs.distinct_a, c.configs.distinct_b}},
               {"both", c.configs.both},
               {"median_runtime_ratio", std::isfinite(r) ? nlohmann::json(r) : nlohmann::json(nullptr)}};
  }
  return nlohmann::json{{"other", c.other},
                        {"same_graph", g.same_graph},
                        {"same_features", g.same_features},
                        {"nodes", {g.nodes_a, g.nodes_b}},
                        {"edges", {g.edges_a, g.edges_b}},
                        {"opcodes", {g.opcodes_a, g.opcodes_b}},
                        {"matched", g.matched},
                        {"unmatched", g.unmatched_a.size()},
                        {"opcode_diffs", std::move(diffs)},
                        {"configs", std::move(configs)}};
}

}  // namespace fastslow::explorer
