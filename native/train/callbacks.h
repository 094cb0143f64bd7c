// What watches a training run from outside the loop: progress display,
// Ctrl-C, early stopping, and (for search trials) pruning. Each callback
// may stop the run after a step, between validation graphs or after a
// validation, by naming a reason; the run then saves where it is and
// returns that reason.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

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

struct ValidationInfo {
  int64_t epoch;            // -1: before any step (a per-program run's table)
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

// The terminal's (or a test's) view of a run as plain functions; any left
// empty is skipped.
struct TrainHooks {
  std::function<bool()> stop;  // checked after every step and validation graph: true = save and return
  std::function<void(const std::string&)> message;
  std::function<void(int64_t epoch, int64_t epochs, int64_t steps)> epoch_begin;
  std::function<void(const StepInfo&)> step;
  std::function<void(const nlohmann::json& log_line)> epoch_end;
  // Progress of long preparation (caching graphs): done, total, the file.
  std::function<void(size_t, size_t, const std::string&)> prepare;
  // Progress of each epoch's validation: graphs done (0 before the first), total, the last one.
  std::function<void(size_t, size_t, const std::string&)> validate;
};

class HooksCallback : public Callback {
 public:
  explicit HooksCallback(TrainHooks hooks) : h_(std::move(hooks)) {}
  void on_message(const std::string& s) override;
  void on_epoch_begin(int64_t epoch, int64_t epochs, int64_t steps) override;
  Verdict on_step(const StepInfo& s) override;
  Verdict on_validation_progress(size_t done, size_t total, const std::string& graph) override;
  Verdict on_validation(const ValidationInfo& v) override;

 private:
  Verdict stop_asked() const;
  TrainHooks h_;
};

}  // namespace fastslow::train
