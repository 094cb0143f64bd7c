// One optimizer step from the picks of one process, with its bookkeeping
// kept on the device: each pick's configs are read on the host and copied
// over without waiting, each forward and backward accumulates gradients,
// then the gradient sync, clipping, the decision to skip a non-finite step
// and the AdamW update (FlatAdamW) run without reading anything back. The
// loss sum, the skipped steps and the skips in a row are device counters
// the Trainer reads when it needs them (every step on the CPU, where a read
// costs nothing; every few steps and at the epoch's end on a GPU). On a
// GPU, with one process and a replayable step, the device work is
// replayed as CUDA graphs (step_graphs.h).
#pragma once

#include <torch/torch.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/model.h"
#include "train/flat_adamw.h"
#include "train/gradient_sync.h"
#include "train/prepared_data.h"
#include "train/sampler.h"
#include "train/step_graphs.h"
#include "train/train_step.h"

namespace fastslow::train {

// What the device counters hold, read back.
struct StepTotals {
  double loss_sum = 0;          // applied steps' losses since the epoch began
  int64_t skipped = 0;          // steps skipped since the epoch began
  int64_t skipped_in_a_row = 0;
  double last_loss = 0;         // the latest step's (NaN when it was not finite)
};

struct StepEngineOptions {
  double clip = 0;          // global gradient norm; 0 = no clipping
  double lr = 1e-3;         // the optimizer's starting rate (set_lr() sets each step's)
  double weight_decay = 0;
  bool cuda_graphs = true;  // replay steps as CUDA graphs where they can be
};

class StepEngine {
 public:
  // `trained` become views of the optimizer's flat buffer (flat_adamw.h).
  StepEngine(models::RankModelImpl& model, const std::vector<torch::Tensor>& trained, TrainStep& step,
             GradientSync& sync, const torch::Device& device, const StepEngineOptions& options, const Say& say);

  FlatAdamW& optimizer() { return *opt_; }
  // One step: `picks` are this process's micro-steps (their gradients
  // summed, then averaged), at learning rate `lr`.
  void run(const std::vector<Pick>& picks, const PreparedData& data, double lr);
  // The counters, read from the device (waits for the queued steps).
  StepTotals read() const;
  // The counters of a new epoch (or of a resumed one: its saved sums).
  void start_epoch(double loss_sum = 0, int64_t skipped = 0);
  // Whether a read costs nothing (the CPU), so the trainer may read every step.
  bool reads_are_free() const { return device_.is_cpu(); }
  std::string summary() const { return graphs_->summary(); }

 private:
  // The fixed input buffers of one replayed forward/backward piece.
  Batch& fixed_batch(const std::string& key, const Batch& like);
  void update(int64_t micro);

  models::RankModelImpl& model_;
  std::vector<torch::Tensor> trained_;
  TrainStep& step_;
  GradientSync& sync_;
  torch::Device device_;
  StepEngineOptions options_;
  std::unique_ptr<FlatAdamW> opt_;
  std::unique_ptr<StepGraphs> graphs_;
  bool replay_ = false;
  std::map<std::string, Batch> fixed_;
  // Device scalars: this step's summed loss, and the epoch's counters.
  torch::Tensor step_loss_, loss_sum_, skipped_, in_a_row_, last_loss_;
};

}  // namespace fastslow::train
