// Where a training step meets the other processes of a data-parallel run:
// between backward and clipping the gradients are made the same everywhere;
// whether a step is applied (its losses and gradient finite: a rare batch
// whose gradient overflows float32 is skipped rather than allowed to turn
// every weight into NaN) and whether the
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
  // Called before the backward pass whose gradients reduce() averages (a
  // step's last micro-step), with the parameters reduce() gets: a sync may
  // start averaging gradients while backward still produces the others.
  virtual void expect_gradients(const std::vector<torch::Tensor>& /*params*/) {}
  // Called after backward, before clipping, with every trained parameter
  // and whether this process's loss is finite (a bool scalar on the
  // device); returns whether every process's is, likewise. (The averaged
  // gradients are the same everywhere, so their norm's finiteness needs no
  // agreement.) One process agrees with itself without reading anything
  // back from the device.
  virtual torch::Tensor reduce(const std::vector<torch::Tensor>& /*params*/, const torch::Tensor& loss_finite) {
    return loss_finite;
  }
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

}  // namespace fastslow::train
