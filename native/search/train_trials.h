// The TrialRunner of `fastslow search`: each trial an ordinary training run
// in the study's trials/N/ (so eval, export and the page read it as any
// run), with the study's [data] and [train] options, the trial's
// parameters, and the budget as epochs of fixed steps (one validation per
// checkpoint, which the pruner judges). Data prepared for one trial is
// kept for the next that reads the same inputs.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "search/search_config.h"
#include "search/study.h"
#include "train/callbacks.h"
#include "train/options.h"
#include "train/prepared_data.h"

namespace fastslow::search {

class TrainTrialRunner : public TrialRunner {
 public:
  // `threads`: LibTorch threads per trial (0 = its default); `measure_alone`:
  // trials run one at a time, so latency may switch to latency.threads.
  TrainTrialRunner(SearchConfig config, int threads, bool measure_alone, train::Callbacks callbacks = {});

  // The options of a trial with these parameters, resolved (Error naming
  // the parameter when a value makes no sense).
  train::TrainOptions trial_options(const nlohmann::json& params, const std::string& dir) const;
  // Resolves the options at the corners of the space (every choice, each
  // range's ends) before any trial, so a bad value fails the study at once.
  void check_space() const;

  TrialOutcome run(TrialContext& trial) override;
  int64_t checkpoints() const override { return config_.budget.validations(); }

 private:
  std::shared_ptr<const train::PreparedData> data_for(const train::TrainOptions& o);
  std::map<std::string, double> measure(const std::string& run_dir, const train::PreparedData& data);

  SearchConfig config_;
  int threads_;
  bool measure_alone_;
  train::Callbacks callbacks_;
  std::mutex mu_;  // the data cache; latency measured one trial at a time
  std::mutex measure_mu_;
  std::map<std::string, std::shared_ptr<const train::PreparedData>> data_;
};

}  // namespace fastslow::search
