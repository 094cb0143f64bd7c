#include "train/callbacks.h"

namespace fastslow::train {

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::Finished: return "all epochs";
    case StopReason::EarlyStopped: return "early stopping";
    case StopReason::Interrupted: return "interrupted";
    case StopReason::Diverged: return "diverged";
    case StopReason::Pruned: return "pruned";
  }
  return "?";
}

Verdict EarlyStopping::judge(const TrainState& s) const {
  if (patience_ > 0 && s.bad_epochs >= patience_) return StopReason::EarlyStopped;
  return std::nullopt;
}

Verdict HooksCallback::stop_asked() const {
  if (h_.stop && h_.stop()) return StopReason::Interrupted;
  return std::nullopt;
}

void HooksCallback::on_message(const std::string& s) {
  if (h_.message) h_.message(s);
}

void HooksCallback::on_epoch_begin(int64_t epoch, int64_t epochs, int64_t steps) {
  if (h_.epoch_begin) h_.epoch_begin(epoch, epochs, steps);
}

Verdict HooksCallback::on_step(const StepInfo& s) {
  if (h_.step) h_.step(s);
  return stop_asked();
}

Verdict HooksCallback::on_validation_progress(size_t done, size_t total, const std::string& graph) {
  if (h_.validate) h_.validate(done, total, graph);
  return done == 0 ? std::nullopt : stop_asked();
}

Verdict HooksCallback::on_validation(const ValidationInfo& v) {
  if (h_.epoch_end) h_.epoch_end(v.line);
  return std::nullopt;
}

}  // namespace fastslow::train
