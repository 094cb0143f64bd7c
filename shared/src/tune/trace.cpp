#include "fastslow/tune/trace.h"

#include <algorithm>
#include <cmath>

#include "fastslow/error.h"

namespace fastslow {

std::vector<char> TuneTrace::measured_mask(int64_t candidates) const {
  std::vector<char> m(static_cast<size_t>(candidates), 0);
  for (const TuneStep& s : steps)
    if (s.candidate >= 0 && s.candidate < candidates) m[static_cast<size_t>(s.candidate)] = 1;
  return m;
}

TraceSummary summarize_trace(const TuneTrace& trace, double best, double target, double tail) {
  TraceSummary s;
  s.best = HUGE_VAL;
  const int64_t rounds = trace.rounds();
  s.best_after_round.assign(static_cast<size_t>(rounds), HUGE_VAL);
  s.time_after_round.assign(static_cast<size_t>(rounds), 0.0);
  s.tail_per_round.assign(static_cast<size_t>(rounds), 0);
  for (size_t i = 0; i < trace.steps.size(); ++i) {
    const TuneStep& t = trace.steps[i];
    s.time_total += t.runtime;
    s.best = std::min(s.best, t.runtime);
    if (s.to_target < 0 && t.runtime <= best * (1 + target)) {
      s.to_target = static_cast<int64_t>(i) + 1;
      s.time_to_target = s.time_total;
    }
    const auto r = static_cast<size_t>(t.round);
    s.best_after_round[r] = s.best;
    s.time_after_round[r] = s.time_total;
    if (t.runtime > best * (1 + tail)) ++s.tail_per_round[r];
  }
  for (size_t r = 1; r < s.best_after_round.size(); ++r) {  // a round with no measurement keeps what was before
    s.best_after_round[r] = std::min(s.best_after_round[r], s.best_after_round[r - 1]);
    s.time_after_round[r] = std::max(s.time_after_round[r], s.time_after_round[r - 1]);
  }
  return s;
}

nlohmann::json trace_json(const TuneTrace& trace) {
  nlohmann::json steps = nlohmann::json::array();
  for (const TuneStep& t : trace.steps) steps.push_back({{"candidate", t.candidate}, {"runtime", t.runtime}, {"round", t.round}});
  return steps;
}

TuneTrace trace_from_json(const nlohmann::json& j, const char* what) {
  if (!j.is_array()) throw Error(what, "", "measured: is not a list of measurements");
  TuneTrace t;
  int64_t last_round = 0;
  for (size_t i = 0; i < j.size(); ++i) {
    const nlohmann::json& e = j[i];
    const std::string at = "measurement " + std::to_string(i);
    if (!e.is_object() || !e.contains("candidate") || !e.contains("runtime") || !e.contains("round") ||
        !e["candidate"].is_number_integer() || !e["runtime"].is_number() || !e["round"].is_number_integer())
      throw Error(what, "", "measured: " + at + ": needs integer candidate and round and a numeric runtime");
    TuneStep s{e["candidate"].get<int64_t>(), e["runtime"].get<double>(), e["round"].get<int64_t>()};
    if (s.candidate < 0 || s.round < last_round || !(s.runtime > 0) || !std::isfinite(s.runtime))
      throw Error(what, "", "measured: " + at + ": candidate < 0, a round out of order, or a runtime that is not positive");
    last_round = s.round;
    t.steps.push_back(s);
  }
  return t;
}

}  // namespace fastslow
