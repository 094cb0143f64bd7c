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
#include <string>
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
  // Makes `tensors` rank 0's everywhere (a run starts from one set of weights).
  virtual void broadcast(const std::vector<torch::Tensor>& /*tensors*/) {}
  // Every process's `local`, in rank order. Waits as long as the others are
  // alive, however long they take (validation shares differ in length);
  // throws Error when one stops answering for the timeout.
  virtual std::vector<std::string> all_gather(const std::string& local) { return {local}; }
  // The mean of `local` over the processes.
  virtual double mean(double local) { return local; }
  // Seconds spent in reduce() so far (the benchmark's all-reduce share).
  virtual double reduce_seconds() const { return 0; }
};

// Whether to apply this step: its loss and gradient norm finite on every
// process (a rare batch whose gradient overflows float32 is skipped rather
// than allowed to turn every weight into NaN).
inline bool step_is_finite(GradientSync& sync, double loss, double grad_norm) {
  return sync.all(std::isfinite(loss) && std::isfinite(grad_norm));
}

}  // namespace fastslow::train
