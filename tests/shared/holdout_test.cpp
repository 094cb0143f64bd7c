#include "fastslow/data/holdout.h"

#include <set>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "test_support.h"

namespace fastslow {
namespace {

using Ids = std::vector<int64_t>;

void expect_partition(const HoldoutSplit& s, int64_t n) {
  EXPECT_TRUE(std::is_sorted(s.train.begin(), s.train.end()));
  EXPECT_TRUE(std::is_sorted(s.holdout.begin(), s.holdout.end()));
  Ids all = s.train;
  all.insert(all.end(), s.holdout.begin(), s.holdout.end());
  std::sort(all.begin(), all.end());
  Ids want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) want[i] = i;
  EXPECT_EQ(all, want);  // disjoint and complete
}

TEST(HoldoutSplit, SameSeedSameSplitOtherSeedOther) {
  const HoldoutSplit a = split_holdout(100, 0.2, 42);
  const HoldoutSplit b = split_holdout(100, 0.2, 42);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.holdout, b.holdout);
  const HoldoutSplit c = split_holdout(100, 0.2, 43);
  EXPECT_NE(a.holdout, c.holdout);
  expect_partition(a, 100);
  expect_partition(c, 100);
}

TEST(HoldoutSplit, PinnedSplitIsPortable) {
  // The same numbers natively and in wasm: the shuffle uses only mt19937_64's
  // fixed output, never <random>'s distributions.
  const HoldoutSplit s = split_holdout(10, 0.3, 42);
  EXPECT_EQ(s.holdout, Ids({1, 7, 9}));
  expect_partition(s, 10);
}

TEST(HoldoutSplit, SizesRoundAndClamp) {
  EXPECT_EQ(split_holdout(10, 0.2, 1).holdout.size(), 2u);
  EXPECT_EQ(split_holdout(10, 0.2, 1).train.size(), 8u);
  EXPECT_EQ(split_holdout(5, 0.5, 1).holdout.size(), 3u);   // 2.5 rounds up
  EXPECT_EQ(split_holdout(30, 0.1, 1).holdout.size(), 3u);  // 3.0000000000000004
  EXPECT_EQ(split_holdout(1000, 0.1234, 1).holdout.size(), 123u);
  // At least one held out and at least one kept for training.
  EXPECT_EQ(split_holdout(3, 0.01, 1).holdout.size(), 1u);
  EXPECT_EQ(split_holdout(3, 0.99, 1).holdout.size(), 2u);
  const HoldoutSplit two = split_holdout(2, 0.5, 9);
  EXPECT_EQ(two.holdout.size(), 1u);
  EXPECT_EQ(two.train.size(), 1u);
  expect_partition(two, 2);
  for (int64_t n : {2, 3, 7, 64, 1001}) expect_partition(split_holdout(n, 0.3, static_cast<uint64_t>(n)), n);
}

TEST(HoldoutSplit, EveryGroupEquallyLikely) {
  // 3 of 10 held out over 3000 seeds: each group ~900 times (sd ~25).
  std::vector<int> count(10, 0);
  for (uint64_t seed = 0; seed < 3000; ++seed)
    for (int64_t g : split_holdout(10, 0.3, seed).holdout) ++count[g];
  for (int g = 0; g < 10; ++g) {
    EXPECT_GT(count[g], 800) << "group " << g;
    EXPECT_LT(count[g], 1000) << "group " << g;
  }
}

TEST(HoldoutSplit, RejectsBadArguments) {
  for (double f : {1.0, -0.1, 1.5, -0.0001, std::nan("")}) {
    const std::string e = test::error_of([f] { split_holdout(10, f, 1); });
    EXPECT_NE(e.find("fraction"), std::string::npos) << f << ": " << e;
  }
  for (int64_t n : {1, 0, -3}) {
    const std::string e = test::error_of([n] { split_holdout(n, 0.5, 1); });
    EXPECT_NE(e.find(std::to_string(n)), std::string::npos) << e;
  }
}

TEST(HoldoutSplit, ZeroHoldsNothingOut) {
  for (int64_t n : {1, 2, 681}) {
    const HoldoutSplit s = split_holdout(n, 0.0, 9);
    EXPECT_TRUE(s.holdout.empty());
    EXPECT_TRUE(s.valid.empty());
    ASSERT_EQ(static_cast<int64_t>(s.train.size()), n);
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(s.train[static_cast<size_t>(i)], i);
  }
  EXPECT_NE(test::error_of([] { split_holdout(0, 0.0, 1); }).find("no unique configs"), std::string::npos);
}

void expect_partition3(const HoldoutSplit& s, int64_t n) {
  for (const Ids* part : {&s.train, &s.valid, &s.holdout}) EXPECT_TRUE(std::is_sorted(part->begin(), part->end()));
  Ids all = s.train;
  all.insert(all.end(), s.valid.begin(), s.valid.end());
  all.insert(all.end(), s.holdout.begin(), s.holdout.end());
  std::sort(all.begin(), all.end());
  Ids want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) want[i] = i;
  EXPECT_EQ(all, want);
}

TEST(ProgramSplit, ThreeWaysWithTheSameHeldOutGroups) {
  for (int64_t n : {3, 10, 681, 29905}) {
    const HoldoutSplit two = split_holdout(n, 0.2, 5);
    const HoldoutSplit three = split_program(n, 0.2, 0.1, 5);
    EXPECT_EQ(three.holdout, two.holdout) << n;  // a valid share never changes what is held out
    expect_partition3(three, n);
    EXPECT_GE(three.valid.size(), 1u);
    EXPECT_GE(three.train.size(), 1u);
    if (n >= 100) {
      EXPECT_EQ(static_cast<int64_t>(three.valid.size()), std::llround(0.1 * static_cast<double>(n))) << n;
      EXPECT_EQ(static_cast<int64_t>(three.train.size()), n - static_cast<int64_t>(three.valid.size()) -
                                                              static_cast<int64_t>(three.holdout.size()));
    }
  }
  EXPECT_NE(split_program(100, 0.2, 0.1, 5).valid, split_program(100, 0.2, 0.1, 6).valid);
  EXPECT_EQ(split_program(100, 0.2, 0.1, 5).valid, split_program(100, 0.2, 0.1, 5).valid);
}

TEST(ProgramSplit, NoValidShareIsTheTwoWaySplit) {
  const HoldoutSplit a = split_program(50, 0.3, 0.0, 2), b = split_holdout(50, 0.3, 2);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.holdout, b.holdout);
  EXPECT_TRUE(a.valid.empty());
}

TEST(ProgramSplit, RejectsSharesThatLeaveNothing) {
  EXPECT_NE(test::error_of([] { split_program(10, 0.5, 0.5, 1); }).find("nothing to train"), std::string::npos);
  EXPECT_NE(test::error_of([] { split_program(10, 0.2, 1.0, 1); }).find("valid share"), std::string::npos);
  EXPECT_NE(test::error_of([] { split_program(10, 0.2, -0.1, 1); }).find("valid share"), std::string::npos);
  EXPECT_NE(test::error_of([] { split_program(2, 0.2, 0.1, 1); }).find("at least 3"), std::string::npos);
  EXPECT_NE(test::error_of([] { split_program(10, 0.0, 0.0, 1); }).find("nothing is left to validate"),
            std::string::npos);
  EXPECT_NE(test::error_of([] { split_program(1, 0.0, 0.5, 1); }).find("at least 2"), std::string::npos);
}

// --holdout 0: every config learns or validates; the valid share is the one
// the same seed draws with a held-out share (the second stream), so only
// the held-out groups move to training.
TEST(ProgramSplit, NoHeldOutShareValidatesOnTheValidShare) {
  for (int64_t n : {2, 10, 681}) {
    const HoldoutSplit s = split_program(n, 0.0, 0.1, 4);
    EXPECT_TRUE(s.holdout.empty());
    expect_partition3(s, n);
    EXPECT_GE(s.valid.size(), 1u);
    EXPECT_GE(s.train.size(), 1u);
    if (n >= 100) {
      EXPECT_EQ(static_cast<int64_t>(s.valid.size()), std::llround(0.1 * static_cast<double>(n)));
    }
  }
  EXPECT_EQ(split_program(100, 0.0, 0.1, 5).valid, split_program(100, 0.0, 0.1, 5).valid);
  EXPECT_NE(split_program(100, 0.0, 0.1, 5).valid, split_program(100, 0.0, 0.1, 6).valid);
}

// Few measurements: N measured, every other config held out; a larger N
// keeps a smaller one's measured configs (one learning curve is one draw).
TEST(MeasuredSplit, HoldsOutEverythingUnmeasuredAndGrowsNested) {
  const int64_t n = 681;
  std::set<int64_t> before;
  for (int64_t m : {16, 32, 64, 128, 681}) {
    const HoldoutSplit s = split_measured(n, m, 0.0, 7);
    EXPECT_EQ(static_cast<int64_t>(s.train.size()), m);
    EXPECT_TRUE(s.valid.empty());
    expect_partition3(s, n);
    const std::set<int64_t> now(s.train.begin(), s.train.end());
    for (int64_t g : before) EXPECT_EQ(now.count(g), 1u) << "N = " << m << " dropped config " << g;
    before = now;
  }
  EXPECT_NE(split_measured(n, 16, 0.0, 7).train, split_measured(n, 16, 0.0, 8).train);
  // A valid share comes out of the measured configs, never the held-out ones.
  const HoldoutSplit v = split_measured(n, 32, 0.25, 7);
  EXPECT_EQ(v.valid.size(), 8u);
  EXPECT_EQ(v.train.size(), 24u);
  EXPECT_EQ(v.holdout, split_measured(n, 32, 0.0, 7).holdout);
  expect_partition3(v, n);
  EXPECT_NE(test::error_of([] { split_measured(10, 11, 0.0, 1); }).find("10 unique configs"), std::string::npos);
  EXPECT_NE(test::error_of([] { split_measured(10, 1, 0.0, 1); }).find("at least 2"), std::string::npos);
  EXPECT_NE(test::error_of([] { split_measured(10, 2, 0.1, 1); }).find("at least 3"), std::string::npos);
}

// Groups the file holds no runtime for (0: never measured) are in no part.
// A split is drawn over every group, so filling in a runtime later moves
// no other group: each part is the unmasked split's part without them.
TEST(Unmeasured, GroupsWithoutARuntimeAreInNoPartAndMoveNoOther) {
  const int64_t n = 60;
  std::vector<char> none(static_cast<size_t>(n), 0);
  for (int64_t g = 0; g < n; g += 4) none[static_cast<size_t>(g)] = 1;
  const auto in_none = [&](const std::vector<int64_t>& part) {
    return std::none_of(part.begin(), part.end(), [&](int64_t g) { return none[static_cast<size_t>(g)] != 0; });
  };
  const HoldoutSplit all = split_program(n, 0.2, 0.1, 7);
  const HoldoutSplit h = without_unmeasured(all, none);
  for (const auto* part : {&h.train, &h.valid, &h.holdout}) EXPECT_TRUE(in_none(*part));
  const auto kept = [&](const std::vector<int64_t>& part) {
    std::vector<int64_t> out;
    for (int64_t g : part)
      if (!none[static_cast<size_t>(g)]) out.push_back(g);
    return out;
  };
  EXPECT_EQ(h.train, kept(all.train));
  EXPECT_EQ(h.valid, kept(all.valid));
  EXPECT_EQ(h.holdout, kept(all.holdout));
  EXPECT_EQ(static_cast<int64_t>(h.train.size() + h.valid.size() + h.holdout.size()), n - 15);

  // Few measurements: N of the groups with a runtime, nested as N grows,
  // and a runtime filled in for a held-out group changes no pick.
  const HoldoutSplit m10 = split_measured(n, 10, 0.2, 3, none), m5 = split_measured(n, 5, 0.0, 3, none);
  for (const auto* part : {&m10.train, &m10.valid, &m10.holdout}) EXPECT_TRUE(in_none(*part));
  EXPECT_EQ(m10.train.size() + m10.valid.size(), 10u);
  EXPECT_EQ(static_cast<int64_t>(m10.holdout.size()), n - 15 - 10);
  std::vector<int64_t> picked = m10.train;
  picked.insert(picked.end(), m10.valid.begin(), m10.valid.end());
  for (int64_t g : m5.train) EXPECT_NE(std::find(picked.begin(), picked.end(), g), picked.end()) << g;
  std::vector<char> filled = none;
  int64_t late = -1;  // an unmeasured group, now measured: drawn after the 10 picks?
  for (int64_t g = 0; g < n && late < 0; g += 4) {
    filled[static_cast<size_t>(g)] = 0;
    const HoldoutSplit f = split_measured(n, 10, 0.2, 3, filled);
    if (f.train == m10.train && f.valid == m10.valid) late = g;
    else filled[static_cast<size_t>(g)] = 1;
  }
  EXPECT_GE(late, 0) << "every filled-in group was drawn among the first 10";
  // Asking for more than the file measured names both counts.
  const std::string e = test::error_of([&] { split_measured(n, 50, 0.0, 3, none); });
  EXPECT_NE(e.find("45 unique configs with a runtime (60 in all)"), std::string::npos) << e;
  // Without a mask: the split of old.
  EXPECT_EQ(split_measured(n, 10, 0.2, 3, {}).train, split_measured(n, 10, 0.2, 3).train);
}

}  // namespace
}  // namespace fastslow
