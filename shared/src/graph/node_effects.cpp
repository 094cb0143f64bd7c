#include "fastslow/graph/node_effects.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include "fastslow/error.h"
#include "fastslow/graph/dedup.h"
#include "fastslow/graph/graph_info.h"
#include "fastslow/graph/joint_share.h"

namespace fastslow {

constexpr uint64_t kSelectionBytes = 96;

struct NodeEffectsBuilder::State {
  std::vector<int64_t> node_ids;
  int64_t width = 0;
  std::vector<double> runtime;  // per config, as given
  std::string source;
  uint64_t max_bytes = 0, kept_bytes = 0;
  int64_t next = 0;                       // configs added so far
  std::vector<double> measured;           // runtimes of the measured configs, in order
  std::vector<ConfigDeduplicator> nodes;  // per node: its rows over the measured configs
  // Per node, per group: its row (groups numbered by first appearance).
  std::vector<std::vector<std::vector<float>>> rows;
};

NodeEffectsBuilder::NodeEffectsBuilder(std::vector<int64_t> node_ids, int64_t width, std::vector<double> runtime,
                                       std::string source, uint64_t max_bytes)
    : s_(std::make_unique<State>()) {
  State& s = *s_;
  s.node_ids = std::move(node_ids);
  s.width = width;
  s.runtime = std::move(runtime);
  s.source = std::move(source);
  s.max_bytes = max_bytes;
  for (size_t c = 0; c < s.runtime.size(); ++c)
    if (!std::isfinite(s.runtime[c]))
      throw Error(s.source, "config_runtime", "config " + std::to_string(c) + "'s runtime is not a finite number");
  const auto measured = static_cast<uint64_t>(std::count_if(s.runtime.begin(), s.runtime.end(), [](double r) { return r > 0; }));
  // 16 bytes per node and config while grouping; the forward selection's
  // groupings of its candidates, 4 bytes per config each, and its working
  // set (log runtimes, cell arrays, sums, the dense table or a hash of the
  // cells: under 96 bytes per config).
  s.kept_bytes = (16 * s.node_ids.size() + 4 * std::min(s.node_ids.size(), kJointCandidates) + kSelectionBytes) * measured;
  if (s.kept_bytes > max_bytes)
    throw Error(s.source, "node_config_feat",
                "grouping " + std::to_string(measured) + " measured configs by " + std::to_string(s.node_ids.size()) +
                    " nodes needs " + std::to_string(s.kept_bytes >> 20) + " MB, over the " +
                    std::to_string(max_bytes >> 20) + " MB allowed here (`fastslow info --nodes` has the machine's memory)");
  s.nodes.assign(s.node_ids.size(), ConfigDeduplicator(width));
  s.rows.resize(s.node_ids.size());
}

NodeEffectsBuilder::~NodeEffectsBuilder() = default;
NodeEffectsBuilder::NodeEffectsBuilder(NodeEffectsBuilder&&) noexcept = default;
NodeEffectsBuilder& NodeEffectsBuilder::operator=(NodeEffectsBuilder&&) noexcept = default;

void NodeEffectsBuilder::add(const float* rows, int64_t count) {
  State& s = *s_;
  const auto nc = static_cast<int64_t>(s.node_ids.size());
  if (s.next + count > static_cast<int64_t>(s.runtime.size()))
    throw Error(s.source, "node_config_feat",
                "holds more config rows than the " + std::to_string(s.runtime.size()) + " runtimes");
  for (int64_t c = 0; c < count; ++c, ++s.next) {
    const double r = s.runtime[static_cast<size_t>(s.next)];
    if (!(r > 0)) continue;
    s.measured.push_back(r);
    for (int64_t j = 0; j < nc; ++j) {
      const float* row = rows + (c * nc + j) * s.width;
      ConfigDeduplicator& d = s.nodes[static_cast<size_t>(j)];
      const int64_t before = d.num_groups();
      d.add_rows(row, 1);
      if (d.num_groups() == before) continue;
      s.rows[static_cast<size_t>(j)].emplace_back(row, row + s.width);
      s.kept_bytes += 64 + 4 * static_cast<uint64_t>(s.width);
      if (s.kept_bytes > s.max_bytes)
        throw Error(s.source, "node_config_feat",
                    "its nodes' distinct rows need more than the " + std::to_string(s.max_bytes >> 20) +
                        " MB allowed here (`fastslow info --nodes` has the machine's memory)");
    }
  }
}

namespace {

std::string percent(double share) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2g %%", 100.0 * share);
  return b;
}

std::string joint_stop_text(const JointShare& j, size_t entries) {
  std::string why;
  switch (j.stop) {
    case JointStop::AllPicked:
      why = "every node tried is picked";
      break;
    case JointStop::SmallGain:
      why = "the next best adds " + percent(std::max(0.0, j.next_gain)) + ", under " + percent(kJointMinGain);
      break;
    case JointStop::NotSignificant: {
      char b[160];
      std::snprintf(b, sizeof b, "the next best (%s more) is not significant: F test p = %.2g, over %.2g / %zu candidates",
                    percent(j.next_gain).c_str(), j.next_p, kJointAlpha, j.next_candidates);
      why = b;
      break;
    }
    case JointStop::MostPicks:
      why = std::to_string(kJointPicks) + " picks, the most it makes";
      break;
  }
  if (entries > kJointCandidates)
    why += "; nodes past the " + std::to_string(kJointCandidates) + " largest alone are not tried";
  return why;
}

}  // namespace

NodeEffects NodeEffectsBuilder::finish() const {
  const State& s = *s_;
  if (s.next != static_cast<int64_t>(s.runtime.size()))
    throw Error(s.source, "node_config_feat",
                "holds " + std::to_string(s.next) + " config rows for " + std::to_string(s.runtime.size()) + " runtimes");
  NodeEffects out;
  out.configs = static_cast<int64_t>(s.measured.size());
  if (s.measured.size() < 2)
    throw Error(s.source, "config_runtime",
                "holds " + std::to_string(s.measured.size()) +
                    " measured runtimes (above 0): too few to attribute to nodes (a test file holds none)");
  std::vector<double> y;
  for (double r : s.measured) y.push_back(std::log(r));
  const double fastest = out.fastest = *std::min_element(s.measured.begin(), s.measured.end());
  double mean = 0, total = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(y.size());
  for (double v : y) total += (v - mean) * (v - mean);
  if (!(total > 0))
    throw Error(s.source, "config_runtime",
                "its " + std::to_string(s.measured.size()) + " measured configs all run alike: nothing to attribute to nodes");

  // A split of the configs (each config's group, int32 bytes) -> its entry; the
  // forward selection reads the entries' splits back from these keys.
  std::unordered_map<std::string, size_t> seen;
  std::vector<const std::string*> entry_split;  // per entry, its key in `seen` (node-stable)
  for (size_t j = 0; j < s.node_ids.size(); ++j) {
    const ConfigGroups rows = s.nodes[j].finish(s.measured);
    const int64_t node = s.node_ids[j];
    if (rows.num_groups() < 2) {
      ++out.constant_nodes;
      continue;
    }
    // Groups are numbered by first appearance, so two nodes that split the configs alike get equal vectors.
    const std::vector<int32_t> split(rows.group_of.begin(), rows.group_of.end());
    std::string key(reinterpret_cast<const char*>(split.data()), split.size() * sizeof(int32_t));
    const auto it = seen.find(key);
    if (it != seen.end()) {
      out.entries[it->second].nodes.push_back(node);
      continue;
    }
    const auto k = static_cast<size_t>(rows.num_groups());
    std::vector<std::vector<double>> runtimes(k);
    std::vector<double> sum(k, 0.0);
    for (size_t i = 0; i < y.size(); ++i) {
      const auto gi = static_cast<size_t>(rows.group_of[i]);
      sum[gi] += y[i];
      runtimes[gi].push_back(s.measured[i]);
    }
    NodeEffect e;
    e.nodes = {node};
    e.rows_node = node;
    double between = 0;
    for (size_t gi = 0; gi < k; ++gi) {
      const double n = static_cast<double>(runtimes[gi].size()), d = sum[gi] / n - mean;
      between += n * d * d;
      e.rows.push_back({s.rows[j][gi], rows.group_size[gi], double_runtime_stats(runtimes[gi]).median / fastest});
    }
    e.share = std::min(1.0, between / total);  // rounding may put a constant group's between a hair over the total
    e.adjusted = omega_squared(between, total, static_cast<int64_t>(y.size()), static_cast<int64_t>(k));
    std::stable_sort(e.rows.begin(), e.rows.end(),
                     [](const RowEffect& a, const RowEffect& b) { return a.median_ratio < b.median_ratio; });
    entry_split.push_back(&seen.emplace(std::move(key), out.entries.size()).first->first);
    out.entries.push_back(std::move(e));
  }
  for (NodeEffect& e : out.entries) std::sort(e.nodes.begin(), e.nodes.end());
  std::vector<size_t> order(out.entries.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return out.entries[a].share > out.entries[b].share; });

  // The joint reading, over the entries largest alone (a node that explains
  // nothing alone is rarely what others mask).
  std::vector<std::vector<int32_t>> factors;
  for (size_t i = 0; i < std::min(order.size(), kJointCandidates); ++i) {
    const std::string& split = *entry_split[order[i]];
    factors.emplace_back(split.size() / sizeof(int32_t));
    std::memcpy(factors.back().data(), split.data(), split.size());
  }
  const JointShare joint = joint_share(y, factors, kJointPicks, kJointMinGain, kJointAlpha);
  out.joint = joint.adjusted;
  out.joint_stopped = joint_stop_text(joint, order.size());
  std::vector<NodeEffect> sorted;
  std::vector<bool> placed(order.size(), false);
  for (const JointPick& p : joint.picks) {
    placed[p.factor] = true;
    sorted.push_back(std::move(out.entries[order[p.factor]]));
    sorted.back().adds = p.gain;
  }
  for (size_t i = 0; i < order.size(); ++i)
    if (!placed[i]) sorted.push_back(std::move(out.entries[order[i]]));
  out.entries = std::move(sorted);
  return out;
}

std::vector<ConfigRowEffect> config_row_effects(const NodeEffects& e, const std::vector<int64_t>& node_ids,
                                                const std::vector<float>& config_row) {
  const auto nc = static_cast<int64_t>(node_ids.size());
  if (nc == 0 || config_row.size() % static_cast<size_t>(nc) != 0)
    throw Error("a config row of " + std::to_string(config_row.size()) + " values for " + std::to_string(nc) +
                " configurable nodes");
  const size_t w = config_row.size() / static_cast<size_t>(nc);
  std::unordered_map<int64_t, size_t> slot;
  for (size_t j = 0; j < node_ids.size(); ++j) slot.emplace(node_ids[j], j);
  std::vector<ConfigRowEffect> out;
  for (size_t k = 0; k < e.entries.size(); ++k) {
    const NodeEffect& x = e.entries[k];
    const auto it = slot.find(x.rows_node);
    if (it == slot.end()) throw Error("node " + std::to_string(x.rows_node) + " is not a configurable node here");
    if (x.rows.front().row.size() != w)
      throw Error("a config row of " + std::to_string(w) + " values per node read against rows of " +
                  std::to_string(x.rows.front().row.size()));
    const float* mine = config_row.data() + it->second * w;
    ConfigRowEffect c;
    c.entry = k;
    c.slower = std::nan("");
    for (size_t r = 0; r < x.rows.size(); ++r) {
      const std::vector<float>& row = x.rows[r].row;
      // -0 and +0 alike, as the grouping hashed them.
      if (std::equal(row.begin(), row.end(), mine, [](float a, float b) { return a == b; })) {
        c.row = static_cast<int64_t>(r);
        c.slower = x.rows[r].median_ratio / x.rows.front().median_ratio;
        break;
      }
    }
    out.push_back(c);
  }
  // Rows nobody measured (NaN) last; ties keep the entries' order (the forward selection's picks first).
  std::stable_sort(out.begin(), out.end(), [](const ConfigRowEffect& a, const ConfigRowEffect& b) {
    const double x = std::isnan(a.slower) ? -1 : a.slower, y = std::isnan(b.slower) ? -1 : b.slower;
    return x > y;
  });
  return out;
}

NodeEffects node_effects(const LayoutGraph& g, const std::string& source) {
  const int64_t nc = g.num_configurable(), w = g.config_feat_width;
  if (static_cast<int64_t>(g.node_config_feat.size()) != g.num_configs * nc * w || nc == 0 || w == 0)
    throw Error(source, "node_config_feat", "not loaded: the node effects read every config's layout values");
  NodeEffectsBuilder b(g.node_config_ids, w, std::vector<double>(g.config_runtime.begin(), g.config_runtime.end()),
                       source);
  b.add(g.node_config_feat.data(), g.num_configs);
  return b.finish();
}

NodeEffects node_effects(const NpzReader& npz, uint64_t max_bytes) {
  const std::string& file = npz.file();
  for (const char* a : {"node_config_ids", "config_runtime", "node_config_feat"})
    if (!npz.contains(a)) throw Error(file, a, "missing: the node effects need a layout file's configs and runtimes");
  const std::vector<int64_t> ids = npz.read("node_config_ids").to_int64("node_config_ids");
  const std::vector<double> runtime = npz.read("config_runtime").to_double("config_runtime");
  const NpyHeader& h = npz.header("node_config_feat");
  if (h.shape.size() != 3 || h.shape[0] != static_cast<int64_t>(runtime.size()) ||
      h.shape[1] != static_cast<int64_t>(ids.size()) || h.shape[2] < 1)
    throw Error(file, "node_config_feat",
                "is not [" + std::to_string(runtime.size()) + " configs, " + std::to_string(ids.size()) +
                    " configurable nodes, width]");
  const int64_t w = h.shape[2];
  NodeEffectsBuilder b(ids, w, runtime, file, max_bytes);
  npz.for_each_float_chunk("node_config_feat", [&](const float* rows, int64_t count, int64_t) { b.add(rows, count); });
  return b.finish();
}

}  // namespace fastslow
