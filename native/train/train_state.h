// Where a run is, saved inside the checkpoint last.pt (and as state.json
// beside it, to read) after every epoch and on Ctrl-C: what `--resume`
// restores before going on.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

namespace fastslow::train {

struct TrainState {
  int64_t epoch = 0;       // the epoch the loop is in (0-based)
  int64_t step = 0;        // the next step of that epoch; == steps: its validation is next
  double loss_sum = 0;     // over this epoch's applied steps
  int64_t skipped = 0;     // this epoch's skipped (non-finite) steps
  int64_t bad_epochs = 0;  // validations in a row without a better score
  int64_t best_epoch = -1;  // -1: none yet (or a per-program run's table before any step)
  double best_score = -std::numeric_limits<double>::infinity();
  // The model was validated before any step (Trainer::validate_first: a
  // per-program run's fitted table, logged as epoch -1). States written
  // before it was kept read true: their runs never validate it again.
  bool pre_validated = false;

  nlohmann::json to_json() const;
  // Throws Error naming `what` on a malformed state.
  static TrainState from_json(const nlohmann::json& j, const std::string& what);
};

}  // namespace fastslow::train
