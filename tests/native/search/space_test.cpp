#include "search/space.h"

#include <gtest/gtest.h>

#include "fastslow/error.h"
#include "search_test_util.h"

namespace fastslow::search {
namespace {

using search_testing::choice_param;
using search_testing::float_param;
using search_testing::int_param;

TEST(SearchSpace, UnitMapsToEveryValueInEqualShares) {
  const Param layers = int_param("layers", 1, 4);
  std::map<int64_t, int> count;
  for (int i = 0; i < 400; ++i) count[layers.from_unit((i + 0.5) / 400).get<int64_t>()]++;
  EXPECT_EQ(count, (std::map<int64_t, int>{{1, 100}, {2, 100}, {3, 100}, {4, 100}}));
  const Param model = choice_param("model", {"sage", "attn", "focus"});
  EXPECT_EQ(model.from_unit(0.0), "sage");
  EXPECT_EQ(model.from_unit(0.5), "attn");
  EXPECT_EQ(model.from_unit(1.0), "focus");  // the closed end stays in the list
  const Param lr = float_param("lr", 1e-4, 1e-2, true);
  EXPECT_NEAR(lr.from_unit(0.5).get<double>(), 1e-3, 1e-15);  // log scale: the geometric middle
  EXPECT_NEAR(float_param("x", 2, 4).from_unit(0.25).get<double>(), 2.5, 1e-15);
}

TEST(SearchSpace, ToUnitInvertsFromUnit) {
  for (const Param& p : {int_param("h", 8, 128, true), int_param("l", 0, 5), float_param("lr", 1e-5, 1e-1, true),
                         float_param("d", -1, 1)})
    for (double u : {0.0, 0.13, 0.5, 0.77, 1.0}) {
      const auto v = p.from_unit(u);
      EXPECT_EQ(p.from_unit(p.to_unit(v)), v) << p.name << " " << u;
    }
  const Param m = choice_param("m", {"a", 3, true});
  EXPECT_EQ(m.from_unit(m.to_unit(3)), 3);
  EXPECT_THROW(m.to_unit("b"), Error);
  EXPECT_THROW(int_param("l", 0, 5).to_unit(9), Error);
  EXPECT_THROW(float_param("x", 0, 1).to_unit("a"), Error);
}

TEST(SearchSpace, GridValues) {
  EXPECT_EQ(int_param("l", 1, 4).grid(5), (std::vector<nlohmann::json>{1, 2, 3, 4}));
  EXPECT_EQ(int_param("h", 16, 256, true).grid(5), (std::vector<nlohmann::json>{16, 32, 64, 128, 256}));
  const auto lr = float_param("lr", 1e-4, 1e-2, true).grid(3);
  ASSERT_EQ(lr.size(), 3u);
  EXPECT_NEAR(lr[1].get<double>(), 1e-3, 1e-15);
  EXPECT_EQ(choice_param("m", {"a", "b"}).grid(7), (std::vector<nlohmann::json>{"a", "b"}));
}

}  // namespace
}  // namespace fastslow::search
