#include "fastslow/rank/ensemble_combine.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "fastslow/error.h"

namespace fastslow {

double score_spread(const std::vector<double>& s) {
  if (s.size() < 2) return 0;
  const double n = static_cast<double>(s.size());
  const double mean = std::accumulate(s.begin(), s.end(), 0.0) / n;
  double ss = 0;
  for (double x : s) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / n);
}

std::vector<double> standardized(const std::vector<double>& s) {
  std::vector<double> out(s.size(), 0.0);
  const double sd = score_spread(s);
  if (!(sd > 0)) return out;
  const double mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  for (size_t i = 0; i < s.size(); ++i) out[i] = (s[i] - mean) / sd;
  return out;
}

std::vector<double> rank_positions(const std::vector<double>& s) {
  std::vector<size_t> order(s.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s[a] < s[b]; });
  std::vector<double> pos(s.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && s[order[j + 1]] == s[order[i]]) ++j;
    const double mid = 0.5 * static_cast<double>(i + j);
    for (size_t k = i; k <= j; ++k) pos[order[k]] = mid;
    i = j + 1;
  }
  return pos;
}

namespace {

std::vector<double> weighted_sum(const std::vector<std::vector<double>>& members, const std::vector<double>& weights,
                                 std::vector<double> (*transform)(const std::vector<double>&)) {
  if (members.empty()) throw Error("ensemble: no member scores to combine");
  if (weights.size() != members.size())
    throw Error("ensemble: " + std::to_string(weights.size()) + " weights for " + std::to_string(members.size()) +
                " members");
  const size_t n = members.front().size();
  std::vector<double> out(n, 0.0);
  for (size_t m = 0; m < members.size(); ++m) {
    if (members[m].size() != n)
      throw Error("ensemble: member " + std::to_string(m) + " scored " + std::to_string(members[m].size()) +
                  " configs, member 0 scored " + std::to_string(n));
    const std::vector<double> t = transform(members[m]);
    for (size_t i = 0; i < n; ++i) out[i] += weights[m] * t[i];
  }
  return out;
}

}  // namespace

std::vector<double> combine_standardized(const std::vector<std::vector<double>>& members,
                                         const std::vector<double>& weights) {
  return weighted_sum(members, weights, &standardized);
}

std::vector<double> combine_ranks(const std::vector<std::vector<double>>& members, const std::vector<double>& weights) {
  return weighted_sum(members, weights, &rank_positions);
}

std::vector<double> fit_simplex_weights(int members, const std::function<double(const std::vector<double>&)>& objective) {
  if (members < 1) throw Error("ensemble: no members to weight");
  std::vector<double> w(static_cast<size_t>(members), 1.0 / members);
  if (members == 1) return w;
  // Scores such as the tile score are step functions of the weights, with
  // flat stretches around equal weights: the search starts from the best of
  // equal weights and each member alone.
  double start = objective(w);
  for (int m = 0; m < members; ++m) {
    std::vector<double> only(static_cast<size_t>(members), 0.0);
    only[static_cast<size_t>(m)] = 1.0;
    const double v = objective(only);
    if (v > start) {
      start = v;
      w = only;
    }
  }
  auto normalised = [](std::vector<double> v) {
    const double sum = std::accumulate(v.begin(), v.end(), 0.0);
    for (double& x : v) x /= sum;
    return v;
  };
  double best = start;
  for (double step : {0.5, 0.25, 0.1, 0.05, 0.02}) {
    // Passes until no single move helps at this step size (bounded: each
    // accepted move strictly raises the objective).
    for (int pass = 0; pass < 50; ++pass) {
      bool moved = false;
      for (size_t m = 0; m < w.size(); ++m) {
        for (double dir : {+1.0, -1.0}) {
          std::vector<double> t = w;
          t[m] = std::max(0.0, t[m] + dir * step);
          if (std::accumulate(t.begin(), t.end(), 0.0) <= 0) continue;
          t = normalised(t);
          const double v = objective(t);
          if (v > best + 1e-12) {
            best = v;
            w = t;
            moved = true;
          }
        }
      }
      if (!moved) break;
    }
  }
  return w;
}

}  // namespace fastslow
