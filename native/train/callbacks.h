// What watches a training run from outside the loop: progress display,
// Ctrl-C, early stopping, and (for search trials) pruning; the one way to
// watch a run (its preparation included). Each callback may stop the run
// after a step, between validation graphs or after a validation, by naming
// a reason; the run then saves where it is and returns that reason.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fastslow/rank/metrics.h"
#include "train/train_state.h"

namespace fastslow::train {

// Where processes must agree on one reason, the greatest in this order wins
// (GradientSync::agree).
enum class StopReason {
  Finished,      // every epoch ran
  EarlyStopped,  // no better validation score for --patience epochs
  Interrupted,   // asked to stop (Ctrl-C); --resume continues
  Diverged,      // too many non-finite steps in a row; TrainResult::message says more
  Pruned,        // a callback judged the run not worth finishing (search trials)
};
// "all epochs", "early stopping", "interrupted", "diverged", "pruned".
const char* stop_reason_name(StopReason reason);

struct StepInfo {
  int64_t epoch, step, steps;  // step within the epoch, steps per epoch
  // The latest loss read back from the device: this step's on the CPU, up
  // to a few steps old on a GPU (NaN before the first read).
  double loss;
  double lr;
};

// An epoch's validation, typed (the log line holds the same).
struct EpochResult {
  int64_t epoch = 0;                 // -1: before any step (a per-program run's table alone)
  std::optional<double> train_loss;  // none before any step
  double score = 0;                  // what the run keeps the best of
  bool best = false;                 // a new best, saved as best.pt
  CollectionMetrics valid;           // mean metrics over the validated graphs
  struct Collection {
    std::string label;
    double score;
    int64_t graphs;
  };
  std::vector<Collection> collections;  // runs over several collections: each one's
};

struct ValidationInfo {
  int64_t epoch;            // -1: before any step (a per-program run's table)
  const EpochResult& result;
  nlohmann::json line;      // the epoch's log.jsonl line
  double score;             // this validation's
  bool improved;            // a new best, saved as best.pt
  const TrainState& state;  // after it (best score, bad epochs)
};

using Verdict = std::optional<StopReason>;  // nullopt: go on

class Callback {
 public:
  virtual ~Callback() = default;
  // Before the first step, with the state restored: a run already stopped
  // for good (early stopping) stays stopped when resumed.
  virtual Verdict on_start(const TrainState&) { return std::nullopt; }
  virtual void on_message(const std::string&) {}
  // Progress of the data's preparation (caching graphs): done, total, the file.
  virtual void on_prepare(size_t /*done*/, size_t /*total*/, const std::string& /*file*/) {}
  virtual void on_epoch_begin(int64_t /*epoch*/, int64_t /*epochs*/, int64_t /*steps*/) {}
  virtual Verdict on_step(const StepInfo&) { return std::nullopt; }
  // done = 0 before the first graph (stopping is not asked then).
  virtual Verdict on_validation_progress(size_t /*done*/, size_t /*total*/, const std::string& /*graph*/) {
    return std::nullopt;
  }
  virtual Verdict on_validation(const ValidationInfo&) { return std::nullopt; }
};

class EarlyStopping : public Callback {
 public:
  explicit EarlyStopping(int64_t patience) : patience_(patience) {}  // 0 = never
  Verdict on_start(const TrainState& s) override { return judge(s); }
  Verdict on_validation(const ValidationInfo& v) override { return judge(v.state); }

 private:
  Verdict judge(const TrainState& s) const;
  int64_t patience_;
};

using Callbacks = std::vector<std::shared_ptr<Callback>>;

// Stops the run (Interrupted) after the step or validation graph where
// `asked` returns true: Ctrl-C, a study's stop, a test's cut.
class StopWhen : public Callback {
 public:
  explicit StopWhen(std::function<bool()> asked) : asked_(std::move(asked)) {}
  Verdict on_step(const StepInfo&) override { return check(); }
  Verdict on_validation_progress(size_t done, size_t, const std::string&) override {
    return done == 0 ? std::nullopt : check();
  }

 private:
  Verdict check() const { return asked_ && asked_() ? Verdict(StopReason::Interrupted) : std::nullopt; }
  std::function<bool()> asked_;
};

// Every callback's on_message, and on_prepare as one function (what data
// preparation reports to).
void tell(const Callbacks& callbacks, const std::string& message);
std::function<void(size_t, size_t, const std::string&)> preparation_progress(const Callbacks& callbacks);
std::function<void(const std::string&)> messages(const Callbacks& callbacks);

}  // namespace fastslow::train
