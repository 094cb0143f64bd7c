// Neighbourhood aggregation for the graph models. Tensors are node-major,
// x [n, ...] with any trailing shape (the models use [n, B, H], so one call
// aggregates every config of a batch over contiguous rows).
#pragma once

#include <torch/torch.h>

#include <vector>

#include "models/graph_tensors.h"

namespace fastslow::models {

// y[r] = mean of x[c] over the neighbours c of r in (ptr, idx); 0 where r has
// none. (tptr, tidx) is the transposed adjacency, which the backward pass
// walks. CPU: a parallel row kernel (deterministic, no atomics); other
// devices: csr_mean_reference.
torch::Tensor csr_mean(const torch::Tensor& x, const torch::Tensor& ptr, const torch::Tensor& idx,
                       const torch::Tensor& tptr, const torch::Tensor& tidx);

// The same through index_select + index_add (differentiable by autograd):
// the check for csr_mean, and what other devices run.
torch::Tensor csr_mean_reference(const torch::Tensor& x, const torch::Tensor& ptr, const torch::Tensor& idx);

// Mean over the operands (producers) of every node.
inline torch::Tensor mean_in(const GraphTensors& g, const torch::Tensor& x) {
  return csr_mean(x, g.in_ptr, g.in_idx, g.out_ptr, g.out_idx);
}
// Mean over the users (consumers) of every node.
inline torch::Tensor mean_out(const GraphTensors& g, const torch::Tensor& x) {
  return csr_mean(x, g.out_ptr, g.out_idx, g.in_ptr, g.in_idx);
}

// [x, mean_in(x), mean_out(x)] along the last dim, x [n, ..., H] ->
// [n, ..., 3H]: a SAGE layer's input built in one pass (CPU), without the
// intermediate means and the concatenation copy.
torch::Tensor sage_concat(const GraphTensors& g, const torch::Tensor& x);
torch::Tensor sage_concat_reference(const GraphTensors& g, const torch::Tensor& x);

// Which nodes can differ between configs after l rounds of message passing
// over both edge directions: the configurable nodes (l = 0), then the nodes
// one hop from them, and so on. Every other node has one value for all
// configs, so a model can compute it once instead of B times.
struct HopPlan {
  torch::Tensor order;         // node ids, ring by ring: configurable nodes first
  std::vector<int64_t> count;  // count[l]: nodes within l hops, a prefix of order (l = 0..hops)
  torch::Tensor pos;           // [n]: index of each node in order, -1 beyond `hops`
  torch::Tensor outside;       // nodes beyond `hops`, ascending
  torch::Tensor config_rows;   // index in order of each g.config_nodes entry
};
HopPlan hop_plan(const GraphTensors& g, int64_t hops);

// sage_concat for node values stored in two parts: shared [n, H] (the value
// of every node that all configs share) and varying [m_in, B, H] (per-config
// values of the nodes plan.order[0, m_in), which take precedence). Returns
// the [x, mean_in(x), mean_out(x)] rows of the nodes plan.order[0, m_out):
// [m_out, B, 3H]. Gradients flow to both parts.
torch::Tensor sage_concat_split(const GraphTensors& g, const HopPlan& plan, const torch::Tensor& shared,
                                const torch::Tensor& varying, int64_t m_out);
torch::Tensor sage_concat_split_reference(const GraphTensors& g, const HopPlan& plan,
                                          const torch::Tensor& shared, const torch::Tensor& varying, int64_t m_out);

// x [n, B, H] -> [B, H]: mean over nodes.
inline torch::Tensor mean_pool(const torch::Tensor& x) { return x.mean(0); }
// x [n, B, H] -> [B, H]: mean over the given nodes; zeros when there are none.
torch::Tensor mean_pool_at(const torch::Tensor& x, const torch::Tensor& nodes);

}  // namespace fastslow::models
