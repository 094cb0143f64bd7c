// Pareto dominance over several objectives, each maximised or minimised.
#pragma once

#include <cstddef>
#include <vector>

#include "fastslow/search/trials.h"

namespace fastslow::search {

// a dominates b: no worse in every objective and better in at least one.
bool dominates(const std::vector<double>& a, const std::vector<double>& b, const std::vector<Direction>& dirs);

// Indices of the points no other point dominates, ascending. Points equal
// in every objective are all kept. Sorted sweep: the points in
// lexicographic order of their (all minimised) values can only be
// dominated by points before them, so each is checked against the front
// found so far. Throws Error on a point whose size is not dirs.size().
std::vector<size_t> pareto_front(const std::vector<std::vector<double>>& points, const std::vector<Direction>& dirs);

// Area dominated by the points and bounded by `reference` for two
// objectives (points not strictly better than the reference in both count
// nothing). The page and tests use it; the native search uses pagmo's
// hypervolume for any number of objectives.
double hypervolume_2d(const std::vector<std::vector<double>>& points, const std::vector<Direction>& dirs,
                      const std::vector<double>& reference);

// The Pareto front of a study's complete trials: their indices in
// study.trials, ascending.
std::vector<size_t> pareto_trials(const StudyFile& study);

}  // namespace fastslow::search
