// The default sampler (train/sampler.h): picks that depend only on (epoch,
// step), every trainable graph visited each round, distinct groups.
#include "train/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "test_support.h"

namespace fastslow::train {
namespace {

// Training graphs with only the groups a sampler reads; those of fewer
// than two groups are not trainable.
std::shared_ptr<const PreparedData> graphs_with_groups(const std::vector<int64_t>& sizes) {
  auto d = std::make_shared<PreparedData>();
  d->source = "made-up";
  d->train.resize(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i)
    for (int64_t g = 0; g < sizes[i]; ++g) d->train[i].train_groups.push_back(g * 3 + 1);  // not 0..n-1
  return d;
}

TEST(Sampler, PicksDependOnlyOnEpochAndStep) {
  const auto graphs = graphs_with_groups({50, 7, 1, 30});
  EpochSampler a(graphs, 10, 8, 42), b(graphs, 10, 8, 42);
  std::vector<Pick> forward;
  for (int64_t e = 0; e < 3; ++e)
    for (int64_t s = 0; s < 10; ++s) forward.push_back(a.pick(e, s));
  // Asked in another order (a resumed run starts mid-epoch), the same picks.
  for (int64_t e = 2; e >= 0; --e)
    for (int64_t s = 9; s >= 0; --s) {
      const Pick p = b.pick(e, s), q = forward[static_cast<size_t>(e * 10 + s)];
      EXPECT_EQ(p.graph, q.graph);
      EXPECT_EQ(p.groups, q.groups);
    }
  EpochSampler other_seed(graphs, 10, 8, 43);
  int same = 0;
  for (int64_t s = 0; s < 10; ++s) same += other_seed.pick(0, s).groups == forward[static_cast<size_t>(s)].groups;
  EXPECT_LT(same, 10);
}

TEST(Sampler, EachRoundVisitsEveryTrainableGraphWithDistinctGroupsOfIt) {
  const auto graphs = graphs_with_groups({50, 7, 1, 30});
  EpochSampler s(graphs, 7, 8, 5);
  for (int64_t e = 0; e < 4; ++e) {
    std::multiset<size_t> first_round;
    for (int64_t step = 0; step < 7; ++step) {
      const Pick p = s.pick(e, step);
      EXPECT_NE(p.graph, 2u) << "an untrainable graph was picked";
      if (step < 3) first_round.insert(p.graph);
      const auto& pool = graphs->train[p.graph].train_groups;
      EXPECT_EQ(p.groups.size(), std::min<size_t>(8, pool.size()));
      EXPECT_EQ(std::set<int64_t>(p.groups.begin(), p.groups.end()).size(), p.groups.size());
      for (int64_t g : p.groups) EXPECT_NE(std::find(pool.begin(), pool.end(), g), pool.end());
    }
    EXPECT_EQ(first_round, (std::multiset<size_t>{0, 1, 3})) << "epoch " << e;
  }
  const std::string msg = test::error_of([] { EpochSampler(graphs_with_groups({1, 0}), 7, 8, 5); });
  EXPECT_NE(msg.find("two distinct configs"), std::string::npos) << msg;
  EXPECT_EQ(msg.rfind("made-up", 0), 0u) << msg;
}

TEST(Sampler, SampleGroupsTakesTheWholePoolWhenAskedForMore) {
  const std::vector<int64_t> pool = {4, 9, 2};
  EXPECT_EQ(sample_groups(pool, 3, 1), pool);
  EXPECT_EQ(sample_groups(pool, 10, 1), pool);
  EXPECT_EQ(sample_groups(pool, 2, 1).size(), 2u);
}

// Data-parallel processes wait for the slowest graph of a step: the steps
// of a balanced plan hold graphs of neighbouring sizes, and each window of
// 8 steps keeps the picks it had.
TEST(Sampler, BalancedStepsHoldGraphsOfSimilarSizeAndKeepEachWindowsPicks) {
  auto d = std::make_shared<PreparedData>();
  d->source = "made-up";
  const std::vector<int64_t> nodes{5, 900, 40, 7000, 12, 300, 2500, 60, 8, 1200, 75, 4000, 33, 150, 600, 20};
  d->train.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    d->train[i].tensors.num_nodes = nodes[i];
    d->train[i].train_groups = {0, 1};
  }
  std::vector<size_t> plan;
  for (int round = 0; round < 3; ++round)
    for (size_t i = 0; i < nodes.size(); ++i) plan.push_back((i * 7 + static_cast<size_t>(round) * 5) % nodes.size());
  plan.resize(45);  // a short last window and a short last step
  std::vector<size_t> balanced = plan;
  Rng rng(3);
  balance_steps(&balanced, 2, *d, rng);
  ASSERT_EQ(balanced.size(), plan.size());
  EXPECT_NE(balanced, plan);
  for (size_t at = 0; at < plan.size(); at += 16) {
    const size_t end = std::min(plan.size(), at + 16);
    std::vector<size_t> before(plan.begin() + at, plan.begin() + end), after(balanced.begin() + at, balanced.begin() + end);
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    EXPECT_EQ(before, after) << "window at " << at;
    // Sorted by size, the window's steps are neighbours: no step's pair has
    // a graph of the window between them in size.
    std::vector<int64_t> sizes;
    for (size_t k = at; k < end; ++k) sizes.push_back(nodes[balanced[k]]);
    std::vector<int64_t> sorted = sizes;
    std::sort(sorted.begin(), sorted.end());
    for (size_t k = 0; k + 1 < sizes.size(); k += 2) {
      const int64_t lo = std::min(sizes[k], sizes[k + 1]), hi = std::max(sizes[k], sizes[k + 1]);
      const auto between = std::count_if(sorted.begin(), sorted.end(), [&](int64_t v) { return v > lo && v < hi; });
      EXPECT_EQ(between, 0) << "step at " << at + k << ": " << lo << " and " << hi;
    }
  }
  EXPECT_EQ(balanced.back(), [&] {  // the short last step stays last
    std::vector<size_t> w(plan.begin() + 32, plan.end());
    std::stable_sort(w.begin(), w.end(), [&](size_t a, size_t b) { return nodes[a] < nodes[b]; });
    return w.back();
  }());
  std::vector<size_t> one = plan;
  balance_steps(&one, 1, *d, rng);
  EXPECT_EQ(one, plan);  // one graph per step: nothing to balance
}

}  // namespace
}  // namespace fastslow::train
