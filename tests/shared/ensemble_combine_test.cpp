#include "fastslow/rank/ensemble_combine.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fastslow/error.h"

namespace fastslow {
namespace {

TEST(EnsembleCombine, StandardisedByHand) {
  // mean 2, population sd sqrt(2/3)
  const std::vector<double> z = standardized({1, 2, 3});
  const double sd = std::sqrt(2.0 / 3.0);
  EXPECT_NEAR(z[0], -1 / sd, 1e-12);
  EXPECT_NEAR(z[1], 0, 1e-12);
  EXPECT_NEAR(z[2], 1 / sd, 1e-12);
  EXPECT_EQ(standardized({4, 4, 4}), std::vector<double>({0, 0, 0}));
  EXPECT_NEAR(score_spread({1, 2, 3}), sd, 1e-12);
}

TEST(EnsembleCombine, RankPositionsShareTies) {
  EXPECT_EQ(rank_positions({3.0, 1.0, 2.0, 1.0}), std::vector<double>({3.0, 0.5, 2.0, 0.5}));
}

TEST(EnsembleCombine, MeanOfStandardisedScoresByHand) {
  // Member a: 0, 10, 20 (z = -1.2247, 0, 1.2247); member b: 3, 1, 2 (z = 1.2247, -1.2247, 0).
  const std::vector<std::vector<double>> m = {{0, 10, 20}, {3, 1, 2}};
  const double c = std::sqrt(1.5);
  const std::vector<double> mean = combine_standardized(m, {0.5, 0.5});
  EXPECT_NEAR(mean[0], 0.0, 1e-12);
  EXPECT_NEAR(mean[1], -c / 2, 1e-12);
  EXPECT_NEAR(mean[2], c / 2, 1e-12);
  const std::vector<double> w = combine_standardized(m, {0.25, 0.75});
  EXPECT_NEAR(w[0], 0.25 * -c + 0.75 * c, 1e-12);
  EXPECT_NEAR(w[1], 0.75 * -c, 1e-12);
  EXPECT_NEAR(w[2], 0.25 * c, 1e-12);
}

TEST(EnsembleCombine, MeanOfRankPositionsByHand) {
  const std::vector<double> r = combine_ranks({{0, 10, 20}, {3, 1, 2}}, {0.5, 0.5});
  // positions a: 0 1 2; b: 2 0 1
  EXPECT_EQ(r, std::vector<double>({1.0, 0.5, 1.5}));
}

TEST(EnsembleCombine, RefusesRaggedMembersAndWrongWeightCounts) {
  EXPECT_THROW(combine_standardized({{1, 2}, {1, 2, 3}}, {0.5, 0.5}), Error);
  EXPECT_THROW(combine_ranks({{1, 2}, {2, 1}}, {1.0}), Error);
}

TEST(FitSimplexWeights, FindsTheMaximumOfAConcaveObjective) {
  // Maximum on the simplex at (0.6, 0.3, 0.1).
  const std::vector<double> target = {0.6, 0.3, 0.1};
  const auto objective = [&](const std::vector<double>& w) {
    double d = 0;
    for (size_t i = 0; i < w.size(); ++i) d += (w[i] - target[i]) * (w[i] - target[i]);
    return -d;
  };
  const std::vector<double> w = fit_simplex_weights(3, objective);
  double sum = 0;
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_GE(w[i], 0);
    EXPECT_NEAR(w[i], target[i], 0.03) << i;
    sum += w[i];
  }
  EXPECT_NEAR(sum, 1, 1e-12);
}

TEST(FitSimplexWeights, DropsAUselessMember) {
  // Only member 1 helps: the objective rises with its weight.
  const std::vector<double> w = fit_simplex_weights(2, [](const std::vector<double>& v) { return v[1]; });
  EXPECT_NEAR(w[0], 0, 1e-12);
  EXPECT_NEAR(w[1], 1, 1e-12);
  EXPECT_EQ(fit_simplex_weights(1, [](const std::vector<double>&) { return 0.0; }), std::vector<double>({1.0}));
}

TEST(FitSimplexWeights, LeavesAFlatStretchAroundEqualWeights) {
  // A step function: flat (0) unless member 2 carries nearly all the weight.
  const std::vector<double> w =
      fit_simplex_weights(3, [](const std::vector<double>& v) { return v[2] > 0.9 ? 1.0 : 0.0; });
  EXPECT_GT(w[2], 0.9);
}

}  // namespace
}  // namespace fastslow
