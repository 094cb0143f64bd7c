// One training step's forward and backward on what the sampler picked.
// The default runs the model on the whole (pruned) graph; a graph-segment
// step (forward on one segment of a huge graph, stale embeddings for the
// rest) replaces it without touching the loop around it.
#pragma once

#include <torch/torch.h>

#include "models/model.h"
#include "train/losses.h"
#include "train/prepared_data.h"
#include "train/sampler.h"

namespace fastslow::train {

class TrainStep {
 public:
  virtual ~TrainStep() = default;
  // Accumulates the loss's gradients into the model's parameters and
  // returns the loss (a scalar tensor on the model's device).
  virtual torch::Tensor forward_backward(models::RankModelImpl& model, const PreparedData& data, const Pick& pick) = 0;
};

class WholeGraphStep : public TrainStep {
 public:
  WholeGraphStep(LossSpec loss, torch::Device device) : loss_(std::move(loss)), device_(device) {}
  torch::Tensor forward_backward(models::RankModelImpl& model, const PreparedData& data, const Pick& pick) override;

 private:
  LossSpec loss_;
  torch::Device device_;
};

}  // namespace fastslow::train
