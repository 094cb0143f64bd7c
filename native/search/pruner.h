// Pruners: at each checkpoint of a trial's budget (its validations), judge
// from the intermediate scores of the trials before it whether it is
// clearly worse and should stop. As Optuna's, they judge one objective:
// the validation score, in its direction. A trial's last checkpoint is
// never judged (it is done anyway).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fastslow/search/trials.h"

namespace fastslow::search {

struct PrunerSettings {
  std::string name = "median";  // none | median | halving
  int startup = 5;    // median: complete trials before pruning starts
  int warmup = 0;     // median: checkpoints (1-based) up to this one are never judged
  int reduction = 3;  // halving: a trial continues past rung k in the best 1/reduction of those that reached it
};

class Pruner {
 public:
  virtual ~Pruner() = default;
  // `running`: the trial so far (intermediate holds its checkpoints);
  // `finished`: every finished trial. `last`: the budget's checkpoints.
  virtual bool prune(const Trial& running, const std::vector<Trial>& finished, Direction direction,
                     int64_t last) const = 0;
  // Why, for the trial's message ("below the median ... at checkpoint 2").
  virtual std::string why(const Trial& running) const = 0;
};

// Throws Error on an unknown name or settings out of range; "none" gives nullptr.
std::unique_ptr<Pruner> make_pruner(const PrunerSettings& s);

}  // namespace fastslow::search
