// AdamW over one flat buffer: every trained parameter, its gradient and its
// two moments are views into four contiguous tensors, so an update is a
// dozen whole-buffer ops whatever the number of parameters, and the step
// count and the learning rate live on the device. That is what lets a GPU
// step run without a host synchronisation (and be captured as a CUDA
// graph): torch::optim::AdamW loops over parameters with host-side step
// counts, eight small kernels each.
//
// It is a torch::optim::AdamW for everything around the update: the same
// options, param_groups and checkpoint format (a run saved by either
// resumes in the other), and the same arithmetic (tests compare the two).
// One difference: every parameter steps every step (a zero gradient
// still decays the weights and moments), as with zero_grad(set_to_none=false).
#pragma once

#include <torch/torch.h>

#include <vector>

namespace fastslow::train {

class FlatAdamW : public torch::optim::AdamW {
 public:
  // The parameters must share one device and dtype; they become views of
  // the flat buffer (their values kept), as do their gradients.
  FlatAdamW(const std::vector<torch::Tensor>& params, torch::optim::AdamWOptions options);

  // The learning rate of the next update (a device scalar filled here).
  void set_lr(double lr);
  // Zeroes every gradient in place (they stay views of the flat buffer).
  void zero_grads();
  // All gradients as one tensor [P] (a view: scaling it scales them).
  const torch::Tensor& flat_grad();
  // Clips the gradients to `max_norm` (0 or infinity: never) by their
  // global L2 norm, as torch::nn::utils::clip_grad_norm_ does, and returns
  // the norm before clipping as a device scalar (float32). No sync.
  torch::Tensor clip_grad_norm(double max_norm);
  // One AdamW update, applied only where `ok` (a bool scalar on the
  // device) is true: otherwise parameters, moments and step count stay as
  // they were. No host synchronisation.
  void step_if(const torch::Tensor& ok);
  torch::Tensor step(LossClosure closure = nullptr) override;

  // The updates made so far (reads the device counter).
  int64_t steps_taken() const;

  void save(torch::serialize::OutputArchive& archive) const override;
  void load(torch::serialize::InputArchive& archive) override;

 private:
  // Makes every parameter and gradient a view of the flat buffers again
  // (copying its current value in) where something replaced it: a module
  // load that assigned new tensors, a zero_grad(set_to_none).
  void rebind();
  // The per-parameter AdamW state torch's serializer writes: views of the
  // flat moments and the step count.
  void write_param_states() const;
  void read_param_states();

  std::vector<torch::Tensor> params_;
  std::vector<int64_t> offset_;
  torch::Tensor param_, grad_, exp_avg_, exp_avg_sq_;
  torch::Tensor step_, lr_;  // float64 scalars on the device
  double beta1_, beta2_, eps_, weight_decay_;
};

}  // namespace fastslow::train
