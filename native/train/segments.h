// Graph segments for graph segment training (segment_step.h): a graph's
// nodes cut into runs of at most S nodes in topological order, each with
// the subgraph it induces (edges to other segments dropped) and the
// configurable nodes it holds.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "models/graph_tensors.h"

namespace fastslow::train {

struct GraphSegment {
  torch::Tensor nodes;           // [s] int64: the whole graph's ids of its nodes, in the subgraph's order
  models::GraphTensors graph;    // the induced subgraph, on the whole graph's device
  torch::Tensor config_columns;  // [nc_s] int64: its configurable nodes' places in g.config_nodes (config_feat dim 1)
};

// Topological order: producers before consumers (ties by node id); nodes on
// a cycle, which HLO graphs do not have, follow in id order.
std::vector<int64_t> topological_order(const models::GraphTensors& g);

// One segment when the graph has at most max_nodes nodes. Throws Error when
// max_nodes < 1.
std::vector<GraphSegment> make_segments(const models::GraphTensors& g, int64_t max_nodes);

}  // namespace fastslow::train
