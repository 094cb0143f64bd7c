// One graph as the models consume it: prepared once per graph (pruned,
// normalised) and kept for every step that samples its configs. Includes
// torch: only the trainer's and the models' files include this header.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace fastslow::models {

struct GraphTensors {
  int64_t num_nodes = 0;
  torch::Tensor node_feat;     // [n, F] float32, normalised
  torch::Tensor opcode;        // [n] int64, ids 0..120
  torch::Tensor edge_src;      // [m] int64: the producer v of a file row [u, v]
  torch::Tensor edge_dst;      // [m] int64: the consumer u of that row
  torch::Tensor config_nodes;  // [nc] int64 positions of configurable nodes (layout); [0] for tile
  // [nc, LayoutContext::kWidth] float32 (layout): what each configurable
  // node's layout values point at (fastslow/layout_context.h). Undefined
  // for tile graphs; models that need it treat undefined as unknown.
  torch::Tensor config_context;
  // Adjacency in CSR form, both directions, for the aggregation kernels
  // (graph_ops.h): built once here instead of on every forward.
  torch::Tensor in_ptr, in_idx;    // consumer u -> its producers (operands)
  torch::Tensor out_ptr, out_idx;  // producer v -> its consumers (users)

  GraphTensors to(const torch::Device& device) const;
};

// node_feat: n x width row-major (already normalised); edge_index: m x 2 rows
// [u, v]; config_positions: positions of configurable nodes (may be empty).
// Sets g.config_context from the core's table (values: nc x width).
void set_config_context(GraphTensors& g, const std::vector<float>& values, int64_t width);

GraphTensors make_graph_tensors(int64_t num_nodes, int64_t node_feat_width, const std::vector<float>& node_feat,
                                const std::vector<int32_t>& opcode, const std::vector<int64_t>& edge_index,
                                const std::vector<int64_t>& config_positions);

}  // namespace fastslow::models
