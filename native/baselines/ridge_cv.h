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
  double cv_kendall = 0;  // of the out-of-fold predictions at that penalty
};

// The penalties tried, smallest first.
const std::vector<double>& ridge_penalties();

// rows: count x width; y: what ridge fits (e.g. log runtime), lower = faster.
// Fewer than 2 * folds rows: lambda 1 (too few to cross-validate).
// A seeded portable shuffle assigns the folds; ties in Kendall
// keep the larger penalty (the simpler model).
RidgeChoice choose_ridge_penalty(const std::vector<float>& rows, int64_t width, const std::vector<double>& y,
                                 int folds, uint64_t seed);

}  // namespace fastslow::baselines
