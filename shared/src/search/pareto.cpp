#include "fastslow/search/pareto.h"

#include <algorithm>
#include <numeric>

#include "fastslow/error.h"

namespace fastslow::search {
namespace {

// Every objective as one to minimise.
std::vector<double> minimised(const std::vector<double>& p, const std::vector<Direction>& dirs) {
  if (p.size() != dirs.size())
    throw Error("a point has " + std::to_string(p.size()) + " objective values for " + std::to_string(dirs.size()) +
                " objectives");
  std::vector<double> m(p.size());
  for (size_t i = 0; i < p.size(); ++i) m[i] = dirs[i] == Direction::Maximize ? -p[i] : p[i];
  return m;
}

bool dominates_min(const std::vector<double>& a, const std::vector<double>& b) {
  bool better = false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] > b[i]) return false;
    better |= a[i] < b[i];
  }
  return better;
}

}  // namespace

bool dominates(const std::vector<double>& a, const std::vector<double>& b, const std::vector<Direction>& dirs) {
  return dominates_min(minimised(a, dirs), minimised(b, dirs));
}

std::vector<size_t> pareto_front(const std::vector<std::vector<double>>& points, const std::vector<Direction>& dirs) {
  std::vector<std::vector<double>> m;
  m.reserve(points.size());
  for (const auto& p : points) m.push_back(minimised(p, dirs));
  std::vector<size_t> order(points.size());
  std::iota(order.begin(), order.end(), 0);
  // A point can only be dominated by one lexicographically smaller.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m[a] < m[b]; });
  std::vector<size_t> front;
  for (size_t i : order) {
    bool dominated = false;
    for (size_t f : front)
      if (dominates_min(m[f], m[i])) {
        dominated = true;
        break;
      }
    if (!dominated) front.push_back(i);
  }
  std::sort(front.begin(), front.end());
  return front;
}

double hypervolume_2d(const std::vector<std::vector<double>>& points, const std::vector<Direction>& dirs,
                      const std::vector<double>& reference) {
  if (dirs.size() != 2) throw Error("hypervolume_2d needs two objectives, got " + std::to_string(dirs.size()));
  const auto r = minimised(reference, dirs);
  std::vector<std::vector<double>> m;
  for (const auto& p : points) {
    auto q = minimised(p, dirs);
    if (q[0] < r[0] && q[1] < r[1]) m.push_back(q);
  }
  std::sort(m.begin(), m.end());
  // Sweep in ascending first objective; each point adds the strip between
  // it and the next-lower second objective seen so far.
  double area = 0, best_y = r[1];
  for (const auto& q : m) {
    if (q[1] >= best_y) continue;
    area += (r[0] - q[0]) * (best_y - q[1]);
    best_y = q[1];
  }
  return area;
}

std::vector<size_t> pareto_trials(const StudyFile& study) {
  std::vector<Direction> dirs;
  for (const auto& o : study.objectives) dirs.push_back(o.direction);
  std::vector<std::vector<double>> pts;
  std::vector<size_t> idx;
  for (size_t i = 0; i < study.trials.size(); ++i)
    if (auto v = objective_values(study.trials[i], study.objectives)) {
      pts.push_back(*v);
      idx.push_back(i);
    }
  std::vector<size_t> out;
  for (size_t f : pareto_front(pts, dirs)) out.push_back(idx[f]);
  return out;
}

}  // namespace fastslow::search
