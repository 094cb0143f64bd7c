// One training step's forward and backward on what the sampler picked, in
// two halves: prepare() reads the pick's configs on the host, and
// forward_backward() runs the model on them once they are on the device.
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
  // The pick's configs and targets in host memory (page-locked when
  // `pinned`, for a copy to the GPU that does not wait).
  virtual Batch prepare(const PreparedData& data, const Pick& pick, bool pinned) const;
  // Accumulates the loss's gradients into the model's parameters and
  // returns the loss (a scalar tensor on the model's device). `batch` is on
  // the device.
  virtual torch::Tensor forward_backward(models::RankModelImpl& model, const PreparedData& data, const Pick& pick,
                                         const Batch& batch) = 0;
  // Whether forward_backward does the same device work for inputs of the
  // same shapes, reads nothing back to the host and keeps no state between
  // calls: then a CUDA graph may capture it once and replay it.
  virtual bool replayable() const { return false; }

  // prepare(), the copy to `device` and forward_backward() in a row, for
  // callers that overlap nothing (tests, tools).
  torch::Tensor run(models::RankModelImpl& model, const PreparedData& data, const Pick& pick,
                    const torch::Device& device);
};

class WholeGraphStep : public TrainStep {
 public:
  explicit WholeGraphStep(LossSpec loss) : loss_(std::move(loss)) {}
  torch::Tensor forward_backward(models::RankModelImpl& model, const PreparedData& data, const Pick& pick,
                                 const Batch& batch) override;
  bool replayable() const override { return true; }

 private:
  LossSpec loss_;
};

}  // namespace fastslow::train
