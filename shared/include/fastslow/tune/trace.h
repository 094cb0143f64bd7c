// An autotuning session as it happened: which config was measured in which
// round and what it took, and what a TPU owner counts of it. The time spent
// measuring is the sum of the measured configs' runtimes (each measured
// once), the way a session on real hardware pays for it.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace fastslow {

struct TuneStep {
  int64_t candidate = 0;  // index into the session's candidates (a file's unique configs)
  double runtime = 0;     // ns, as measured
  int64_t round = 0;      // 0 = the starting batch
};

struct TuneTrace {
  std::vector<TuneStep> steps;  // in the order measured
  int64_t rounds() const { return steps.empty() ? 0 : steps.back().round + 1; }
  std::vector<char> measured_mask(int64_t candidates) const;
};

struct TraceSummary {
  double best = 0;                        // best runtime measured
  int64_t to_target = -1;                 // measurements up to and with the first within `target` of the best; -1: none
  double time_to_target = -1;             // the runtime those took, ns; -1: never reached
  double time_total = 0;                  // runtime of every measurement, ns
  std::vector<double> best_after_round;   // best measured after each round
  std::vector<double> time_after_round;   // measuring time spent after each round, ns
  std::vector<int64_t> tail_per_round;    // configs measured in each round more than `tail` slower than the best
};

// `best`: the true best runtime (of every candidate); target: within
// target * best of it (0.001 = 0.1 %); tail: slower than (1 + tail) * best.
TraceSummary summarize_trace(const TuneTrace& trace, double best, double target = 0.001, double tail = 0.05);

nlohmann::json trace_json(const TuneTrace& trace);
// Error naming `what` on a malformed list (what tune.json holds).
TuneTrace trace_from_json(const nlohmann::json& j, const char* what);

}  // namespace fastslow
