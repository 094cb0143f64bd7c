#include "train/train_step.h"

namespace fastslow::train {

torch::Tensor WholeGraphStep::forward_backward(models::RankModelImpl& model, const PreparedData& data,
                                               const Pick& pick) {
  const GraphEntry& e = data.train.at(pick.graph);
  const Batch b = make_batch(e, pick.groups, data.norm, device_);
  torch::Tensor loss = loss_(model.forward(e.tensors, b.config_feat), b.target);
  loss.backward();
  return loss;
}

}  // namespace fastslow::train
