// The study file, SEARCH.toml:
//   [data]        as `train` takes it: data, collection (each a string or
//                 a list), or graph with holdout and valid_share
//   [train]       train options fixed for every trial (optional)
//   [space]       the train options varied: a list (categorical), or
//                 { low, high, log } (integers when both are integers)
//   [objectives]  name = "maximize" | "minimize" for score (validation
//                 score, required), latency (ms per 1,000 configs with
//                 LibTorch on a fixed graph), params (parameter count),
//                 onnx_bytes (the exported model's size)
//   [search]      sampler, trials, seed, the sampler's settings (grid_points,
//                 startup, candidates, prior_weight, population, crossover,
//                 mutation), pruner, reference = { objective = value }
//   [pruner]      startup, warmup, reduction (optional)
//   [budget]      steps (with checkpoints, default 4) or epochs per trial
//   [latency]     configs (1000), repeats (5), threads (1) (optional)
//   [precision]   run = "RUN": a precision study instead (precision_trials.h):
//                 no [data], [train], [space], [budget] or [latency]; the
//                 space is the run's weight tensors; objectives score and
//                 onnx_bytes
// Unknown tables and keys are refused, so a typo never passes silently.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fastslow/search/trials.h"
#include "search/pruner.h"
#include "search/search_sampler.h"
#include "search/space.h"

namespace fastslow::search {

struct Budget {
  std::optional<int64_t> steps, epochs;  // exactly one
  int64_t checkpoints = 4;               // steps: validations along the way (pruning points)
  // Validations per trial: the epochs, or the checkpoints.
  int64_t validations() const { return epochs ? *epochs : checkpoints; }
};

struct LatencySettings {
  int64_t configs = 1000;
  int repeats = 5;
  int threads = 1;  // the page ranks on one thread
};

struct SearchConfig {
  nlohmann::json train = nlohmann::json::object();  // [data] and [train] as TrainOptions JSON keys
  Space space;
  std::vector<Objective> objectives;  // score first, then latency, params, onnx_bytes as given
  SamplerChoice sampler;
  PrunerSettings pruner;
  int64_t trials = 30;
  Budget budget;
  std::optional<std::vector<double>> reference;  // aligned with objectives
  LatencySettings latency;
  std::string precision_run;  // [precision] run: a precision study's run ("" for a training study)

  // Everything, for checking that --resume continues the same study.
  nlohmann::json to_json() const;
};

// Throws Error naming `what` (and the line, for TOML syntax errors) on
// anything malformed or unknown.
SearchConfig parse_search_config(const std::string& toml_text, const std::string& what);
SearchConfig read_search_config(const std::string& path);

// The train option names a study may vary or fix (the model, the loss, the
// optimiser, the pruning of graphs), with dashes accepted for underscores.
const std::vector<std::string>& searchable_options();  // train/option_table.h's searchable keys

}  // namespace fastslow::search
