// Where a training step meets the other processes of a data-parallel run:
// between backward and clipping the gradients are made the same everywhere;
// whether a step is applied (its loss and gradient finite) and whether the
// run stops (Ctrl-C seen by one process, early stopping on scores that
// differ in the last bits) are decided for all processes at once, so their
// weights never drift apart and none waits for a peer that has left. A run
// in one process uses this base class, which does nothing.
#pragma once

#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "train/callbacks.h"

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
  // The stop every process takes: any process's reason stops all of them
  // (the greatest, in StopReason's order, where they differ).
  virtual Verdict agree(Verdict local) { return local; }
};

// Whether to apply this step: its loss and gradient norm finite on every
// process (a rare batch whose gradient overflows float32 is skipped rather
// than allowed to turn every weight into NaN).
inline bool step_is_finite(GradientSync& sync, double loss, double grad_norm) {
  return sync.all(std::isfinite(loss) && std::isfinite(grad_norm));
}

}  // namespace fastslow::train
