// Training: the Trainer runs the loop over prepared data (AdamW, cosine
// schedule with warm-up, gradient clipping, validation after every epoch,
// best checkpoint, resume; each step's device work in step_engine.h), with
// its seams set from outside:
//   - the data (prepared_data.h), prepared once and reusable across runs;
//   - the Sampler (sampler.h): which graph and configs each step sees;
//   - the TrainStep (train_step.h): one step's forward and backward;
//   - the GradientSync (gradient_sync.h): between backward and clipping,
//     and the shared decision to skip a non-finite step;
//   - Callbacks (callbacks.h): progress, Ctrl-C, early stopping, pruning;
//   - the RunDir (run_dir.h), which writes only in the process that owns
//     the run folder.
// train() and resume() assemble the default trainer from TrainOptions;
// run_prepared() does the same over data prepared once (folds, seeds and
// trials share it).
#pragma once

#include <torch/torch.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/model.h"
#include "train/evaluate.h"
#include "train/callbacks.h"
#include "train/gradient_sync.h"
#include "train/options.h"
#include "train/prepared_data.h"
#include "train/run_dir.h"
#include "train/sampler.h"
#include "train/train_state.h"
#include "train/step_engine.h"
#include "train/train_step.h"

namespace fastslow::train {

struct TrainResult {
  StopReason reason = StopReason::Finished;
  std::string message;  // why, when the reason is Diverged
  int64_t epochs_done = 0;
  int64_t best_epoch = -1;
  double best_score = 0;
  bool interrupted() const { return reason == StopReason::Interrupted; }
};

class Trainer {
 public:
  // `options` must have its defaults applied (Error naming the run folder
  // otherwise). Defaults: default_sampler (sampler.h), WholeGraphStep, a
  // GradientSync that does nothing.
  Trainer(TrainOptions options, std::shared_ptr<const PreparedData> data, models::RankModel model, RunDir run,
          torch::Device device);
  void set_sampler(std::unique_ptr<Sampler> sampler) { sampler_ = std::move(sampler); }
  void set_step(std::unique_ptr<TrainStep> step) { step_ = std::move(step); }
  void set_gradient_sync(std::shared_ptr<GradientSync> sync) { sync_ = std::move(sync); }
  void add_callback(std::shared_ptr<Callback> callback) { callbacks_.push_back(std::move(callback)); }
  // Validate (and keep as best) the model before any step: a per-program
  // run's fitted table is a model already, logged as epoch -1. Done once
  // per run (TrainState::pre_validated), also when a resume finds it cut.
  void validate_first() { validate_first_ = true; }

  // Starts from last.pt (and the state saved in it) when the run folder has it, else
  // from the model as given.
  TrainResult run();

 private:
  Verdict validate_and_log(int64_t epoch, double train_loss, std::chrono::steady_clock::time_point t0);
  void save_state();
  TrainResult finish(StopReason reason, std::string message = "");
  void say(const std::string& s);
  // How much an epoch must beat the best by to replace it (trainer.cpp).
  double noise_margin(const std::vector<GraphResult>& results) const;
  template <class F>
  Verdict ask(F&& f);  // the first callback's verdict

  TrainOptions o_;
  std::shared_ptr<const PreparedData> data_;
  models::RankModel model_;
  RunDir run_;
  torch::Device device_;
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<TrainStep> step_;
  std::shared_ptr<GradientSync> sync_;
  std::vector<std::shared_ptr<Callback>> callbacks_;
  bool validate_first_ = false;

  // Validation results of the valid graphs this process ranks (every
  // world_size-th), gathered from all processes; nullopt when a callback
  // cut it (one process only: with several, every graph is finished).
  std::optional<std::vector<GraphResult>> validate_shared(Verdict& stop);

  // The epoch's sums (loss, skipped steps) from the engine's device counters.
  void take_totals();

  std::unique_ptr<StepEngine> engine_;
  TrainState st_;
  int64_t steps_ = 0, total_steps_ = 0, warmup_steps_ = 0;
  // Each step averages the gradients of graphs_per_step graphs: this
  // process's `micro_` in a row (accumulated), then the other processes'.
  int64_t graphs_per_step_ = 1, micro_ = 1;
  std::pair<double, double> epoch_timing_{0, 0};  // the last epoch's steps and all-reduce, seconds
  std::pair<int64_t, int64_t> steps_memory_{0, 0};  // the last epoch's resident bytes before its steps, and the peak
};

// Fresh run: `options.out` must not hold a run yet. Resume: the options are
// read from the run folder; only the epochs may be changed. `callbacks`
// watch the run (its preparation too) beside early stopping.
// Both set this process's threads and allocator (process.h) from the options.
// With `sync` (gloo_sync.h) the run is one process of a data-parallel run:
// every process calls train() or resume() with the same arguments.
TrainResult train(TrainOptions options, const Callbacks& callbacks = {}, std::shared_ptr<GradientSync> sync = nullptr);
TrainResult resume(const std::string& run, std::optional<int64_t> epochs = std::nullopt,
                   const Callbacks& callbacks = {}, std::shared_ptr<GradientSync> sync = nullptr);

// A fresh run's options checked and completed: the kind from the data,
// defaults applied, combinations that make no sense refused (Error), the
// cache folder fixed. train() starts with it; drivers of several runs
// (many_runs.h) check every member's before the first trains.
TrainOptions resolve_options(TrainOptions o);
// The inputs (data roots, graph, cache) as absolute paths: a run folder is
// read from wherever eval, ensemble or export run (run_files.h also stores
// them relative to the run, for runs moved with their data).
void make_inputs_absolute(TrainOptions& o);

// The options a fresh run takes from its data: config width, wide nodes,
// tiling features.
void complete_options(TrainOptions& o, const PreparedData& data);
// What a run folder holds before its first step: stats.json, config.json
// (completed with what the data decided: config width, wide nodes, tiling
// features) and profile.json. A folder with a config.json (a resumed run)
// keeps its stats and config.
void write_run_header(const RunDir& run, TrainOptions& o, const PreparedData& data);
// The default trainer over prepared data, in the run folder o.out (its
// header written): the model built with o.seed (a per-program model's table
// fitted unless there is a state to resume from), `callbacks` and early
// stopping, `sync` between processes (the process of rank 0 writes the run
// folder). Resumes where the folder has a last.pt.
TrainResult run_prepared(TrainOptions o, std::shared_ptr<const PreparedData> data, std::shared_ptr<GradientSync> sync,
                         const Callbacks& callbacks = {});
// The files and group split of TrainOptions (a collection's train and valid
// files, or one graph split by --holdout and --valid-share).
DataSpec data_spec(const TrainOptions& o);

}  // namespace fastslow::train
