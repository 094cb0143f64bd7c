// A search space: the train options a study varies, each a list of choices
// or an integer or float range (optionally on a log scale). Samplers work
// in the unit cube and map each coordinate to a value here, so every
// sampler treats a parameter the same way.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fastslow/search/distribution.h"

namespace fastslow::search {

// A parameter: its name and how it is drawn (the core's Distribution, which
// trials.jsonl carries too).
struct Param : Distribution {
  std::string name;

  // u in [0, 1] to a value: a choice (u's share of the list), an integer
  // (equal shares, log-spaced when `log`), or a float (linear or log).
  nlohmann::json from_unit(double u) const;
  // The inverse: the middle of a choice's or an integer's share, a float's
  // position. Throws Error naming the parameter when the value is not in
  // the space.
  double to_unit(const nlohmann::json& value) const;
  // The values a grid tries: every choice; every integer when there are at
  // most `points`, else `points` of them evenly (log) spaced; `points`
  // floats from low to high.
  std::vector<nlohmann::json> grid(int points) const;
  // Categorical: the index of `value` in choices (-1: absent).
  int choice_index(const nlohmann::json& value) const;
};

struct Space {
  std::vector<Param> params;
  // {name: value} from one unit coordinate per parameter.
  nlohmann::json from_unit(const std::vector<double>& u) const;
  nlohmann::json to_json() const;
};

}  // namespace fastslow::search
