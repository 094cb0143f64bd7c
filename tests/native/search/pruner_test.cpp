#include "search/pruner.h"

#include <gtest/gtest.h>

#include "fastslow/error.h"

namespace fastslow::search {
namespace {

Trial with_values(int64_t number, std::vector<double> values, TrialState state = TrialState::Complete) {
  Trial t;
  t.number = number;
  t.state = state;
  for (size_t i = 0; i < values.size(); ++i) t.intermediate.emplace_back(static_cast<int64_t>(i + 1), values[i]);
  return t;
}

TEST(MedianPruner, PrunesBelowTheMedianOnceStarted) {
  PrunerSettings s;
  s.startup = 3;
  auto p = make_pruner(s);
  std::vector<Trial> done = {with_values(0, {0.5, 0.6, 0.7}), with_values(1, {0.3, 0.4, 0.5})};
  // Two complete trials: below startup, never pruned.
  EXPECT_FALSE(p->prune(with_values(9, {0.0}), done, Direction::Maximize, 3));
  done.push_back(with_values(2, {0.4, 0.5, 0.6}));
  EXPECT_TRUE(p->prune(with_values(9, {0.39}), done, Direction::Maximize, 3));   // median at 1 is 0.4
  EXPECT_FALSE(p->prune(with_values(9, {0.41}), done, Direction::Maximize, 3));
  EXPECT_FALSE(p->prune(with_values(9, {0.39}), done, Direction::Minimize, 3));  // lower is better
  EXPECT_FALSE(p->prune(with_values(9, {0.1, 0.1, 0.1}), done, Direction::Maximize, 3));  // the last checkpoint
  // Pruned trials are not part of the median.
  done.push_back(with_values(3, {0.0}, TrialState::Pruned));
  done.push_back(with_values(4, {0.0}, TrialState::Pruned));
  EXPECT_FALSE(p->prune(with_values(9, {0.41}), done, Direction::Maximize, 3));
  s.warmup = 1;
  EXPECT_FALSE(make_pruner(s)->prune(with_values(9, {0.0}), done, Direction::Maximize, 3));
  EXPECT_FALSE(p->why(with_values(9, {0.0})).empty());
}

TEST(HalvingPruner, KeepsTheBestShareAtEachRung) {
  PrunerSettings s;
  s.name = "halving";
  s.reduction = 2;
  auto p = make_pruner(s);
  // The first trial at a rung always goes on.
  EXPECT_FALSE(p->prune(with_values(0, {0.1}), {}, Direction::Maximize, 8));
  std::vector<Trial> done = {with_values(0, {0.5, 0.5, 0.5, 0.5}), with_values(1, {0.3}, TrialState::Pruned),
                             with_values(2, {0.4, 0.45}, TrialState::Pruned)};
  // Rung 1: 4 values with the new one, the best 2 go on.
  EXPECT_TRUE(p->prune(with_values(9, {0.35}), done, Direction::Maximize, 8));
  EXPECT_FALSE(p->prune(with_values(9, {0.45}), done, Direction::Maximize, 8));
  // Checkpoint 3 is no rung (1, 2, 4, ...): never judged.
  EXPECT_FALSE(p->prune(with_values(9, {0.9, 0.9, 0.0}), done, Direction::Maximize, 8));
  // Rung 2: 0.5 and 0.45 reached it; with 0.3 the best max(1, 3/2) = 1 goes on.
  EXPECT_TRUE(p->prune(with_values(9, {0.9, 0.3}), done, Direction::Maximize, 8));
  EXPECT_FALSE(p->prune(with_values(9, {0.9, 0.6}), done, Direction::Maximize, 8));
}

TEST(Pruners, NamesAndSettingsAreChecked) {
  PrunerSettings s;
  s.name = "none";
  EXPECT_EQ(make_pruner(s), nullptr);
  s.name = "hyperband";
  EXPECT_THROW(make_pruner(s), Error);
  s.name = "halving";
  s.reduction = 1;
  EXPECT_THROW(make_pruner(s), Error);
}

}  // namespace
}  // namespace fastslow::search
