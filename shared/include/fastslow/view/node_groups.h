// Groups that follow a graph's own structure, for folding in the explorer:
// chains of elementwise ops between heavier ones (a bias add, an
// activation, a scale and a cast after a dot) read as one step.
#pragma once

#include <cstdint>
#include <vector>

#include "fastslow/graph/graph.h"

namespace fastslow {

struct NodeGroups {
  std::vector<int32_t> group_of;  // per node: its group, or -1
  std::vector<int64_t> size;      // per group: nodes in it
  std::vector<int64_t> root;      // per group: the node whose output leaves it
  int64_t groups() const { return static_cast<int64_t>(size.size()); }
};

// Elementwise nodes joined along edges whose producer has that one user:
// every node of a group but its root feeds only the group, so folding a
// group into one box keeps the graph acyclic and its edges in and out.
// Groups of fewer than `min_size` nodes are left out. Groups are numbered
// by their first node (program order). Ids out of range throw Error.
NodeGroups elementwise_chains(const GraphNodes& g, int64_t min_size = 3);

}  // namespace fastslow
