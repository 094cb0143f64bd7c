// Where a training step meets the other processes of a data-parallel run:
// between backward and clipping the gradients are made the same everywhere,
// and whether a step is applied (its loss and gradient finite) is decided
// for all processes at once, so their weights never drift apart. A run in
// one process uses this base class, which does nothing.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace fastslow::train {

class GradientSync {
 public:
  virtual ~GradientSync() = default;
  virtual int rank() const { return 0; }
  virtual int world_size() const { return 1; }
  // Called after backward, before clipping, with every trained parameter.
  virtual void reduce(const std::vector<torch::Tensor>& /*params*/) {}
  // True when `local` holds on every process.
  virtual bool all(bool local) { return local; }
};

// Whether to apply this step: its loss and gradient norm finite on every
// process (a rare batch whose gradient overflows float32 is skipped rather
// than allowed to turn every weight into NaN).
bool step_is_finite(GradientSync& sync, double loss, double grad_norm);

}  // namespace fastslow::train
