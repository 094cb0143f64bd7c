// What a model was trained on (feature ranges, opcodes, layout values, graph
// sizes, generated or real data), recorded by the trainer and carried in the
// model card, and the check of a graph against it. A model trained on
// generated graphs ranks a real one no better than chance; the terminal and
// the page use this one check to say so before anyone trusts the ranking.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fastslow/graph/graph.h"

namespace fastslow {

class CachedGraph;

// What the profile reads of one graph: the nodes the model reads (after its
// pruning) and the rows of a sample of configs, as the file holds them.
struct GraphSample {
  GraphKind kind = GraphKind::Layout;
  int64_t node_feat_width = 0;
  std::vector<float> node_feat;      // nodes x node_feat_width
  std::vector<int32_t> node_opcode;  // nodes
  std::vector<int64_t> config_positions;  // layout: the configurable nodes among them
  int64_t config_nodes() const { return static_cast<int64_t>(config_positions.size()); }
  int64_t config_feat_width = 0;     // per config (tile) or per configurable node (layout)
  std::vector<float> config_rows;    // sampled configs x (tile: width; layout: config_nodes x width)
  int64_t nodes() const { return static_cast<int64_t>(node_opcode.size()); }
};

// At most this many configs are read per graph: enough to see every value a
// search produced, bounded for 100k-config files and the browser.
constexpr int64_t kProfileConfigSample = 256;

// The pruned nodes of a cached graph and up to kProfileConfigSample of its
// unique configs, spread evenly.
GraphSample sample_graph(const CachedGraph& g);
// Evenly spread indices in [0, count), at most `limit` of them.
std::vector<int64_t> spread_sample(int64_t count, int64_t limit);

struct DataProfile {
  static constexpr int kVersion = 1;
  GraphKind kind = GraphKind::Layout;
  std::string origin = "unknown";  // generated | real | mixed (both) | unknown
  std::string source;              // the collection or graph file
  int64_t graphs = 0;
  int64_t min_nodes = 0, max_nodes = 0;                // nodes the model reads
  int64_t min_config_nodes = 0, max_config_nodes = 0;  // layout
  std::vector<float> node_min, node_max;               // per node feature column
  std::vector<int32_t> opcodes;                        // seen, ascending
  // Layout: per config column, the values seen (ascending); tile: per config
  // column, the range.
  std::vector<std::vector<int32_t>> layout_values;
  std::vector<float> config_min, config_max;

  nlohmann::json to_json() const;
  // Throws Error naming `what` on a malformed profile.
  static DataProfile from_json(const nlohmann::json& j, const std::string& what);
  // One line: origin, graphs, sizes, opcodes ("generated data (layout:xla:default): 52 graphs of 300-2,500 nodes ...").
  std::string summary() const;
};

class DataProfileBuilder {
 public:
  DataProfileBuilder(GraphKind kind, std::string origin, std::string source);
  // Throws Error naming `what` when the sample's widths differ from the first one's.
  void add(const GraphSample& s, const std::string& what);
  // Throws Error when nothing was added.
  DataProfile finish() const;

 private:
  DataProfile p_;
  int64_t config_width_ = 0;
  std::vector<uint8_t> seen_opcode_;
  std::vector<std::vector<uint8_t>> seen_value_;  // layout: per column, value + 1
};

// "generated" when a fastslow synth.json lies in the folder of `path` or one
// of its parents (the generator writes one at each dataset's root) or, for a
// single file, its answers file lies beside it in answers/ (`synth --graph`);
// else "real".
std::string data_origin(const std::string& path);

// How a graph differs from the data a model was trained on. Each finding is
// one sentence a user can act on; none means the graph lies inside the
// profile's ranges (not that the ranking will be good).
struct ShiftReport {
  std::vector<std::string> findings;
  double unseen_opcode_share = 0;   // of the nodes the model reads
  double out_of_range_share = 0;    // nodes with a feature outside the trained range
  double unseen_value_share = 0;    // layout: configurable-node settings with a value never trained on
  double config_out_of_range_share = 0;  // tile: configs with a column outside the trained range
  bool shifted() const { return !findings.empty(); }
};

// Thresholds: any unseen opcode on 1 % of the nodes or on a configurable
// node; 5 % of the nodes with a feature outside its trained range (size-like
// columns: beyond half its minimum or twice its maximum; others: by more
// than a tenth of the range); node or configurable-node counts under half or over twice the
// trained ones; 1 % of layout settings with an unseen value; 5 % of tile
// configs out of range.
ShiftReport distribution_shift(const DataProfile& trained, const GraphSample& graph);

// The report as the terminal and the page show it: a line naming the file
// and what the model was trained on, then "  - finding" lines; empty when
// nothing was found.
std::string shift_warning(const std::string& file, const DataProfile& trained, const ShiftReport& report);

}  // namespace fastslow
