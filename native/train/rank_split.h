// What eval and predict rank: a split's graphs with a run's best model, or
// with an ensemble folder's members combined. One entry point, so every
// command that accepts a run accepts an ensemble.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "train/evaluate.h"
#include "train/options.h"
#include "train/prepared_data.h"

namespace fastslow::train {

struct SplitRanking {
  TrainOptions options;  // the run's (an ensemble's first member's)
  GraphKind kind = GraphKind::Layout;
  std::vector<GraphResult> results;
  int members = 1;  // > 1 for an ensemble
  std::string combine;  // an ensemble's combination, "" for a run
  // The split was seen in training by the run (a final fit) or by some
  // members (folds): its scores are not out-of-sample.
  bool in_sample = false;
  // Several collections: each graph's source and the labels (empty for one).
  std::vector<int> source;
  std::vector<std::string> labels;
};

// `graphs(done, total)` reports ranking progress (graph x member steps for
// an ensemble). Throws Error naming the folder when it holds neither a run
// nor an ensemble.
SplitRanking rank_split(const std::string& path, const std::string& split, const std::string& device,
                        const Progress& caching = {}, const std::function<void(size_t, size_t)>& graphs = {});

}  // namespace fastslow::train
