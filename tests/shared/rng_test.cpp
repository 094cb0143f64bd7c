#include "fastslow/rng.h"

#include <gtest/gtest.h>

#include <set>

#include "test_support.h"

namespace fastslow {
namespace {

TEST(Rng, UniformIntCoversItsRangeAndRefusesAnEmptyOne) {
  Rng rng(1);
  std::set<int64_t> seen;
  for (int i = 0; i < 2000; ++i) {
    const int64_t v = rng.uniform_int(-2, 3);
    EXPECT_GE(v, -2);
    EXPECT_LE(v, 3);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 6u);
  EXPECT_NE(test::error_of([&] { rng.uniform_int(2, 1); }), "");
}

// The trainer's draws are keyed by (seed, epoch, step): keys must not
// collide across nearby values, and the order of the two inputs matters.
TEST(Rng, MixSeedSeparatesNearbyKeys) {
  std::set<uint64_t> seeds;
  for (uint64_t a = 0; a < 64; ++a)
    for (uint64_t b = 0; b < 64; ++b) seeds.insert(mix_seed(a, b));
  EXPECT_EQ(seeds.size(), 64u * 64u);
  EXPECT_NE(mix_seed(1, 2), mix_seed(2, 1));
  EXPECT_EQ(mix_seed(7, 9), mix_seed(7, 9));
}

}  // namespace
}  // namespace fastslow
