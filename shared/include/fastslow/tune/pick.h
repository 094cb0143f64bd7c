// What to measure next: an autotuning round's choice among the configs not
// measured yet, from a model's predicted cost (lower = faster) and its
// uncertainty. The strategy owns its settings (as an Optuna sampler does).
//   greedy    the predicted best (exploit);
//   epsilon   each pick the predicted best, or with probability epsilon a
//             random one (Ansor's and MetaSchedule's 5 % eps-greedy);
//   disagree  the lowest score - kappa * spread: configs the members of an
//             ensemble disagree on get a chance (a lower confidence bound);
//   random    uniform (the reference every strategy is measured against).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/rng.h"

namespace fastslow {

enum class PickStrategy { Greedy, Epsilon, Disagree, Random };

struct PickSettings {
  PickStrategy strategy = PickStrategy::Epsilon;
  double epsilon = 0.05;  // epsilon: chance that one pick is random
  double kappa = 1.0;     // disagree: weight of the spread, in the scores' units
};

// "greedy", "epsilon", "disagree", "random"; Error naming the choices otherwise.
PickStrategy parse_pick_strategy(const std::string& name);
const char* pick_strategy_name(PickStrategy s);

// `batch` distinct candidates with measured[i] == 0 (fewer when fewer are
// left), in the order picked. score and spread hold one value per
// candidate (spread may be empty: no uncertainty, disagree is greedy);
// non-finite scores rank last. Throws Error on size mismatches or batch < 1.
std::vector<int64_t> pick_batch(const std::vector<double>& score, const std::vector<double>& spread,
                                const std::vector<char>& measured, int64_t batch, const PickSettings& settings,
                                Rng& rng);

}  // namespace fastslow
