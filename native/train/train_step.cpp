#include "train/train_step.h"

namespace fastslow::train {

Batch TrainStep::prepare(const PreparedData& data, const Pick& pick, bool pinned) const {
  return make_host_batch(data.train.at(pick.graph), pick.groups, data.norm, pinned);
}

torch::Tensor TrainStep::run(models::RankModelImpl& model, const PreparedData& data, const Pick& pick,
                             const torch::Device& device) {
  return forward_backward(model, data, pick, upload(prepare(data, pick, device.is_cuda()), device));
}

torch::Tensor WholeGraphStep::forward_backward(models::RankModelImpl& model, const PreparedData& data,
                                               const Pick& pick, const Batch& batch) {
  const GraphEntry& e = data.train.at(pick.graph);
  torch::Tensor loss = loss_(model.forward(e.tensors, batch.config_feat), batch.target);
  loss.backward();
  return loss;
}

}  // namespace fastslow::train
