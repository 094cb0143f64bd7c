// Ranking with several runs at once: every member scores the same configs
// of a graph, and the scores are combined per graph (fastslow/rank/
// ensemble_combine.h) as the ensemble folder says (ensemble_spec.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "train/ensemble_spec.h"
#include "train/evaluate.h"
#include "train/loaded_run.h"

namespace fastslow::train {

struct LoadedEnsemble {
  EnsembleSpec spec;
  std::vector<LoadedRun> members;
  // Whether every member was trained and validated on the same split (not
  // folds): only then is "valid" unseen by all of them.
  bool same_split = true;
};

// Throws Error naming the member that cannot be loaded or does not fit the
// first one (kind, pruning, feature widths, per-program graph).
LoadedEnsemble load_ensemble(const std::string& dir, const std::string& device = "auto");

// Each graph of a split, as the first member defines it, and every
// member's scores of its ranked groups: scores[graph][member][group].
struct MemberScores {
  std::vector<GraphEntry> graphs;
  std::vector<std::vector<std::vector<double>>> scores;
};
MemberScores score_members(const std::vector<LoadedRun>& members, const std::string& split,
                           const Progress& progress = {},
                           const std::function<void(size_t done, size_t total)>& scored = {});

// One graph's combined scores (lower = faster).
std::vector<double> combine(Combine how, const std::vector<double>& weights,
                            const std::vector<std::vector<double>>& members);
// Rankings and metrics of every graph with the combined scores.
std::vector<GraphResult> combined_results(const MemberScores& s, Combine how, const std::vector<double>& weights);
// Each member alone, over the same graphs: results[member][graph].
std::vector<std::vector<GraphResult>> member_results(const MemberScores& s);

// `fastslow ensemble`: the members (run folders; a folder of `--folds` or
// `--seeds` runs stands for its members) checked, scored on the first
// member's valid split, their scales measured and, for Combine::Weighted,
// their weights fitted there to maximise the collection score.
EnsembleSpec build_ensemble(const std::vector<std::string>& runs, Combine how, const std::string& device = "auto",
                            const Progress& progress = {});

}  // namespace fastslow::train
