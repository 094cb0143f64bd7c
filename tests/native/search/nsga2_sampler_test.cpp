#include <gtest/gtest.h>

#include <cmath>

#include "fastslow/error.h"
#include "search/hypervolume.h"
#include "search/search_sampler.h"
#include "search_test_util.h"

namespace fastslow::search {
namespace {

using namespace search_testing;

const std::vector<Objective> kTwo = {{"f1", Direction::Minimize}, {"f2", Direction::Minimize}};

// ZDT1 on six genes: front f2 = 1 - sqrt(f1) where x2..x6 = 0.
std::map<std::string, double> zdt1(const nlohmann::json& p) {
  const double x1 = p["x1"].get<double>();
  double g = 0;
  for (const char* k : {"x2", "x3", "x4", "x5", "x6"}) g += p[k].get<double>();
  g = 1 + 9 * g / 5;
  return {{"f1", x1}, {"f2", g * (1 - std::sqrt(x1 / g))}};
}

Space zdt_space() {
  Space s;
  for (const char* k : {"x1", "x2", "x3", "x4", "x5", "x6"}) s.params.push_back(float_param(k, 0, 1));
  return s;
}

double run_hv(SearchSampler& s, int trials) {
  std::vector<Trial> finished;
  std::vector<std::vector<double>> pts;
  for (int n = 0; n < trials; ++n) {
    Trial t;
    t.number = n;
    t.params = *s.ask(n, finished);
    t.objectives = zdt1(t.params);
    pts.push_back({t.objectives["f1"], t.objectives["f2"]});
    finished.push_back(t);
  }
  return hypervolume(pts, {Direction::Minimize, Direction::Minimize}, {1.1, 4.0});
}

TEST(Nsga2Sampler, BeatsRandomHypervolumeOnZdt1) {
  double nsga = 0, rnd = 0;
  for (uint64_t seed = 0; seed < 4; ++seed) {
    Nsga2Settings st;
    st.population = 16;
    auto n = make_nsga2_sampler(zdt_space(), kTwo, seed, st);
    auto r = make_random_sampler(zdt_space(), seed);
    nsga += run_hv(*n, 160) / 4;
    rnd += run_hv(*r, 160) / 4;
  }
  std::printf("ZDT1 hypervolume after 160 trials (mean of 4 seeds): nsga2 %.3f, random %.3f\n", nsga, rnd);
  EXPECT_GT(nsga, rnd);
}

TEST(Nsga2Sampler, IntegerAndCategoricalGenesStayValidAndRepeat) {
  Space s;
  s.params = {int_param("layers", 1, 4), choice_param("model", {"sage", "attn", "focus"}),
              float_param("lr", 1e-4, 1e-2, true)};
  Nsga2Settings st;
  st.population = 8;
  auto n = make_nsga2_sampler(s, kTwo, 0, st);
  std::vector<Trial> finished;
  for (int i = 0; i < 40; ++i) {
    Trial t;
    t.number = i;
    t.params = *n->ask(i, finished);
    EXPECT_EQ(t.params, *n->ask(i, finished));
    EXPECT_TRUE(t.params["layers"].is_number_integer());
    EXPECT_GE(t.params["layers"].get<int64_t>(), 1);
    EXPECT_LE(t.params["layers"].get<int64_t>(), 4);
    EXPECT_GE(s.params[1].choice_index(t.params["model"]), 0);
    const double lr = t.params["lr"].get<double>();
    EXPECT_TRUE(lr >= 1e-4 && lr <= 1e-2);
    t.objectives = {{"f1", static_cast<double>(t.params["layers"].get<int64_t>())}, {"f2", -std::log(lr)}};
    if (i % 7 == 3) t.state = TrialState::Failed, t.objectives.clear();  // failed ones count as the worst point
    finished.push_back(t);
  }
}

TEST(Nsga2Sampler, RefusesOneObjectiveAndBadPopulations) {
  Nsga2Settings st;
  EXPECT_THROW(make_nsga2_sampler(zdt_space(), {{"f1", Direction::Minimize}}, 0, st), Error);
  st.population = 10;
  EXPECT_THROW(make_nsga2_sampler(zdt_space(), kTwo, 0, st), Error);
}

}  // namespace
}  // namespace fastslow::search
