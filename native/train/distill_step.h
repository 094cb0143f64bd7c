// A distilled run's training step: each step's measured configs (the
// sampler's pick, with their runtimes) and `per_step` of the graph's
// sampled configs (teaching.h) in one forward; the loss is the run's
// ranking loss on the measured ones plus `weight` times the listwise
// distillation loss (losses.h) over all of them against the teacher.
//
// The teacher's scores are standardised per graph (over its training
// groups and samples), so one temperature fits every graph and the
// student's scores keep the scale the ranking loss's targets have.
#pragma once

#include <memory>

#include "train/teaching.h"
#include "train/train_step.h"

namespace fastslow::train {

class DistillStep : public TrainStep {
 public:
  DistillStep(LossSpec loss, const PreparedData& data, std::shared_ptr<const TeachingMaterials> materials,
              int64_t per_step, double weight, double temperature, uint64_t seed);
  // The sampled configs a pick gets are a function of the pick and the
  // seed: a resumed run sees what the uninterrupted one saw.
  Batch prepare(const PreparedData& data, const Pick& pick, bool pinned) const override;
  torch::Tensor forward_backward(models::RankModelImpl& model, const PreparedData& data, const Pick& pick,
                                 const Batch& batch) override;

 private:
  struct Standardised {
    std::vector<float> group, row;  // the teacher's scores, standardised
  };
  LossSpec loss_;
  std::shared_ptr<const TeachingMaterials> materials_;
  std::vector<Standardised> scores_;  // per training graph
  int64_t per_step_;
  double weight_, temperature_;
  uint64_t seed_;
};

}  // namespace fastslow::train
