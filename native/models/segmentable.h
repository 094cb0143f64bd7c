// What graph segment training (train/segment_step.h) needs of a layout
// model: the model split in two, per-node states after the graph layers
// (nodes on dim 0: [n, B, H], or [n, H] for a model whose graph stage is
// config-free) and the readout of those states to scores [B], with
//   forward(g, c) == readout(g, node_states(g, c), c);
// and, for GST's table of stale segment outputs (train/segment_history.h),
// a readout that adds up what each segment holds: segment_summary is one
// segment's share [B, P] from its subgraph, its node states and its
// configurable nodes' columns of config_feat; summary_readout the scores
// [B] of the whole graph g from the shares of its segments [S, B, P], share
// (s, b) counted weights[s, b] times. When the segments cut g's nodes,
//   summary_readout(g, their shares, ones, c) == readout(g, states, c).
// A model that can be trained by segments implements this interface and
// returns itself from RankModelImpl::segmentable().
#pragma once

#include <torch/torch.h>

#include "models/graph_tensors.h"

namespace fastslow::models {

class SegmentableModel {
 public:
  virtual ~SegmentableModel() = default;
  virtual torch::Tensor node_states(const GraphTensors& g, const torch::Tensor& config_feat) = 0;
  virtual torch::Tensor readout(const GraphTensors& g, const torch::Tensor& states, const torch::Tensor& config_feat) = 0;
  virtual torch::Tensor segment_summary(const GraphTensors& segment, const torch::Tensor& states,
                                        const torch::Tensor& config_feat) = 0;
  virtual torch::Tensor summary_readout(const GraphTensors& g, const torch::Tensor& summaries,
                                        const torch::Tensor& weights, const torch::Tensor& config_feat) = 0;
};

// The declarations a segmentable model class makes (one line in its body
// instead of the same eight in every such model).
#define FASTSLOW_SEGMENTABLE_OVERRIDES                                                                          \
  SegmentableModel* segmentable() override { return this; }                                                  \
  torch::Tensor node_states(const GraphTensors& g, const torch::Tensor& config_feat) override;                \
  torch::Tensor readout(const GraphTensors& g, const torch::Tensor& states, const torch::Tensor& config_feat)  \
      override;                                                                                              \
  torch::Tensor segment_summary(const GraphTensors& segment, const torch::Tensor& states,                    \
                                const torch::Tensor& config_feat) override;                                  \
  torch::Tensor summary_readout(const GraphTensors& g, const torch::Tensor& summaries,                       \
                                const torch::Tensor& weights, const torch::Tensor& config_feat) override;

}  // namespace fastslow::models
