#include "train/train_state.h"

#include <cmath>

#include "fastslow/error.h"

namespace fastslow::train {

nlohmann::json TrainState::to_json() const {
  return {{"epoch", epoch},           {"step", step},
          {"loss_sum", loss_sum},     {"skipped", skipped},
          {"bad_epochs", bad_epochs}, {"best_epoch", best_epoch},
          {"best_score", std::isfinite(best_score) ? nlohmann::json(best_score) : nlohmann::json(nullptr)},
          {"pre_validated", pre_validated}};
}

TrainState TrainState::from_json(const nlohmann::json& j, const std::string& what) {
  TrainState s;
  try {
    s.epoch = j.at("epoch");
    s.step = j.at("step");
    s.loss_sum = j.at("loss_sum");
    s.skipped = j.value("skipped", int64_t{0});  // states written before it was kept
    s.bad_epochs = j.at("bad_epochs");
    s.best_epoch = j.at("best_epoch");
    if (!j.at("best_score").is_null()) s.best_score = j.at("best_score");
    s.pre_validated = j.value("pre_validated", true);
  } catch (const nlohmann::json::exception& e) {
    throw Error(what, "", std::string("malformed training state: ") + e.what());
  }
  return s;
}

}  // namespace fastslow::train
