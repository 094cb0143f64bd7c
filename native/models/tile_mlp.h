// The paper's tile baseline: no message passing. Nodes are encoded one by
// one, summed to a graph vector, and an MLP scores [graph vector, config].
#pragma once

#include "models/blocks.h"

namespace fastslow::models {

class TileMlpImpl : public RankModelImpl {
 public:
  explicit TileMlpImpl(const ModelOptions& options);
  torch::Tensor forward(const GraphTensors& g, const torch::Tensor& config_feat) override;

  NodeEncoder encoder{nullptr};
  torch::nn::Linear node_fc{nullptr};
  torch::nn::LayerNorm graph_norm{nullptr};
  torch::nn::Linear fc1{nullptr};
  ScoreHead head{nullptr};

 private:
  ModelOptions options_;
};
TORCH_MODULE(TileMlp);

}  // namespace fastslow::models
