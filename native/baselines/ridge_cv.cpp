#include "baselines/ridge_cv.h"

#include <cmath>
#include <limits>
#include <numeric>

#include "baselines/ridge.h"
#include "fastslow/error.h"
#include "fastslow/rank/metrics.h"
#include "fastslow/rng.h"

namespace fastslow::baselines {

std::vector<int> cv_folds(int64_t n, int folds, uint64_t seed) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  Rng rng(seed ^ 0x7269646765ull);  // "ridge"
  for (int64_t i = n - 1; i > 0; --i) std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(rng.uniform_int(0, i))]);
  std::vector<int> fold_of(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) fold_of[static_cast<size_t>(order[static_cast<size_t>(i)])] = static_cast<int>(i % folds);
  return fold_of;
}

FoldSplit split_fold(const std::vector<float>& rows, int64_t width, const std::vector<double>& y,
                     const std::vector<int>& fold_of, int fold) {
  FoldSplit s;
  for (int64_t r = 0; r < static_cast<int64_t>(y.size()); ++r) {
    const bool out = fold_of[static_cast<size_t>(r)] == fold;
    std::vector<float>& to = out ? s.held_rows : s.fit_rows;
    to.insert(to.end(), rows.begin() + r * width, rows.begin() + (r + 1) * width);
    if (out) s.held.push_back(r);
    else s.fit_y.push_back(y[static_cast<size_t>(r)]);
  }
  return s;
}

const std::vector<double>& ridge_penalties() {
  static const std::vector<double> p = {1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0};
  return p;
}

RidgeChoice choose_ridge_penalty(const std::vector<float>& rows, int64_t width, const std::vector<double>& y,
                                 int folds, uint64_t seed) {
  const auto n = static_cast<int64_t>(y.size());
  if (width <= 0 || static_cast<int64_t>(rows.size()) != n * width)
    throw Error("ridge penalty: " + std::to_string(rows.size()) + " values for " + std::to_string(n) + " rows");
  if (folds < 2) throw Error("ridge penalty: need at least 2 folds");
  if (n < 2 * folds) return {1.0, std::numeric_limits<double>::quiet_NaN()};
  const std::vector<int> fold_of = cv_folds(n, folds, seed);

  // Out-of-fold predictions of every row, ranked together: one Kendall
  // over all n rows is far steadier than the mean of K Kendalls over n / K
  // rows each (7 rows a fold at 29 measured configs).
  RidgeChoice best{1.0, -2.0};
  for (double lambda : ridge_penalties()) {
    std::vector<double> pred(static_cast<size_t>(n), 0.0);
    for (int f = 0; f < folds; ++f) {
      const FoldSplit s = split_fold(rows, width, y, fold_of, f);
      OneHotRidge ridge;
      ridge.fit(s.fit_rows, width, s.fit_y, lambda);
      const std::vector<double> p = ridge.predict(s.held_rows);
      for (size_t i = 0; i < s.held.size(); ++i) pred[static_cast<size_t>(s.held[i])] = p[i];
    }
    double k = kendall_tau(pred, y);
    if (!std::isfinite(k)) k = 0.0;
    if (k >= best.cv_kendall - 1e-12) best = {lambda, k};  // ties: the larger penalty
  }
  return best;
}

}  // namespace fastslow::baselines
