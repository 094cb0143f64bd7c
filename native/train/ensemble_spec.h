// An ensemble folder (`fastslow ensemble RUN... -o ENS`): ensemble.json
// names the member runs and how their scores combine. eval, predict and
// export accept the folder wherever they accept a run.
//
//   {"format": 1, "kind": "layout", "combine": "mean" | "rank" | "weighted",
//    "members": [{"run": "../runs/seed-0", "weight": 0.2, "scale": 1.3,
//                 "valid_score": 0.61}, ...],
//    "fitted_on": {"split": "valid", "graphs": 3, "score": 0.64}}
//
// Member paths are stored relative to the ensemble folder (moving both
// together keeps it valid) and read back resolved. Weights are
// non-negative and sum to 1 (1/M for mean and rank). A member's scale is
// the spread of its scores within one graph (the population standard
// deviation over a graph's ranked configs, averaged over the graphs the
// ensemble was built on): an exported model sees a chunk of configs at a
// time, never a whole graph, so it standardises by this fixed scale where
// the native ranking standardises per graph.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fastslow::train {

enum class Combine { Mean, Rank, Weighted };
const char* combine_name(Combine c);
// Throws Error listing the choices.
Combine parse_combine(const std::string& name);

struct EnsembleMember {
  std::string run;  // the member's run folder, resolved
  double weight = 0;
  double scale = 1;
  double valid_score = 0;  // NaN when unknown
};

struct EnsembleSpec {
  static constexpr int kFormatVersion = 1;
  std::string kind;  // "tile" | "layout"
  Combine combine = Combine::Mean;
  std::vector<EnsembleMember> members;
  nlohmann::json fitted_on = nlohmann::json::object();

  // Whether `dir` holds an ensemble.json (rather than a run).
  static bool is_ensemble(const std::string& dir);
  // Throws Error naming the file on a malformed spec, an unknown format,
  // no members, negative weights or weights not summing to 1.
  static EnsembleSpec read(const std::string& dir);
  void write(const std::string& dir) const;
};

}  // namespace fastslow::train
