// Several runs from one `train` command: K folds of cross-validation into
// OUT/fold-I/, or N members differing only in seed into OUT/seed-I/ (an
// ensemble's members, `fastslow ensemble`). Each member is an ordinary run
// folder. OUT/runs.json records the plan, so `--resume --out OUT` goes on
// with the member that was cut and the ones after it. When every fold has
// finished, OUT/oof.json holds the out-of-fold score: each graph (or, for
// one graph, each fold's configs) scored by the fold that never trained on it.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "train/callbacks.h"
#include "train/options.h"
#include "train/trainer.h"

namespace fastslow::train {

struct ManyRuns {
  std::string mode;  // "folds" | "seeds"
  int count = 0;     // K folds or N seeds
  std::optional<int> only;  // one fold (--fold I) of the K
};

// Says, before each member, which it is ("fold 2/5: OUT/fold-1").
using MemberHook = std::function<void(int index, int count, const std::string& dir)>;

struct ManyResult {
  TrainResult last;                   // the member that stopped the loop, or the last one
  std::vector<std::string> members;   // run folders trained or resumed, in order
  std::vector<TrainResult> results;   // aligned with members
  std::optional<nlohmann::json> oof;  // written when every fold has finished
};

// Whether OUT holds a runs.json.
bool is_many(const std::string& out);
std::string member_dir(const std::string& out, const std::string& mode, int index);

// Fresh: OUT must not hold runs.json or a run. Throws Error on --folds
// with --seeds, on counts below 2, on --fold outside [0, K).
ManyResult train_many(TrainOptions o, const ManyRuns& plan, const Callbacks& callbacks = {},
                      const MemberHook& member = {});
// Continues OUT's plan: members with a run folder are resumed (finished
// ones return at once), the others start. `only` narrows a folds plan to
// one fold.
ManyResult resume_many(const std::string& out, std::optional<int64_t> epochs, std::optional<int> only,
                       const Callbacks& callbacks = {}, const MemberHook& member = {});

// From the folds' metrics.json (their best epoch's validation): every
// graph's metrics with its fold, the pooled score (per collection and
// their mean for several sources), and the folds' scores with their mean,
// standard deviation, min and max. nullopt while a fold has no metrics.json.
std::optional<nlohmann::json> out_of_fold(const std::string& out);

}  // namespace fastslow::train
