// Combining the scores several models give the same configs of one graph.
// Members' scores live on different scales (a hinge-trained model's spread
// is not a ListMLE one's), so they are standardised per graph or replaced
// by rank positions before averaging.
#pragma once

#include <functional>
#include <vector>

namespace fastslow {

// (s - mean) / sd with the population sd; all zeros when sd is 0.
std::vector<double> standardized(const std::vector<double>& s);
// Population standard deviation (0 for fewer than two values).
double score_spread(const std::vector<double>& s);
// 0-based positions in ascending order; tied values share their mean position.
std::vector<double> rank_positions(const std::vector<double>& s);

// members[m][i]: member m's score of config i (lower = faster). The
// weighted mean of each member's standardised scores, or of its rank
// positions. Throws Error on ragged members or a weight count that is not
// the member count.
std::vector<double> combine_standardized(const std::vector<std::vector<double>>& members,
                                         const std::vector<double>& weights);
std::vector<double> combine_ranks(const std::vector<std::vector<double>>& members, const std::vector<double>& weights);

// Non-negative weights summing to 1 that maximise `objective` (e.g. mean
// Kendall of the combined scores on validation graphs): coordinate search
// over the simplex from the best of equal weights and each member alone,
// moving one member's weight at a time by shrinking steps, kept only when
// the objective rises. Never below any of those starts. Deterministic.
std::vector<double> fit_simplex_weights(int members, const std::function<double(const std::vector<double>&)>& objective);

}  // namespace fastslow
