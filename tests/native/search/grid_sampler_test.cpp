// Bar 2 of the search issue: a grid study over a tiny space returns the
// exact optimum of that grid.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "search/search_sampler.h"
#include "search/study.h"
#include "search_test_util.h"
#include "test_support.h"

namespace fastslow::search {
namespace {

using namespace search_testing;
using test::TempDir;

double f(const nlohmann::json& p) {
  const double x = p.at("x").get<double>();
  const double l = static_cast<double>(p.at("layers").get<int64_t>());
  const double m = p.at("model") == "attn" ? 0.3 : 0.0;
  return -std::pow(x - 0.3, 2) - std::pow(l - 3, 2) * 0.1 + m;
}

TEST(GridSampler, VisitsEveryPointOnceThenStops) {
  Space s;
  s.params = {float_param("x", 0, 1), int_param("layers", 1, 4), choice_param("model", {"sage", "attn"})};
  auto g = make_grid_sampler(s, 3, GridSettings{5});
  ASSERT_EQ(g->size(), 5 * 4 * 2);
  std::set<std::string> seen;
  for (int64_t n = 0; n < 40; ++n) seen.insert(g->ask(n, {})->dump());
  EXPECT_EQ(seen.size(), 40u);
  EXPECT_FALSE(g->ask(40, {}).has_value());
  // Another seed: the same points in another order.
  auto h = make_grid_sampler(s, 4, GridSettings{5});
  std::set<std::string> other;
  for (int64_t n = 0; n < 40; ++n) other.insert(h->ask(n, {})->dump());
  EXPECT_EQ(seen, other);
  EXPECT_NE(g->ask(0, {})->dump() + g->ask(1, {})->dump(), h->ask(0, {})->dump() + h->ask(1, {})->dump());
}

TEST(GridSampler, StudyFindsTheGridsExactOptimum) {
  Space s;
  s.params = {float_param("x", 0, 1), int_param("layers", 1, 4), choice_param("model", {"sage", "attn"})};
  // The optimum by enumerating the grid here.
  double best = -1e9;
  nlohmann::json best_p;
  for (const auto& x : s.params[0].grid(5))
    for (const auto& l : s.params[1].grid(5))
      for (const auto& m : s.params[2].grid(5)) {
        const nlohmann::json p = {{"x", x}, {"layers", l}, {"model", m}};
        if (f(p) > best) best = f(p), best_p = p;
      }
  TempDir dir;
  auto g = make_grid_sampler(s, 0, GridSettings{5});
  FunctionRunner runner([](const nlohmann::json& p) { return std::map<std::string, double>{{"score", f(p)}}; }, "score");
  StudySettings st;
  st.out = dir.path();
  st.objectives = {{"score", Direction::Maximize}};
  st.trials = 1000;
  const StudyResult r = run_study(st, *g, nullptr, runner, {});
  EXPECT_TRUE(r.exhausted);
  EXPECT_EQ(r.study.trials.size(), 40u);
  ASSERT_EQ(r.front.size(), 1u);
  EXPECT_EQ(r.study.trials[r.front[0]].params, best_p);
  EXPECT_DOUBLE_EQ(r.study.trials[r.front[0]].objectives.at("score"), best);
}

}  // namespace
}  // namespace fastslow::search
