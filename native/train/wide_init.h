// Fits a per-program model's wide table (models/layout_wide.h) in closed
// form before training: ridge regression of the standardised log runtime
// on the one-hot config values and whole rows of the training groups, its
// penalty chosen by Kendall tau on the valid groups (by 4-fold
// cross-validation inside the training groups when fewer than kFewValid
// validate: few measurements, where the rows of a few nodes picked by
// forward selection compete too). Training then starts
// from the linear fit (and never ranks worse than it on the valid share,
// since the trainer keeps the best epoch).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "models/layout_wide.h"
#include "train/dataset.h"

namespace fastslow::train {

// A node's share of the relevance ridge's prior variance, with the nodes
// (as the file numbers them) whose measured rows all changed together with
// its own: the measurements cannot tell them apart, so they count as one,
// their shares summed.
struct NodeRelevance {
  int64_t node = 0;
  double share = 0;
  std::vector<int64_t> moved_with = {};
};

struct WideFit {
  double lambda = 0;
  // Of the fitted table alone, on the valid groups (unique configs); with
  // few measurements, of its out-of-fold predictions (cross_validated), NaN
  // below 8 configs (too few for 4 folds of 2).
  double valid_kendall = 0;
  // Groups the fit read: the training groups (a sample on huge graphs);
  // with few measurements the valid ones too.
  int64_t rows_used = 0;
  int64_t features = 0;      // indicator features with a weight
  double residual_sd = 0;    // of the fitted table on the training groups, in target units
  bool rows = true;          // whole-row weights fitted (few measurements: when cross-validation favours them)
  bool fitted_valid = false;     // few measurements: the valid groups fitted too
  bool cross_validated = false;  // valid_kendall is out-of-fold (few measurements, at least 8 configs)
  // Few measurements: the table holds only these nodes' rows (forward
  // selection), as the file numbers them, in the order picked; empty: all.
  std::vector<int64_t> sparse_node_ids = {};
  bool sparse_with_values = false;  // ... beside the value weights (else their rows alone)
  // Few measurements, values alone: fitted by the relevance ridge
  // (baselines/relevance_ridge.h); each node (as the file numbers them) and
  // its share of the prior variance, largest first.
  bool relevance = false;
  std::vector<NodeRelevance> node_relevance = {};
};

// `fit` and `valid` are the same graph's entries (train_groups / eval_groups).
// Fills the table's rows and weights. At most kMaxValues config values are
// read (a seeded sample of the training groups beyond that).
constexpr int64_t kMaxWideValues = 20'000'000;
constexpr int64_t kFewValid = 32;
WideFit fit_wide_table(models::LayoutWideImpl& wide, const GraphEntry& fit, const GraphEntry& valid, uint64_t seed);

}  // namespace fastslow::train
