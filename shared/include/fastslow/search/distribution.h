// How a study draws one parameter (Optuna's distributions): a list of
// choices, or an integer or float range, optionally on a log scale. The
// search space (native/search/space.h) samples from it; trials.jsonl carries
// it with every trial, so the page plots a parameter on the scale it was
// searched on instead of guessing from the values.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fastslow::search {

enum class ParamKind { Categorical, Int, Float };

struct Distribution {
  ParamKind kind = ParamKind::Float;
  std::vector<nlohmann::json> choices;  // categorical
  double low = 0, high = 0;             // int and float, inclusive
  bool log = false;

  // {"type": "categorical", "choices": [...]} or {"type": "int" | "float",
  // "low", "high", "log"}.
  nlohmann::json to_json() const;
  // Throws Error naming `what` on anything else (a range with low > high, a
  // log range reaching 0, no choices).
  static Distribution from_json(const nlohmann::json& j, const std::string& what);
};

}  // namespace fastslow::search
