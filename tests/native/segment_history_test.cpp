// The table of stale segment outputs (train/segment_history.h): indexed by
// (graph, group, segment), never mixing graphs or groups.
#include "train/segment_history.h"

#include <gtest/gtest.h>

#include "fastslow/error.h"

namespace fastslow::train {
namespace {

TEST(SegmentHistory, StoresPerGraphGroupAndSegmentAndNamesWhatIsMissing) {
  SegmentHistory h;
  EXPECT_EQ(h.missing(0, 1, {4, 7}), (std::vector<int64_t>{0, 1}));
  h.put(0, 3, 1, {4, 7}, torch::tensor({1.f, 2.f, 3.f, 4.f}).view({2, 2}));
  EXPECT_TRUE(h.missing(0, 1, {7, 4}).empty());
  EXPECT_EQ(h.missing(0, 0, {4, 7}), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(h.missing(1, 1, {4}), (std::vector<int64_t>{0}));  // another graph
  EXPECT_EQ(h.missing(0, 1, {4, 5}), (std::vector<int64_t>{1}));  // another group
  EXPECT_THROW(h.get(0, {4}), Error);  // segments 0 and 2 not stored yet
  h.put(0, 3, 0, {4}, torch::tensor({5.f, 6.f}).view({1, 2}));
  h.put(0, 3, 2, {4}, torch::tensor({7.f, 8.f}).view({1, 2}));
  h.put(0, 3, 1, {4}, torch::tensor({9.f, 10.f}).view({1, 2}));  // a newer share replaces the stale one
  const torch::Tensor got = h.get(0, {4});
  EXPECT_TRUE(torch::equal(got, torch::tensor({5.f, 6.f, 9.f, 10.f, 7.f, 8.f}).view({3, 1, 2})));
  EXPECT_EQ(h.bytes(), 2 * 3 * 2 * 4);
  const torch::Tensor fresh = torch::ones({1, 2}, torch::requires_grad());
  h.put(0, 3, 0, {4}, fresh * 2);
  EXPECT_FALSE(h.get(0, {4}).requires_grad());  // stored without the graph that made it
  EXPECT_THROW(h.put(0, 3, 0, {4, 7}, torch::ones({1, 2})), Error);
}

TEST(SegmentHistory, SharesOlderThanAStepCountAsMissing) {
  SegmentHistory h;
  h.put(2, 2, 0, {1, 2}, torch::zeros({2, 1}), 10);
  h.put(2, 2, 0, {2}, torch::zeros({1, 1}), 30);
  EXPECT_TRUE(h.missing(2, 0, {1, 2}).empty());  // no limit
  EXPECT_TRUE(h.missing(2, 0, {1, 2}, 10).empty());
  EXPECT_EQ(h.missing(2, 0, {1, 2}, 11), (std::vector<int64_t>{0}));
  EXPECT_EQ(h.missing(2, 0, {1, 2}, 31), (std::vector<int64_t>{0, 1}));
}

}  // namespace
}  // namespace fastslow::train
