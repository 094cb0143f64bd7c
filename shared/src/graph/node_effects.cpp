#include "fastslow/graph/node_effects.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "fastslow/error.h"

namespace fastslow {
namespace {

uint64_t row_hash(const float* row, int64_t width, uint64_t salt) {
  uint64_t h = 1469598103934665603ull ^ salt;
  for (int64_t i = 0; i < width; ++i) {
    uint32_t bits;
    const float v = row[i] == 0.0f ? 0.0f : row[i];  // -0 and 0 are one value
    std::memcpy(&bits, &v, sizeof bits);
    h = (h ^ bits) * 1099511628211ull;
  }
  return h;
}

// Group ids of each config's row of one node, numbered in order of first
// appearance (so two nodes that split the configs alike get equal vectors),
// and the first config holding each group.
struct Partition {
  std::vector<int32_t> group;
  std::vector<int64_t> first;
};

Partition partition(const LayoutGraph& g, const std::vector<int64_t>& configs, int64_t node) {
  const int64_t w = g.config_feat_width, nc = g.num_configurable();
  const auto row_of = [&](int64_t c) { return g.node_config_feat.data() + (c * nc + node) * w; };
  Partition p;
  p.group.reserve(configs.size());
  std::unordered_map<uint64_t, int32_t> ids;
  for (int64_t c : configs) {
    const float* row = row_of(c);
    // A hash that two different rows share is moved on by a salt.
    for (uint64_t salt = 0;; ++salt) {
      const uint64_t h = row_hash(row, w, salt);
      const auto it = ids.find(h);
      if (it == ids.end()) {
        ids.emplace(h, static_cast<int32_t>(p.first.size()));
        p.group.push_back(static_cast<int32_t>(p.first.size()));
        p.first.push_back(c);
        break;
      }
      if (std::equal(row, row + w, row_of(p.first[static_cast<size_t>(it->second)]))) {
        p.group.push_back(it->second);
        break;
      }
    }
  }
  return p;
}

double median(std::vector<double> v) {
  const size_t m = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m), v.end());
  if (v.size() % 2) return v[m];
  const double hi = v[m];
  return (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(m)) + hi) / 2;
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
  std::vector<double> y;
  double fastest = 0;
  for (int64_t c : configs) {
    const double r = static_cast<double>(g.config_runtime[static_cast<size_t>(c)]);
    fastest = y.empty() ? r : std::min(fastest, r);
    y.push_back(std::log(r));
  }
  double mean = 0;
  for (double v : y) mean += v;
  mean /= std::max<size_t>(1, y.size());
  double total = 0;
  for (double v : y) total += (v - mean) * (v - mean);
  if (configs.size() < 2)
    throw Error(source, "config_runtime",
                "holds " + std::to_string(configs.size()) +
                    " measured runtimes (above 0): too few to attribute to nodes (a test file holds none)");
  if (!(total > 0))
    throw Error(source, "config_runtime",
                "its " + std::to_string(configs.size()) + " measured configs all run alike: nothing to attribute to nodes");

  std::unordered_map<std::string, size_t> seen;  // a partition's bytes -> its entry
  for (int64_t j = 0; j < nc; ++j) {
    const Partition p = partition(g, configs, j);
    const int64_t node = g.node_config_ids[static_cast<size_t>(j)];
    if (p.first.size() < 2) {
      ++out.constant_nodes;
      continue;
    }
    std::string key(reinterpret_cast<const char*>(p.group.data()), p.group.size() * sizeof(int32_t));
    const auto it = seen.find(key);
    if (it != seen.end()) {
      out.entries[it->second].nodes.push_back(node);
      continue;
    }
    const size_t k = p.first.size();
    std::vector<std::vector<double>> runtimes(k);
    std::vector<double> sum(k, 0.0);
    for (size_t i = 0; i < configs.size(); ++i) {
      const auto gi = static_cast<size_t>(p.group[i]);
      sum[gi] += y[i];
      runtimes[gi].push_back(static_cast<double>(g.config_runtime[static_cast<size_t>(configs[i])]));
    }
    NodeEffect e;
    e.nodes = {node};
    double between = 0;
    for (size_t gi = 0; gi < k; ++gi) {
      const double n = static_cast<double>(runtimes[gi].size()), d = sum[gi] / n - mean;
      between += n * d * d;
      const float* row = g.node_config_feat.data() + (p.first[gi] * nc + j) * w;
      e.rows.push_back({std::vector<float>(row, row + w), static_cast<int64_t>(runtimes[gi].size()),
                        median(std::move(runtimes[gi])) / fastest});
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
