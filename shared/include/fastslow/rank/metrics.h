// Ranking metrics of the TpuGraphs paper and the competition. A model only has
// to order configurations, so every metric here compares an order of scores
// with an order of measured runtimes.
//
// Conventions: scores and runtimes both read "lower = faster". Any NaN input
// throws fastslow::Error naming the vector and index, because a metric over a
// NaN silently depends on how comparisons with NaN fall out.
#pragma once

#include <cstdint>
#include <vector>

#include "fastslow/numeric.h"

namespace fastslow {

// Kendall tau-b (scipy.stats.kendalltau default). O(n log n) by Knight's
// method. NaN when n < 2 or either side is entirely tied.
double kendall_tau(const std::vector<double>& score,
                   const std::vector<double>& runtime);

// The standard deviation of Kendall's tau between two orders of n items
// with no association, sqrt(2 (2n + 5) / (9 n (n - 1))): how far two
// rankers that rank equally well differ on n configs by chance (0.64 at 3,
// 0.14 at 29). NaN for n < 2.
double kendall_null_sd(int64_t n);

// Among pairs with runtime_i < runtime_j, the fraction with score_i < score_j
// (a score tie counts as wrong). O(n log n). NaN if no pair has distinct
// runtimes.
double ordered_pair_accuracy(const std::vector<double>& score,
                             const std::vector<double>& runtime);

// Indices by ascending score, ties by index. Best first.
std::vector<int64_t> ranking_from_scores(const std::vector<double>& score);

// (best runtime among ranking[0..k)) / (best runtime overall) - 1; k > size
// means the whole ranking. Throws on k < 1, empty ranking or runtime,
// out-of-range index, or a non-positive best runtime.
double top_k_error(const std::vector<int64_t>& ranking,
                   const std::vector<double>& runtime, int k);

// Competition score of one kernel: 2 - best(top 5)/best = 1 - top-5 error.
double tile_score(const std::vector<int64_t>& ranking,
                  const std::vector<double>& runtime);

struct GraphMetrics {
  int64_t configs = 0;
  double kendall = kNaN, opa = kNaN, top1 = kNaN, top5 = kNaN, top10 = kNaN,
         tile_score = kNaN;
};

// All metrics of one graph; the ranking comes from ranking_from_scores.
// Throws on an empty graph or a length mismatch. Configs with runtime 0
// (never measured) are left out of every metric; `configs` counts the
// others (0, and every metric NaN, where none was measured).
GraphMetrics evaluate_graph(const std::vector<double>& score,
                            const std::vector<double>& runtime);

struct CollectionMetrics {
  int64_t graphs = 0;             // graphs summarised
  int64_t undefined_kendall = 0;  // graphs whose Kendall was NaN
  // Means over graphs; each metric skips its own NaN entries, NaN if none.
  double kendall = kNaN, opa = kNaN, top1 = kNaN, top5 = kNaN, top10 = kNaN,
         tile_score = kNaN;
};

CollectionMetrics summarize(const std::vector<GraphMetrics>& graphs);

}  // namespace fastslow
