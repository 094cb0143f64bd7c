#include "fastslow/graph/joint_share.h"

#include <algorithm>
#include <unordered_map>

#include "fastslow/error.h"
#include "fastslow/graph/f_distribution.h"
#include "fastslow/numeric.h"

namespace fastslow {

double omega_squared(double between, double total, int64_t n, int64_t groups) {
  if (!(total > 0) || n <= groups) return 0;
  const double within = std::max(0.0, total - between) / static_cast<double>(n - groups);
  return std::max(0.0, (between - static_cast<double>(groups - 1) * within) / (total + within));
}

namespace {

// Numbers the cells of (cell, group) pairs by first appearance into `out`;
// returns how many there are. A dense table while the pairs' range is
// small (the first picks), a hash past it.
int64_t cross(const std::vector<int32_t>& cell, int64_t cells, const std::vector<int32_t>& group, int64_t groups,
              std::vector<int32_t>& dense, std::vector<int32_t>& out) {
  const size_t n = cell.size();
  out.resize(n);
  int32_t next = 0;
  const auto range = static_cast<uint64_t>(cells) * static_cast<uint64_t>(groups);
  if (range <= std::max<uint64_t>(4 * n, 1 << 16)) {
    // `dense` is all -1 between calls: the pairs seen are put back after use,
    // n writes rather than the whole range's.
    if (dense.size() < range) dense.resize(range, -1);
    const auto slot = [&](size_t i) {
      return static_cast<size_t>(cell[i]) * static_cast<size_t>(groups) + static_cast<size_t>(group[i]);
    };
    for (size_t i = 0; i < n; ++i) {
      int32_t& id = dense[slot(i)];
      if (id < 0) id = next++;
      out[i] = id;
    }
    for (size_t i = 0; i < n; ++i) dense[slot(i)] = -1;
    return next;
  }
  std::unordered_map<uint64_t, int32_t> ids;
  ids.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const auto [it, fresh] =
        ids.emplace(static_cast<uint64_t>(cell[i]) * static_cast<uint64_t>(groups) + static_cast<uint64_t>(group[i]), next);
    if (fresh) ++next;
    out[i] = it->second;
  }
  return next;
}

double between(const std::vector<double>& y, double mean, const std::vector<int32_t>& cell, int64_t cells,
               std::vector<double>& sum, std::vector<double>& count) {
  sum.assign(static_cast<size_t>(cells), 0.0);
  count.assign(static_cast<size_t>(cells), 0.0);
  for (size_t i = 0; i < y.size(); ++i) sum[static_cast<size_t>(cell[i])] += y[i], count[static_cast<size_t>(cell[i])] += 1;
  double b = 0;
  for (size_t c = 0; c < sum.size(); ++c) {
    const double d = sum[c] / count[c] - mean;
    b += count[c] * d * d;
  }
  return b;
}

}  // namespace

JointShare joint_share(const std::vector<double>& y, const std::vector<std::vector<int32_t>>& factors, int max_picks,
                       double min_gain, double alpha) {
  const size_t n = y.size();
  std::vector<int64_t> groups;
  for (const auto& f : factors) {
    if (f.size() != n)
      throw Error("joint share: a factor groups " + std::to_string(f.size()) + " observations, not " + std::to_string(n));
    int32_t k = 0;
    for (int32_t g : f) {
      if (g < 0) throw Error("joint share: a negative group");
      k = std::max(k, g);
    }
    groups.push_back(n ? int64_t{k} + 1 : 0);
  }
  JointShare out;
  out.next_gain = out.next_p = kNaN;
  double mean = 0, total = 0;
  for (double v : y) mean += v;
  mean /= std::max<double>(1, static_cast<double>(n));
  for (double v : y) total += (v - mean) * (v - mean);
  if (!(total > 0)) return out;

  std::vector<int32_t> cell(n, 0), trial, best_cells;
  int64_t cells = 1;
  double explained = 0;  // between-cell sum of squares of the picks' crossing
  std::vector<int32_t> dense;
  std::vector<double> sum, count;
  std::vector<bool> picked(factors.size(), false);
  for (int step = 0;; ++step) {
    if (step == max_picks) {
      out.stop = JointStop::MostPicks;
      break;
    }
    double best_gain = -1, best_between = 0;
    size_t best = factors.size(), candidates = 0;
    int64_t best_k = 0;
    for (size_t f = 0; f < factors.size(); ++f) {
      if (picked[f]) continue;
      ++candidates;
      const int64_t k = cross(cell, cells, factors[f], groups[f], dense, trial);
      const double b = between(y, mean, trial, k, sum, count);
      const double gain = omega_squared(b, total, static_cast<int64_t>(n), k) - out.adjusted;
      if (gain > best_gain) best_gain = gain, best_between = b, best = f, best_k = k, best_cells.swap(trial);
    }
    if (best == factors.size()) {
      out.stop = JointStop::AllPicked;
      break;
    }
    // The partial F test of the added cells: what they explain more per
    // degree of freedom against what is left within the new cells.
    const double d1 = static_cast<double>(best_k - cells), d2 = static_cast<double>(static_cast<int64_t>(n) - best_k);
    const double within = std::max(0.0, total - best_between);
    double p = 1;
    if (d1 > 0 && d2 > 0)
      p = within <= 1e-12 * total ? 0.0 : f_survival(((best_between - explained) / d1) / (within / d2), d1, d2);
    if (best_gain < min_gain || p > alpha / static_cast<double>(candidates)) {
      out.stop = best_gain < min_gain ? JointStop::SmallGain : JointStop::NotSignificant;
      out.next_gain = best_gain;
      out.next_p = p;
      out.next_candidates = candidates;
      break;
    }
    picked[best] = true;
    cell.swap(best_cells);
    cells = best_k;
    explained = best_between;
    out.adjusted += best_gain;
    out.picks.push_back({best, best_gain, cells, p});
  }
  return out;
}

}  // namespace fastslow
