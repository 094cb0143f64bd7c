#include "baselines/sparse_columns.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "baselines/ridge.h"
#include "baselines/ridge_cv.h"
#include "fastslow/error.h"
#include "fastslow/rank/metrics.h"

namespace fastslow::baselines {
namespace {

void check(const std::vector<float>& rows, int64_t width, const std::vector<double>& y, const char* what,
           const BaseColumns& base = {}) {
  if (width <= 0 || rows.size() != y.size() * static_cast<size_t>(width))
    throw Error(std::string(what) + ": " + std::to_string(rows.size()) + " values for " + std::to_string(y.size()) +
                " rows of " + std::to_string(width));
  if (base.width < 0 || base.rows.size() != y.size() * static_cast<size_t>(base.width))
    throw Error(std::string(what) + ": the base has " + std::to_string(base.rows.size()) + " values for " +
                std::to_string(y.size()) + " rows of " + std::to_string(base.width));
}

}  // namespace

std::vector<float> take_columns(const std::vector<float>& rows, int64_t width, const std::vector<int64_t>& columns) {
  const int64_t n = width > 0 ? static_cast<int64_t>(rows.size()) / width : 0;
  std::vector<float> out;
  out.reserve(static_cast<size_t>(n) * columns.size());
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c : columns) out.push_back(rows[static_cast<size_t>(r * width + c)]);
  return out;
}

std::vector<float> join_columns(const BaseColumns& base, const std::vector<float>& rows, int64_t width,
                                const std::vector<int64_t>& columns) {
  const int64_t n = width > 0 ? static_cast<int64_t>(rows.size()) / width : 0;
  if (base.width > 0 && static_cast<int64_t>(base.rows.size()) != n * base.width)
    throw Error("sparse columns: the base has " + std::to_string(base.rows.size()) + " values for " + std::to_string(n) +
                " rows of " + std::to_string(base.width));
  std::vector<float> out;
  out.reserve(static_cast<size_t>(n) * (static_cast<size_t>(base.width) + columns.size()));
  for (int64_t r = 0; r < n; ++r) {
    out.insert(out.end(), base.rows.begin() + r * base.width, base.rows.begin() + (r + 1) * base.width);
    for (int64_t c : columns) out.push_back(rows[static_cast<size_t>(r * width + c)]);
  }
  return out;
}

std::vector<int64_t> forward_select_columns(const std::vector<float>& rows, int64_t width, const std::vector<double>& y,
                                            int count, const BaseColumns& base, double penalty) {
  check(rows, width, y, "forward selection", base);
  const auto n = static_cast<int64_t>(y.size());
  std::vector<int64_t> chosen;
  std::vector<double> residual = y;
  // What the base and the picks so far leave.
  const auto refit = [&] {
    const std::vector<float> x = join_columns(base, rows, width, chosen);
    OneHotRidge ridge;
    ridge.fit(x, base.width + static_cast<int64_t>(chosen.size()), y, penalty);
    const std::vector<double> p = ridge.predict(x);
    for (int64_t r = 0; r < n; ++r) residual[static_cast<size_t>(r)] = y[static_cast<size_t>(r)] - p[static_cast<size_t>(r)];
  };
  if (base.width > 0) {
    refit();
  } else {
    double mean = 0;
    for (double v : y) mean += v;
    mean /= static_cast<double>(std::max<int64_t>(1, n));
    for (double& v : residual) v -= mean;
  }
  for (int step = 0; step < count; ++step) {
    // The column whose values' means explain most of what the chosen ones
    // leave (the between-group sum of squares of the residual): the
    // squared error its one-hot fit would remove, for a column on its own.
    int64_t best = -1;
    double best_gain = 1e-12;
    for (int64_t c = 0; c < width; ++c) {
      if (std::find(chosen.begin(), chosen.end(), c) != chosen.end()) continue;
      std::map<float, std::pair<double, int64_t>> by_value;
      for (int64_t r = 0; r < n; ++r) {
        auto& s = by_value[rows[static_cast<size_t>(r * width + c)]];
        s.first += residual[static_cast<size_t>(r)];
        ++s.second;
      }
      if (by_value.size() < 2) continue;
      double gain = 0;
      for (const auto& kv : by_value) gain += kv.second.first * kv.second.first / static_cast<double>(kv.second.second);
      if (gain > best_gain) best_gain = gain, best = c;
    }
    if (best < 0) break;  // nothing left explains anything
    chosen.push_back(best);
    refit();
  }
  return chosen;
}

SparseColumnsChoice choose_sparse_columns(const std::vector<float>& rows, int64_t width, const std::vector<double>& y,
                                          int folds, uint64_t seed, int max_columns, const BaseColumns& base,
                                          double penalty) {
  check(rows, width, y, "sparse columns", base);
  if (folds < 2) throw Error("sparse columns: need at least 2 folds");
  if (max_columns < 1) throw Error("sparse columns: need at least 1 column");
  const auto n = static_cast<int64_t>(y.size());
  SparseColumnsChoice out;
  if (n < 2 * folds) return out;
  const std::vector<int> fold_of = cv_folds(n, folds, seed);
  const std::vector<double> penalties = penalty > 0 ? std::vector<double>{penalty} : ridge_penalties();
  // pred[k][p]: out-of-fold predictions with the first k + 1 columns of
  // each fold's own selection, at penalty p.
  std::vector<std::vector<std::vector<double>>> pred(
      static_cast<size_t>(max_columns),
      std::vector<std::vector<double>>(penalties.size(), std::vector<double>(static_cast<size_t>(n), 0.0)));
  for (int f = 0; f < folds; ++f) {
    const FoldSplit s = split_fold(rows, width, y, fold_of, f);
    BaseColumns fit_base, held_base;
    if (base.width > 0) {
      const FoldSplit b = split_fold(base.rows, base.width, y, fold_of, f);
      fit_base = {b.fit_rows, base.width};
      held_base = {b.held_rows, base.width};
    }
    // Without a base the selection is the same at every penalty.
    std::vector<int64_t> path;
    if (base.width == 0) path = forward_select_columns(s.fit_rows, width, s.fit_y, max_columns);
    for (size_t p = 0; p < penalties.size(); ++p) {
      if (base.width > 0) path = forward_select_columns(s.fit_rows, width, s.fit_y, max_columns, fit_base, penalties[p]);
      for (size_t k = 0; k < static_cast<size_t>(max_columns); ++k) {
        // A fold whose selection stopped early keeps its last model.
        const std::vector<int64_t> cols(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(std::min(k + 1, path.size())));
        if (cols.empty() && base.width == 0) continue;  // nothing explained: predictions stay 0
        OneHotRidge ridge;
        ridge.fit(join_columns(fit_base, s.fit_rows, width, cols), base.width + static_cast<int64_t>(cols.size()), s.fit_y,
                  penalties[p]);
        const std::vector<double> h = ridge.predict(join_columns(held_base, s.held_rows, width, cols));
        for (size_t i = 0; i < s.held.size(); ++i) pred[k][p][static_cast<size_t>(s.held[i])] = h[i];
      }
    }
  }
  int best_k = 0;
  for (int k = 0; k < max_columns; ++k)
    for (size_t p = 0; p < penalties.size(); ++p) {
      double t = kendall_tau(pred[static_cast<size_t>(k)][p], y);
      if (!std::isfinite(t)) t = 0.0;
      // Strictly better for more columns; at equal columns ties take the
      // larger penalty (penalties ascend).
      const bool better = k == best_k ? t >= out.cv_kendall - 1e-12 : t > out.cv_kendall + 1e-12;
      if (better) out.cv_kendall = t, out.lambda = penalties[p], best_k = k;
    }
  out.columns = base.width > 0 ? forward_select_columns(rows, width, y, best_k + 1, base, out.lambda)
                                : forward_select_columns(rows, width, y, best_k + 1);
  return out;
}

}  // namespace fastslow::baselines
