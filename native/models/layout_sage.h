// The paper's layout baseline: GraphSAGE over both edge directions with the
// config joined early (raw layout values at the configurable nodes' inputs,
// zeros elsewhere), mean-pooled to one score per config.
#pragma once

#include <vector>

#include "models/blocks.h"

namespace fastslow::models {

class LayoutSageImpl : public RankModelImpl, public SegmentableModel {
 public:
  explicit LayoutSageImpl(const ModelOptions& options);
  torch::Tensor forward(const GraphTensors& g, const torch::Tensor& config_feat) override;
  // Graph segment training (segmentable.h): a segment's share is the mean
  // pool's sum over its nodes [B, H].
  FASTSLOW_SEGMENTABLE_OVERRIDES

  NodeEncoder encoder{nullptr};
  torch::nn::Linear config_in{nullptr};
  std::vector<SageLayer> layers;
  ScoreHead head{nullptr};

 private:
  ModelOptions options_;
};
TORCH_MODULE(LayoutSage);

}  // namespace fastslow::models
