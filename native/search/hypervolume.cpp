#include "search/hypervolume.h"

#include <pagmo/utils/hypervolume.hpp>

#include <algorithm>
#include <cmath>

#include "fastslow/error.h"

namespace fastslow::search {

double hypervolume(const std::vector<std::vector<double>>& points, const std::vector<Direction>& dirs,
                   const std::vector<double>& reference) {
  if (reference.size() != dirs.size())
    throw Error("search: the reference point has " + std::to_string(reference.size()) + " values for " +
                std::to_string(dirs.size()) + " objectives");
  auto minimised = [&](const std::vector<double>& p) {
    std::vector<double> m(p.size());
    for (size_t i = 0; i < p.size(); ++i) m[i] = dirs[i] == Direction::Maximize ? -p[i] : p[i];
    return m;
  };
  const std::vector<double> r = minimised(reference);
  std::vector<pagmo::vector_double> inside;
  for (const auto& p : points) {
    auto m = minimised(p);
    bool ok = true;
    for (size_t i = 0; i < m.size(); ++i) ok &= m[i] < r[i];
    if (ok) inside.push_back(std::move(m));
  }
  if (inside.empty()) return 0.0;
  return pagmo::hypervolume(inside, true).compute(r);
}

std::vector<double> default_reference(const std::vector<std::vector<double>>& points, const std::vector<Direction>& dirs) {
  std::vector<double> ref(dirs.size(), 0.0);
  for (size_t i = 0; i < dirs.size(); ++i) {
    if (points.empty()) continue;
    double lo = points[0][i], hi = points[0][i];
    for (const auto& p : points) lo = std::min(lo, p[i]), hi = std::max(hi, p[i]);
    double margin = 0.1 * (hi - lo);
    if (!(margin > 0)) margin = std::abs(hi) > 0 ? 0.1 * std::abs(hi) : 1.0;
    ref[i] = dirs[i] == Direction::Maximize ? lo - margin : hi + margin;
  }
  return ref;
}

}  // namespace fastslow::search
