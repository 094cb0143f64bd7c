// Two configs of one layout file side by side: which configurable nodes
// they set differently, and how (each node's layout values in both).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "document.h"

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

}  // namespace fastslow::explorer
