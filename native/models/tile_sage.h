// Tile GraphSAGE (paper baseline family): SAGE layers over both edge
// directions, mean-pooled; config features joined at every node's input
// ("early") or after pooling ("late").
#pragma once

#include <vector>

#include "models/blocks.h"

namespace fastslow::models {

class TileSageImpl : public RankModelImpl {
 public:
  explicit TileSageImpl(const ModelOptions& options);
  torch::Tensor forward(const GraphTensors& g, const torch::Tensor& config_feat) override;

  NodeEncoder encoder{nullptr};
  torch::nn::Linear config_in{nullptr};  // early join only
  torch::nn::Linear join{nullptr};       // late join only: [pooled, config] -> H
  std::vector<SageLayer> layers;
  ScoreHead head{nullptr};

 private:
  ModelOptions options_;
  bool early_;
};
TORCH_MODULE(TileSage);

}  // namespace fastslow::models
