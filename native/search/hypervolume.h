// Hypervolume of a study's complete trials (pagmo's, any number of
// objectives), and the reference point used when the study sets none.
#pragma once

#include <vector>

#include "fastslow/search/trials.h"

namespace fastslow::search {

// Volume dominated by `points` and bounded by `reference` (each objective
// in its direction); points not strictly better than the reference in
// every objective add nothing.
double hypervolume(const std::vector<std::vector<double>>& points, const std::vector<Direction>& dirs,
                   const std::vector<double>& reference);

// The worst value of each objective over the points, moved 10 % of the
// range (or of the value, or 1) further: every point then counts.
std::vector<double> default_reference(const std::vector<std::vector<double>>& points, const std::vector<Direction>& dirs);

}  // namespace fastslow::search
