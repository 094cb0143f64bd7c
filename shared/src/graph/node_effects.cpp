#include "fastslow/graph/node_effects.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "fastslow/error.h"
#include "fastslow/graph/dedup.h"
#include "fastslow/graph/graph_info.h"

namespace fastslow {
namespace {

// One node's rows grouped (ConfigDeduplicator: groups numbered by first
// appearance, so two nodes that split the configs alike get equal vectors).
ConfigGroups node_rows(const LayoutGraph& g, const std::vector<int64_t>& configs, int64_t node,
                       const std::vector<double>& runtime) {
  const int64_t w = g.config_feat_width, nc = g.num_configurable();
  ConfigDeduplicator d(w);
  for (int64_t c : configs) d.add_rows(g.node_config_feat.data() + (c * nc + node) * w, 1);
  return d.finish(runtime);
}

}  // namespace

NodeEffects node_effects(const LayoutGraph& g, const std::string& source) {
  const int64_t nc = g.num_configurable(), w = g.config_feat_width;
  if (static_cast<int64_t>(g.node_config_feat.size()) != g.num_configs * nc * w || nc == 0 || w == 0)
    throw Error(source, "node_config_feat", "not loaded: the node effects read every config's layout values");
  NodeEffects out;
  std::vector<int64_t> configs;
  for (int64_t c = 0; c < g.num_configs; ++c)
    if (g.config_runtime[static_cast<size_t>(c)] > 0) configs.push_back(c);
  out.configs = static_cast<int64_t>(configs.size());
  if (configs.size() < 2)
    throw Error(source, "config_runtime",
                "holds " + std::to_string(configs.size()) +
                    " measured runtimes (above 0): too few to attribute to nodes (a test file holds none)");
  std::vector<double> runtime, y;
  for (int64_t c : configs) {
    runtime.push_back(static_cast<double>(g.config_runtime[static_cast<size_t>(c)]));
    y.push_back(std::log(runtime.back()));
  }
  const double fastest = *std::min_element(runtime.begin(), runtime.end());
  double mean = 0, total = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(y.size());
  for (double v : y) total += (v - mean) * (v - mean);
  if (!(total > 0))
    throw Error(source, "config_runtime",
                "its " + std::to_string(configs.size()) + " measured configs all run alike: nothing to attribute to nodes");

  std::unordered_map<std::string, size_t> seen;  // a split of the configs' bytes -> its entry
  for (int64_t j = 0; j < nc; ++j) {
    const ConfigGroups rows = node_rows(g, configs, j, runtime);
    const int64_t node = g.node_config_ids[static_cast<size_t>(j)];
    if (rows.num_groups() < 2) {
      ++out.constant_nodes;
      continue;
    }
    std::string key(reinterpret_cast<const char*>(rows.group_of.data()), rows.group_of.size() * sizeof(int64_t));
    const auto it = seen.find(key);
    if (it != seen.end()) {
      out.entries[it->second].nodes.push_back(node);
      continue;
    }
    const auto k = static_cast<size_t>(rows.num_groups());
    std::vector<std::vector<int64_t>> runtimes(k);
    std::vector<double> sum(k, 0.0);
    for (size_t i = 0; i < configs.size(); ++i) {
      const auto gi = static_cast<size_t>(rows.group_of[i]);
      sum[gi] += y[i];
      runtimes[gi].push_back(g.config_runtime[static_cast<size_t>(configs[i])]);
    }
    NodeEffect e;
    e.nodes = {node};
    double between = 0;
    for (size_t gi = 0; gi < k; ++gi) {
      const double n = static_cast<double>(runtimes[gi].size()), d = sum[gi] / n - mean;
      between += n * d * d;
      // Every member holds the group's row; the representative's index is among the configs read.
      const int64_t c = configs[static_cast<size_t>(rows.representative[gi])];
      const float* row = g.node_config_feat.data() + (c * nc + j) * w;
      e.rows.push_back({std::vector<float>(row, row + w), rows.group_size[gi], runtime_stats(runtimes[gi]).median / fastest});
    }
    e.share = between / total;
    std::stable_sort(e.rows.begin(), e.rows.end(),
                     [](const RowEffect& a, const RowEffect& b) { return a.median_ratio < b.median_ratio; });
    seen.emplace(std::move(key), out.entries.size());
    out.entries.push_back(std::move(e));
  }
  for (NodeEffect& e : out.entries) std::sort(e.nodes.begin(), e.nodes.end());
  std::stable_sort(out.entries.begin(), out.entries.end(),
                   [](const NodeEffect& a, const NodeEffect& b) { return a.share > b.share; });
  return out;
}

}  // namespace fastslow
