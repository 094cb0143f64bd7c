// What `fastslow info` and the explorer's summary show about one file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/graph/dedup.h"
#include "fastslow/graph/graph.h"
#include "fastslow/graph/validate.h"

namespace fastslow {

struct RuntimeStats {
  double min = 0, median = 0, max = 0;
};

struct GraphInfo {
  std::string file;
  GraphKind kind = GraphKind::Layout;
  int64_t nodes = 0, edges = 0;
  int64_t configurable_nodes = 0;  // layout only: tile configs apply to the whole kernel
  int64_t configs = 0, unique_configs = 0;
  int64_t node_feat_width = 0, config_feat_width = 0;
  int64_t computations = 0;  // layout: HLO computations per node_splits; 0 = not given
  RuntimeStats runtime;      // config_runtime as stored (ns for tile)
  std::vector<Problem> problems;
};

// What graph_info loads and groups on its way (graphs without their config
// features: config_feat / node_config_feat stay empty), for callers that need
// them too: the file is read once.
struct GraphContents {
  Graph graph;
  ConfigGroups groups;
  // Layout: every config value is an integer in -1..5 (LayoutConfigCheck).
  bool layout_values_only = true;
};

// Loads, validates and de-duplicates. Config features (tile and layout) are
// streamed in ~16 MB chunks rather than held, so memory stays small for
// 100k-config files; the rest of the graph is loaded whole after a check
// against the memory budget (graph.h), which a file claiming more fails
// before anything is read.
GraphInfo graph_info(const NpzReader& npz, GraphContents* contents = nullptr);

int64_t count_computations(const std::vector<int64_t>& node_splits, int64_t num_nodes);
RuntimeStats runtime_stats(const std::vector<int64_t>& runtime);
// Of measurements in any unit (a tuning session's, a command's seconds).
RuntimeStats double_runtime_stats(const std::vector<double>& runtime);
std::string graph_info_json(const GraphInfo& info, int indent = 2);
std::string graph_info_text(const GraphInfo& info);

}  // namespace fastslow
