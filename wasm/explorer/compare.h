// Comparisons the explorer shows: two configs of one layout file side by
// side (which configurable nodes they set differently, and how), and the
// open file against another (graph_compare.h: one graph under two config
// sets, or two graphs of one family).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "document.h"
#include "fastslow/graph/graph_compare.h"

namespace fastslow::explorer {

struct ConfigDiff {
  int64_t a = -1, b = -1;      // the configs compared (-1: none)
  std::vector<int64_t> nodes;  // configurable nodes whose values differ, ascending by id
  std::vector<int64_t> slots;  // their rows in a config (node_config_ids order)
  // Per differing node, the values that change: "[position] a->b", ...
  // (made once here: the panel would otherwise read both rows every frame).
  std::vector<std::string> changes;
  bool active() const { return a >= 0; }
};

// Throws Error naming the file for a tile file or a config out of range.
ConfigDiff diff_configs(const Document& doc, int64_t a, int64_t b);

struct FileComparison {
  std::string other;  // the other file's name
  GraphComparison graph;
  // Config sets, where both files hold one graph of one kind.
  bool configs_compared = false;
  ConfigOverlap configs;
  bool active() const { return !other.empty(); }
};

// The open document (a) against another (b).
FileComparison compare_files(const Document& a, const Document& b);
// FileComparison as JSON (the page's compareFile): {"other", "same_graph",
// "same_features", "nodes": [a, b], "edges": [a, b], "opcodes": [a, b],
// "matched", "unmatched" (a's nodes without a partner), "opcode_diffs":
// [{"opcode", "a", "b"}], "configs": {"distinct": [a, b], "both",
// "median_runtime_ratio" (null without runtimes)} or null}.
nlohmann::json file_comparison_json(const FileComparison& c);

}  // namespace fastslow::explorer
