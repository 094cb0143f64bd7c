// A study: trials asked of a sampler, run by a TrialRunner (a training run,
// or a function in tests), judged by a pruner at each checkpoint, and
// recorded in the study folder:
//   trials.jsonl  every finished trial, appended as it ends
//                 (fastslow/search/trials.h);
//   running.json  trials started and not finished ({number: params}): an
//                 interrupted study resumes them first, with the same
//                 parameters (a training trial continues its run folder);
//   pareto.json   the non-dominated complete trials, the reference point
//                 and the hypervolume;
//   trials/N/     trial N's run folder (the runner's), removed once the
//                 trial is off the front unless keep_all.
// A trial that throws is recorded as failed with the message; the study
// goes on.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fastslow/search/trials.h"
#include "search/pruner.h"
#include "search/search_sampler.h"

namespace fastslow::search {

struct TrialContext {
  int64_t number = 0;
  nlohmann::json params;
  std::string dir;        // the trial's folder (study/trials/N), not created yet for a fresh trial
  bool resumed = false;   // started before an interruption: dir may hold its run
  // After each checkpoint's validation: records it; true = pruned, stop.
  std::function<bool(int64_t checkpoint, double value)> report;
  std::function<bool()> stop;  // Ctrl-C: true = stop and keep the trial for --resume
};

struct TrialOutcome {
  TrialState state = TrialState::Complete;
  std::map<std::string, double> objectives;
  std::string message;
  bool interrupted = false;  // not finished: stays in running.json
};

class TrialRunner {
 public:
  virtual ~TrialRunner() = default;
  virtual TrialOutcome run(TrialContext& trial) = 0;
  // Checkpoints of the budget (validations); the pruner never judges the last.
  virtual int64_t checkpoints() const = 0;
};

struct StudySettings {
  std::string out;  // the study folder
  std::vector<Objective> objectives;
  int64_t trials = 30;  // in all, counting those of earlier sessions
  bool keep_all = false;
  int parallel = 1;  // trials at once
  std::optional<std::vector<double>> reference;  // hypervolume's; default_reference() when absent
  // How each parameter is drawn (the space's), written with every trial.
  std::map<std::string, Distribution> distributions;
};

struct StudyHooks {
  std::function<void(int64_t number, const nlohmann::json& params, bool resumed)> trial_start;
  std::function<void(const Trial& trial, int64_t finished, int64_t total)> trial_end;
  std::function<bool()> stop;
  std::function<void(const std::string&)> message;
};

struct StudyResult {
  StudyFile study;            // every finished trial
  std::vector<size_t> front;  // indices into study.trials
  bool interrupted = false;
  bool exhausted = false;     // the sampler had nothing more to try
};

// Reads the study folder (nothing yet: an empty study with `objectives`).
// Throws Error naming the file on a broken trials.jsonl or running.json, or
// when the file's objectives are not `objectives`.
StudyFile load_study(const std::string& out, const std::vector<Objective>& objectives);

// Runs trials until settings.trials have finished, the sampler is
// exhausted or hooks.stop asks. Resumes what the folder holds.
StudyResult run_study(const StudySettings& settings, SearchSampler& sampler, const Pruner* pruner,
                      TrialRunner& runner, const StudyHooks& hooks = {});

// pareto.json's content for the study.
nlohmann::json pareto_json(const StudyFile& study, const std::optional<std::vector<double>>& reference);

}  // namespace fastslow::search
