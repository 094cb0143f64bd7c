#include "search/hypervolume.h"

#include <gtest/gtest.h>

#include <random>

#include "fastslow/search/pareto.h"

namespace fastslow::search {
namespace {

TEST(Hypervolume, PagmoAgreesWithTheCoresSweepInTwoDimensions) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  const std::vector<Direction> dirs = {Direction::Maximize, Direction::Minimize};
  for (int rep = 0; rep < 30; ++rep) {
    std::vector<std::vector<double>> pts;
    for (int i = 0; i < 1 + rep; ++i) pts.push_back({u(rng), u(rng) * 10});
    const std::vector<double> ref = {0.1, 9.0};
    EXPECT_NEAR(hypervolume(pts, dirs, ref), hypervolume_2d(pts, dirs, ref), 1e-9) << "rep " << rep;
  }
}

TEST(Hypervolume, ThreeObjectivesAgainstAMonteCarloCount) {
  const std::vector<Direction> dirs(3, Direction::Minimize);
  const std::vector<std::vector<double>> pts = {{0.2, 0.6, 0.5}, {0.5, 0.2, 0.4}, {0.7, 0.7, 0.1}};
  const std::vector<double> ref = {1, 1, 1};
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  int hit = 0;
  const int n = 400000;
  for (int i = 0; i < n; ++i) {
    const double x = u(rng), y = u(rng), z = u(rng);
    for (const auto& p : pts)
      if (p[0] <= x && p[1] <= y && p[2] <= z) {
        ++hit;
        break;
      }
  }
  EXPECT_NEAR(hypervolume(pts, dirs, ref), static_cast<double>(hit) / n, 0.005);
}

TEST(Hypervolume, DefaultReferenceLetsEveryPointCount) {
  const std::vector<Direction> dirs = {Direction::Maximize, Direction::Minimize};
  const std::vector<std::vector<double>> pts = {{0.5, 2.0}, {0.7, 4.0}};
  const auto ref = default_reference(pts, dirs);
  EXPECT_DOUBLE_EQ(ref[0], 0.5 - 0.02);
  EXPECT_DOUBLE_EQ(ref[1], 4.0 + 0.2);
  EXPECT_GT(hypervolume({pts[0]}, dirs, ref), 0);
  EXPECT_EQ(hypervolume({{0.4, 1.0}}, dirs, ref), 0);  // worse than the reference in the score
}

}  // namespace
}  // namespace fastslow::search
