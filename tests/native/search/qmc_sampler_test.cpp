#include <gtest/gtest.h>

#include <set>

#include "search/search_sampler.h"
#include "search_test_util.h"

namespace fastslow::search {
namespace {

using namespace search_testing;

TEST(QmcSampler, EachParameterIsStratified) {
  Space s;
  s.params = {float_param("a", 0, 1), float_param("b", 0, 1), float_param("c", 0, 1)};
  for (uint64_t seed : {0, 1, 2}) {
    auto q = make_qmc_sampler(s, seed);
    std::vector<std::set<int>> bins(3);
    for (int n = 0; n < 64; ++n) {
      const auto p = *q->ask(n, {});
      int d = 0;
      for (const char* name : {"a", "b", "c"}) bins[d++].insert(static_cast<int>(p[name].get<double>() * 64));
    }
    // The first 64 points of a shifted Sobol sequence: one per 1/64 bin in every dimension.
    for (const auto& b : bins) EXPECT_EQ(b.size(), 64u) << "seed " << seed;
  }
}

TEST(QmcSampler, SeedsShiftThePointsAndAskingAgainRepeats) {
  Space s;
  s.params = {float_param("a", 0, 1), choice_param("m", {"x", "y"})};
  auto q0 = make_qmc_sampler(s, 0), q1 = make_qmc_sampler(s, 1);
  EXPECT_EQ(*q0->ask(5, {}), *q0->ask(5, {}));
  EXPECT_NE(*q0->ask(5, {}), *q1->ask(5, {}));
  // Categorical choices come in equal shares over a power of two.
  int x = 0;
  for (int n = 0; n < 32; ++n) x += (*q0->ask(n, {}))["m"] == "x";
  EXPECT_EQ(x, 16);
}

TEST(RandomSampler, StaysInTheSpaceAndRepeatsPerNumber) {
  Space s;
  s.params = {float_param("lr", 1e-4, 1e-2, true), int_param("h", 8, 64), choice_param("m", {"a", "b"})};
  auto r = make_random_sampler(s, 9);
  for (int n = 0; n < 200; ++n) {
    const auto p = *r->ask(n, {});
    EXPECT_GE(p["lr"].get<double>(), 1e-4);
    EXPECT_LE(p["lr"].get<double>(), 1e-2);
    EXPECT_TRUE(p["h"].is_number_integer());
    EXPECT_GE(p["h"].get<int64_t>(), 8);
    EXPECT_LE(p["h"].get<int64_t>(), 64);
  }
  EXPECT_EQ(*r->ask(17, {}), *make_random_sampler(s, 9)->ask(17, {}));
}

}  // namespace
}  // namespace fastslow::search
