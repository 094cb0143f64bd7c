#include "fastslow/search/pareto.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "fastslow/error.h"

namespace fastslow::search {
namespace {

const std::vector<Direction> kMaxMin = {Direction::Maximize, Direction::Minimize};

// The definition, O(n^2): kept when no other point dominates it.
std::vector<size_t> brute_front(const std::vector<std::vector<double>>& pts, const std::vector<Direction>& dirs) {
  std::vector<size_t> out;
  for (size_t i = 0; i < pts.size(); ++i) {
    bool dominated = false;
    for (size_t j = 0; j < pts.size(); ++j) dominated |= j != i && dominates(pts[j], pts[i], dirs);
    if (!dominated) out.push_back(i);
  }
  return out;
}

TEST(Pareto, DominanceFollowsDirections) {
  EXPECT_TRUE(dominates({0.6, 1.0}, {0.5, 2.0}, kMaxMin));
  EXPECT_TRUE(dominates({0.6, 2.0}, {0.5, 2.0}, kMaxMin));
  EXPECT_FALSE(dominates({0.6, 2.0}, {0.6, 2.0}, kMaxMin));  // equal: neither
  EXPECT_FALSE(dominates({0.6, 3.0}, {0.5, 2.0}, kMaxMin));  // a trade-off
  EXPECT_TRUE(dominates({0.4, 1.0}, {0.5, 2.0}, {Direction::Minimize, Direction::Minimize}));
  EXPECT_THROW(dominates({0.4}, {0.5, 2.0}, kMaxMin), Error);
}

TEST(Pareto, FrontMatchesBruteForceOnRandomClouds) {
  std::mt19937 rng(7);
  for (int dims = 1; dims <= 4; ++dims) {
    for (int rep = 0; rep < 40; ++rep) {
      std::vector<Direction> dirs;
      for (int d = 0; d < dims; ++d) dirs.push_back(rng() % 2 ? Direction::Maximize : Direction::Minimize);
      const int n = 1 + static_cast<int>(rng() % 60);
      std::vector<std::vector<double>> pts(n, std::vector<double>(dims));
      // Coarse values so that ties and duplicates occur.
      for (auto& p : pts)
        for (auto& v : p) v = static_cast<double>(rng() % 6);
      EXPECT_EQ(pareto_front(pts, dirs), brute_front(pts, dirs)) << "dims " << dims << " rep " << rep;
    }
  }
}

TEST(Pareto, Hypervolume2dMatchesAGridCount) {
  std::mt19937 rng(3);
  for (int rep = 0; rep < 20; ++rep) {
    std::vector<std::vector<double>> pts;
    for (int i = 0; i < 8; ++i) pts.push_back({static_cast<double>(rng() % 10), static_cast<double>(rng() % 10)});
    const std::vector<double> ref = {0, 10};  // maximise x from 0, minimise y below 10
    // Unit cells (x-1..x, y..y+1) dominated by some point, counted one by one.
    int cells = 0;
    for (int cx = 0; cx < 10; ++cx)
      for (int cy = 0; cy < 10; ++cy) {
        bool covered = false;
        for (const auto& p : pts) covered |= p[0] >= cx + 1 && p[1] <= cy;
        cells += covered;
      }
    EXPECT_DOUBLE_EQ(hypervolume_2d(pts, kMaxMin, ref), cells) << "rep " << rep;
  }
  EXPECT_DOUBLE_EQ(hypervolume_2d({}, kMaxMin, {0, 10}), 0.0);
  EXPECT_DOUBLE_EQ(hypervolume_2d({{-1, 3}}, kMaxMin, {0, 10}), 0.0);  // worse than the reference
}

TEST(Pareto, StudyFrontSkipsTrialsThatAreNotComplete) {
  StudyFile s;
  s.objectives = {{"score", Direction::Maximize}, {"latency", Direction::Minimize}};
  auto trial = [](int64_t n, TrialState st, std::map<std::string, double> obj) {
    Trial t;
    t.number = n;
    t.state = st;
    t.objectives = std::move(obj);
    return t;
  };
  s.trials = {trial(0, TrialState::Complete, {{"score", 0.5}, {"latency", 2}}),
              trial(1, TrialState::Pruned, {{"score", 0.9}, {"latency", 1}}),
              trial(2, TrialState::Complete, {{"score", 0.6}, {"latency", 3}}),
              trial(3, TrialState::Complete, {{"score", 0.4}, {"latency", 2.5}}),
              trial(4, TrialState::Complete, {{"score", 0.7}}),  // a value missing
              trial(5, TrialState::Failed, {})};
  EXPECT_EQ(pareto_trials(s), (std::vector<size_t>{0, 2}));
}

}  // namespace
}  // namespace fastslow::search
