// The paper's layout baseline: GraphSAGE over both edge directions with the
// config joined early (raw layout values at the configurable nodes' inputs,
// zeros elsewhere), mean-pooled to one score per config.
#pragma once

#include <vector>

#include "models/blocks.h"

namespace fastslow::models {

class LayoutSageImpl : public RankModelImpl {
 public:
  explicit LayoutSageImpl(const ModelOptions& options);
  torch::Tensor forward(const GraphTensors& g, const torch::Tensor& config_feat) override;
  bool has_node_states() const override { return true; }
  torch::Tensor node_states(const GraphTensors& g, const torch::Tensor& config_feat) override;
  torch::Tensor readout(const GraphTensors& g, const torch::Tensor& states, const torch::Tensor& config_feat) override;
  // The mean pool's sum over the segment's nodes [B, H].
  bool has_segment_summaries() const override { return true; }
  torch::Tensor segment_summary(const GraphTensors& segment, const torch::Tensor& states,
                                const torch::Tensor& config_feat) override;
  torch::Tensor summary_readout(const GraphTensors& g, const torch::Tensor& summaries, const torch::Tensor& weights,
                                const torch::Tensor& config_feat) override;

  NodeEncoder encoder{nullptr};
  torch::nn::Linear config_in{nullptr};
  std::vector<SageLayer> layers;
  ScoreHead head{nullptr};

 private:
  ModelOptions options_;
};
TORCH_MODULE(LayoutSage);

}  // namespace fastslow::models
