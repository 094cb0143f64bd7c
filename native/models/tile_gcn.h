// Tile residual GCN: each layer averages a node with its operands and users
// (one weight for all of them, unlike SAGE) and adds the result back;
// config features joined early or late as in tile sage.
#pragma once

#include <vector>

#include "models/blocks.h"

namespace fastslow::models {

// h + relu(LayerNorm(W * mean of {h, operands, users})).
class GcnLayerImpl : public torch::nn::Module {
 public:
  explicit GcnLayerImpl(int64_t hidden);
  torch::Tensor forward(const GraphTensors& g, const torch::Tensor& h);
  torch::nn::Linear lin{nullptr};
  torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(GcnLayer);

class TileGcnImpl : public RankModelImpl {
 public:
  explicit TileGcnImpl(const ModelOptions& options);
  torch::Tensor forward(const GraphTensors& g, const torch::Tensor& config_feat) override;

  NodeEncoder encoder{nullptr};
  torch::nn::Linear config_in{nullptr};  // early join only
  torch::nn::Linear join{nullptr};       // late join only: [pooled, config] -> H
  std::vector<GcnLayer> layers;
  ScoreHead head{nullptr};

 private:
  ModelOptions options_;
  bool early_;
};
TORCH_MODULE(TileGcn);

}  // namespace fastslow::models
