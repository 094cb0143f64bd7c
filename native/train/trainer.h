// The training loop (AdamW, cosine schedule with warm-up, gradient clipping,
// early stopping on the validation score, best checkpoint, resume) and the
// loading of a finished run for evaluation and prediction.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "models/model.h"
#include "train/dataset.h"
#include "train/evaluate.h"
#include "train/options.h"

namespace fastslow::train {

struct StepInfo {
  int64_t epoch, step, steps;  // step within the epoch, steps per epoch
  double loss;                 // this step's
  double lr;
};

struct TrainHooks {
  std::function<bool()> stop;  // checked after every step: true = save and return
  std::function<void(const std::string&)> message;
  std::function<void(int64_t epoch, int64_t epochs, int64_t steps)> epoch_begin;
  std::function<void(const StepInfo&)> step;
  std::function<void(const nlohmann::json& log_line)> epoch_end;
  // Progress of long preparation (caching graphs): done, total.
  std::function<void(size_t, size_t, const std::string&)> prepare;
  // Progress of each epoch's validation: graphs done (0 before the first),
  // total, the last one.
  // `stop` is also checked between validation graphs.
  std::function<void(size_t, size_t, const std::string&)> validate;
};

struct TrainResult {
  bool interrupted = false;
  int64_t epochs_done = 0;
  int64_t best_epoch = -1;
  double best_score = 0;
  std::string stop_reason;  // "epochs" | "early stopping" | "interrupted"
};

// Fresh run: `options.out` must not hold a run yet. Resume: the options are
// read from the run folder; only `epochs` may be raised (`epochs_override` > 0).
TrainResult train(TrainOptions options, const TrainHooks& hooks = {});
TrainResult resume(const std::string& run, int64_t epochs_override, const TrainHooks& hooks = {});

torch::Device pick_device(const std::string& name);

// A run ready to rank graphs with its best model.
struct LoadedRun {
  TrainOptions options;
  Normalizer norm;
  models::ModelOptions model_options;
  models::RankModel model;
  torch::Device device = torch::kCPU;
  GraphKind kind() const { return options.kind == "tile" ? GraphKind::Tile : GraphKind::Layout; }
  std::string cache_dir() const;
};
LoadedRun load_run(const std::string& run, const std::string& device = "auto");

// The graphs of a split ("train", "valid", "test"; per-program runs also have
// "holdout", which "valid" means there), cached and ready to rank.
std::vector<GraphEntry> load_split(const LoadedRun& run, const std::string& split,
                                   const std::function<void(size_t, size_t, const std::string&)>& progress = {});

}  // namespace fastslow::train
