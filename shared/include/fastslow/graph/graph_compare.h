// Comparing two TpuGraphs files: one graph measured under two config sets
// (a collection's default and random files hold the same graph), or two
// graphs of one family (one model at two sizes). The explorer shows it
// beside the open file; tests check it against direct comparisons.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/graph/dedup.h"
#include "fastslow/graph/graph.h"

namespace fastslow {

struct GraphComparison {
  int64_t nodes_a = 0, nodes_b = 0, edges_a = 0, edges_b = 0;
  // Opcodes and edges equal row for row: one graph (its configs may differ).
  bool same_graph = false;
  bool same_features = false;  // node_feat too (only looked at when same_graph)
  struct OpcodeCount {
    int32_t opcode = 0;
    int64_t a = 0, b = 0;
  };
  // Every opcode whose count differs, the largest difference first (ties:
  // lower opcode first).
  std::vector<OpcodeCount> opcode_diffs;
  int64_t opcodes_a = 0, opcodes_b = 0;  // distinct opcodes in each
  // Matching by structure (structure_hash.h, 3 rounds): nodes of a and of b
  // paired by equal hashes (per hash, min of the two counts); one graph:
  // every node.
  int64_t matched = 0;
  // a's nodes without a partner in b: per hash, the surplus of a's members
  // over b's, the last in program order (a repeated block that b has fewer
  // copies of shows as its last copies). Ascending ids.
  std::vector<int64_t> unmatched_a;
};

// Throws Error naming the file for an edge id out of range.
GraphComparison compare_graphs(const GraphNodes& a, const GraphNodes& b);

// Two files' config sets, as ConfigGroups' row keys: distinct configs of
// each and those in both (equal rows over equal widths). With runtimes, the
// configs in both give how the two files' measurements of one config agree.
struct ConfigOverlap {
  int64_t distinct_a = 0, distinct_b = 0, both = 0;
  // Over the configs in both: the median of b's best runtime / a's (NaN
  // when none are in both or a runtime is missing).
  double median_runtime_ratio = 0;
};

// Throws Error when either side has no row keys (groups read from a cache).
ConfigOverlap config_overlap(const ConfigGroups& a, const ConfigGroups& b, bool runtimes);

}  // namespace fastslow
