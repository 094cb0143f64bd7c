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

void tell(const Callbacks& callbacks, const std::string& message) {
  for (const auto& c : callbacks) c->on_message(message);
}

std::function<void(size_t, size_t, const std::string&)> preparation_progress(const Callbacks& callbacks) {
  return [callbacks](size_t done, size_t total, const std::string& file) {
    for (const auto& c : callbacks) c->on_prepare(done, total, file);
  };
}

std::function<void(const std::string&)> messages(const Callbacks& callbacks) {
  return [callbacks](const std::string& m) { tell(callbacks, m); };
}

}  // namespace fastslow::train
