#include "fastslow/graph/graph_info.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "fastslow/graph/computations.h"
#include "fastslow/graph/dedup.h"
#include "fastslow/error.h"

namespace fastslow {

namespace {

// Integer nanoseconds (a file's) and doubles (a session's measurements)
// alike, over the measured ones: 0 is a config never measured (all zero:
// a test file, stats 0).
template <class T>
RuntimeStats stats_of(const std::vector<T>& runtime) {
  RuntimeStats s;
  std::vector<T> v;
  for (T r : runtime)
    if (r > 0) v.push_back(r);
  if (v.empty()) return s;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  s.median = static_cast<double>(v[mid]);
  if (v.size() % 2 == 0) {
    const T below = *std::max_element(v.begin(), v.begin() + mid);
    s.median = (s.median + static_cast<double>(below)) / 2;
  }
  const auto mm = std::minmax_element(v.begin(), v.end());
  s.min = static_cast<double>(*mm.first);
  s.max = static_cast<double>(*mm.second);
  return s;
}

}  // namespace

RuntimeStats runtime_stats(const std::vector<int64_t>& runtime) { return stats_of(runtime); }
RuntimeStats double_runtime_stats(const std::vector<double>& runtime) { return stats_of(runtime); }

int64_t count_computations(const std::vector<int64_t>& node_splits, int64_t num_nodes) {
  return static_cast<int64_t>(computation_starts(node_splits, num_nodes).size());
}

namespace {

// What graph_info keeps per config beside the graph: the groups and the target.
constexpr uint64_t kInfoBytesPerConfig = ConfigDeduplicator::kBytesPerConfig + sizeof(double);

}  // namespace

GraphInfo graph_info(const NpzReader& npz, GraphContents* contents) {
  GraphInfo info;
  info.file = npz.file();
  info.kind = detect_graph_kind(npz);
  // Config features, the largest arrays of both kinds, are streamed rather
  // than loaded: only a chunk of them is ever in memory.
  LoadOptions opt;
  opt.config_features = false;
  opt.bytes_per_config = kInfoBytesPerConfig;
  if (info.kind == GraphKind::Tile) {
    // The loader would refuse integer features; so does the stream.
    const DType cf = npz.header("config_feat").dtype;
    TileGraph g = load_tile_graph(npz, opt);
    if (!dtype_is_float(cf))
      throw Error(npz.file(), "config_feat", std::string("holds ") + dtype_name(cf) + ", expected a float type");
    info.nodes = g.num_nodes;
    info.edges = g.num_edges();
    info.configs = g.num_configs;
    info.node_feat_width = g.node_feat_width;
    info.config_feat_width = g.config_feat_width;
    info.runtime = runtime_stats(g.config_runtime);
    info.problems = validate(g);
    ConfigDeduplicator dedup(g.config_feat_width);
    FiniteCheck finite("config_feat", g.config_feat_width);
    npz.for_each_float_chunk("config_feat", [&](const float* v, int64_t rows, int64_t values) {
      dedup.add_rows(v, rows);
      finite.add(v, values);
    });
    // Where validate() puts it: after the node arrays' and config_feat's own problems.
    std::vector<Problem> found;
    finite.report(&found);
    const auto at = std::find_if(info.problems.begin(), info.problems.end(), [](const Problem& p) {
      return p.array != "node_feat" && p.array != "node_opcode" && p.array != "edge_index" && p.array != "config_feat";
    });
    info.problems.insert(at, found.begin(), found.end());
    // Normalisers must be positive for the target; skip dedup's runtimes otherwise.
    const bool sound = !has_errors(info.problems);
    ConfigGroups groups = dedup.finish(sound ? g.target() : std::vector<double>(g.num_configs, 0.0));
    info.unique_configs = groups.num_groups();
    if (contents) *contents = {std::move(g), std::move(groups), true};
    return info;
  }
  LayoutGraph g = load_layout_graph(npz, opt);
  info.nodes = g.num_nodes;
  info.edges = g.num_edges();
  info.configurable_nodes = g.num_configurable();
  info.configs = g.num_configs;
  info.node_feat_width = g.node_feat_width;
  info.config_feat_width = g.config_feat_width;
  info.computations = count_computations(g.node_splits, g.num_nodes);
  info.runtime = runtime_stats(g.config_runtime);
  info.problems = validate(g);

  const int64_t row = g.num_configurable() * g.config_feat_width;
  ConfigDeduplicator dedup(row);
  LayoutConfigCheck check(row);
  npz.for_each_float_chunk("node_config_feat", [&](const float* v, int64_t rows, int64_t values) {
    dedup.add_rows(v, rows);
    check.add(v, values);
  });
  check.report(&info.problems);
  ConfigGroups groups = dedup.finish(g.target());
  info.unique_configs = groups.num_groups();
  if (contents) *contents = {std::move(g), std::move(groups), check.all_layout_values()};
  return info;
}

std::string graph_info_json(const GraphInfo& info, int indent) {
  nlohmann::ordered_json j;
  j["file"] = info.file;
  j["kind"] = graph_kind_name(info.kind);
  j["nodes"] = info.nodes;
  j["edges"] = info.edges;
  j["configurable_nodes"] = info.configurable_nodes;
  j["configs"] = info.configs;
  j["unique_configs"] = info.unique_configs;
  j["node_feat_width"] = info.node_feat_width;
  j["config_feat_width"] = info.config_feat_width;
  if (info.kind == GraphKind::Layout) j["computations"] = info.computations;
  j["runtime_min"] = info.runtime.min;
  j["runtime_median"] = info.runtime.median;
  j["runtime_max"] = info.runtime.max;
  j["valid"] = !has_errors(info.problems);
  j["problems"] = nlohmann::ordered_json::array();
  for (const Problem& p : info.problems)
    j["problems"].push_back({{"severity", severity_name(p.severity)}, {"array", p.array}, {"message", p.message}});
  return j.dump(indent);
}

std::string graph_info_text(const GraphInfo& info) {
  auto line = [](const char* key, const std::string& value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%-20s", key);
    return std::string(buf) + value + "\n";
  };
  auto num = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return std::string(buf);
  };
  std::string s;
  s += line("file", info.file);
  s += line("kind", graph_kind_name(info.kind));
  s += line("nodes", std::to_string(info.nodes));
  s += line("edges", std::to_string(info.edges));
  if (info.kind == GraphKind::Layout) {
    s += line("configurable nodes", std::to_string(info.configurable_nodes));
    s += line("computations", info.computations ? std::to_string(info.computations) : "n/a (no node_splits)");
  } else {
    s += line("configurable nodes", "n/a (tile configs apply to the whole kernel)");
  }
  s += line("configs", std::to_string(info.configs));
  s += line("unique configs", std::to_string(info.unique_configs));
  s += line("node features", std::to_string(info.node_feat_width));
  s += line("config features", std::to_string(info.config_feat_width) +
                                   (info.kind == GraphKind::Layout ? " per configurable node" : ""));
  s += line("runtime min", num(info.runtime.min));
  s += line("runtime median", num(info.runtime.median));
  s += line("runtime max", num(info.runtime.max));
  if (info.problems.empty()) {
    s += line("validation", "ok");
  } else {
    s += line("validation", has_errors(info.problems) ? "FAILED" : "ok, with remarks");
    for (const Problem& p : info.problems)
      s += "  " + std::string(severity_name(p.severity)) + ": " + (p.array.empty() ? "" : p.array + ": ") + p.message + "\n";
  }
  return s;
}

}  // namespace fastslow
