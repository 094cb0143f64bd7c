// The ridge penalty for few measurements: chosen by K-fold cross-validation
// inside the measured configs (Kendall tau of the out-of-fold predictions
// of all of them),
// not by a validation share of a handful of configs, whose Kendall is noise.
#pragma once

#include <cstdint>
#include <vector>

namespace fastslow::baselines {

struct RidgeChoice {
  double lambda = 1.0;
  double cv_kendall = 0;  // of the out-of-fold predictions at that penalty (NaN: too few rows to fold)
};

// Fold of each of n rows (0..folds-1): a seeded portable shuffle dealt
// round-robin. Every cross-validation of a few-measurement fit uses these,
// so that their Kendalls compare on the same folds.
std::vector<int> cv_folds(int64_t n, int folds, uint64_t seed);

// One round of a K-fold cross-validation: the rows of `fold` held out, the
// others (and their targets) to fit.
struct FoldSplit {
  std::vector<float> fit_rows, held_rows;
  std::vector<double> fit_y;
  std::vector<int64_t> held;  // indices of the held-out rows
};
FoldSplit split_fold(const std::vector<float>& rows, int64_t width, const std::vector<double>& y,
                     const std::vector<int>& fold_of, int fold);

// The penalties tried, smallest first.
const std::vector<double>& ridge_penalties();

// rows: count x width; y: what ridge fits (e.g. log runtime), lower = faster.
// Fewer than 2 * folds rows: lambda 1 and no Kendall (NaN: too few to
// cross-validate, as relevance_cv_kendall says).
// A seeded portable shuffle assigns the folds; ties in Kendall
// keep the larger penalty (the simpler model).
RidgeChoice choose_ridge_penalty(const std::vector<float>& rows, int64_t width, const std::vector<double>& y,
                                 int folds, uint64_t seed);

}  // namespace fastslow::baselines
