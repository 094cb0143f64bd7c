// Spaces and a function-backed TrialRunner for the search tests: studies
// that run in milliseconds, with objectives whose optimum is known.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "search/space.h"
#include "search/study.h"

namespace fastslow::search::search_testing {

inline Param float_param(const std::string& name, double low, double high, bool log = false) {
  Param p;
  p.name = name;
  p.kind = ParamKind::Float;
  p.low = low;
  p.high = high;
  p.log = log;
  return p;
}

inline Param int_param(const std::string& name, int64_t low, int64_t high, bool log = false) {
  Param p = float_param(name, static_cast<double>(low), static_cast<double>(high), log);
  p.kind = ParamKind::Int;
  return p;
}

inline Param choice_param(const std::string& name, std::vector<nlohmann::json> choices) {
  Param p;
  p.name = name;
  p.kind = ParamKind::Categorical;
  p.choices = std::move(choices);
  return p;
}

// Objectives from the params; the score (first objective) is reported at
// each checkpoint as value * k / checkpoints, as a run that improves
// steadily would.
class FunctionRunner : public TrialRunner {
 public:
  using Fn = std::function<std::map<std::string, double>(const nlohmann::json&)>;
  FunctionRunner(Fn fn, std::string score, int64_t checkpoints = 1)
      : fn_(std::move(fn)), score_(std::move(score)), checkpoints_(checkpoints) {}
  TrialOutcome run(TrialContext& t) override {
    ++calls;
    if (before) before(t);
    TrialOutcome o;
    const auto obj = fn_(t.params);
    for (int64_t k = 1; k <= checkpoints_; ++k) {
      if (t.report && t.report(k, obj.at(score_) * static_cast<double>(k) / static_cast<double>(checkpoints_))) {
        o.state = TrialState::Pruned;
        return o;
      }
    }
    o.objectives = obj;
    return o;
  }
  int64_t checkpoints() const override { return checkpoints_; }
  std::function<void(TrialContext&)> before;  // e.g. throw, or create the run folder
  int calls = 0;

 private:
  Fn fn_;
  std::string score_;
  int64_t checkpoints_;
};

}  // namespace fastslow::search::search_testing
