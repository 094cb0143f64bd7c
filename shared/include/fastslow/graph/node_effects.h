// Which configurable nodes a layout file's measured runtimes depend on,
// read from the measurements alone (no model): per node, the share of the
// variance of log runtime that its layout rows explain (a one-way analysis
// of variance: between-row over total sum of squares), and each row's
// median runtime over the file's best. On real unet3d one convolution's 8
// rows explain 99.8 %: the first thing an engineer tuning that program
// wants to know, and what no per-config explanation shows at a glance.
//
// Nodes whose rows split the configs the same way (a search that moved
// them together) cannot be told apart by measurements: they form one
// entry, with the same share. Nodes that never change layout in the file
// are left out (their share is 0).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/graph/graph.h"

namespace fastslow {

struct RowEffect {
  std::vector<float> row;  // the entry's first node's config values
  int64_t configs = 0;     // measured configs holding it
  double median_ratio = 0;  // their median runtime over the file's fastest
};

struct NodeEffect {
  std::vector<int64_t> nodes;  // file node ids, ascending; more than one when they moved together
  double share = 0;            // of the variance of log runtime
  std::vector<RowEffect> rows;  // fastest median first
};

struct NodeEffects {
  int64_t configs = 0;           // measured configs read (runtime > 0)
  int64_t constant_nodes = 0;    // configurable nodes with one row in the whole file
  std::vector<NodeEffect> entries;  // largest share first
};

// Throws Error naming `source` when the graph holds no config features
// (loaded without them), or fewer than two measured configs with
// different runtimes (a test file's zeros, or a plateau with nothing to
// attribute).
NodeEffects node_effects(const LayoutGraph& g, const std::string& source);

}  // namespace fastslow
