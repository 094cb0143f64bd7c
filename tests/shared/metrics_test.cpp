#include "fastslow/rank/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/rank/rank_inputs.h"

namespace fastslow {
namespace {

// ---- Naive O(n^2) references, written straight from the definitions. ----

double naive_tau_b(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = x.size();
  int64_t concordant = 0, discordant = 0, tied_x = 0, tied_y = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) {
      const bool tx = x[i] == x[j], ty = y[i] == y[j];
      if (tx) ++tied_x;
      if (ty) ++tied_y;
      if (tx || ty) continue;
      if ((x[i] < x[j]) == (y[i] < y[j]))
        ++concordant;
      else
        ++discordant;
    }
  const int64_t total = static_cast<int64_t>(n * (n - 1) / 2);
  if (n < 2 || tied_x == total || tied_y == total) return kNaN;
  return static_cast<double>(concordant - discordant) /
         std::sqrt(static_cast<double>(total - tied_x) *
                   static_cast<double>(total - tied_y));
}

double naive_opa(const std::vector<double>& score,
                 const std::vector<double>& runtime) {
  int64_t right = 0, total = 0;
  for (size_t i = 0; i < score.size(); ++i)
    for (size_t j = 0; j < score.size(); ++j)
      if (runtime[i] < runtime[j]) {
        ++total;
        if (score[i] < score[j]) ++right;
      }
  if (total == 0) return kNaN;
  return static_cast<double>(right) / static_cast<double>(total);
}

double naive_top_k(const std::vector<int64_t>& ranking,
                   const std::vector<double>& runtime, int k) {
  double best = runtime[0];
  for (double r : runtime) best = std::min(best, r);
  double best_k = runtime[static_cast<size_t>(ranking[0])];
  for (size_t i = 0; i < ranking.size() && i < static_cast<size_t>(k); ++i)
    best_k = std::min(best_k, runtime[static_cast<size_t>(ranking[i])]);
  return best_k / best - 1.0;
}

// Values drawn from a small integer range give many ties; range 0 means
// continuous values.
std::vector<double> random_values(std::mt19937_64& rng, size_t n, int range) {
  std::vector<double> v(n);
  std::uniform_int_distribution<int> small(1, std::max(range, 1));
  std::uniform_real_distribution<double> real(0.5, 100.0);
  for (double& x : v) x = range == 0 ? real(rng) : small(rng);
  return v;
}

void expect_same(double expected, double actual) {
  if (std::isnan(expected))
    EXPECT_TRUE(std::isnan(actual)) << actual;
  else
    EXPECT_NEAR(expected, actual, 1e-12);
}

const int kRanges[] = {0, 1, 2, 3, 5, 10, 50};

// ---- Kendall tau ----

TEST(KendallTau, PerfectAndReversedOrder) {
  const std::vector<double> x = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(kendall_tau(x, {10, 20, 30, 40, 50}), 1.0);
  EXPECT_DOUBLE_EQ(kendall_tau(x, {5, 4, 3, 2, 1}), -1.0);
}

TEST(KendallTau, HandComputedWithTies) {
  // x = 1 2 2 3, y = 1 3 2 2. Pairs: (0,1) C, (0,2) C, (0,3) C,
  // (1,2) tied in x, (1,3) D, (2,3) tied in y. C=3, D=1, total=6,
  // tied_x=1, tied_y=1: tau_b = 2 / sqrt(5 * 5) = 0.4.
  EXPECT_NEAR(kendall_tau({1, 2, 2, 3}, {1, 3, 2, 2}), 0.4, 1e-15);
  // A pair tied on both sides is dropped from both denominator terms:
  // x = 1 1 2, y = 5 5 6: C=2, D=0, tied_x=1, tied_y=1, total=3:
  // tau_b = 2 / sqrt(2 * 2) = 1.
  EXPECT_NEAR(kendall_tau({1, 1, 2}, {5, 5, 6}), 1.0, 1e-15);
}

// The null standard deviation against the tau of random orders: a naive
// reference (the spread of kendall_tau over many shuffles), n = 3 and 29.
TEST(KendallTau, NullSdIsTheSpreadOfRandomOrders) {
  EXPECT_TRUE(std::isnan(kendall_null_sd(1)));
  EXPECT_NEAR(kendall_null_sd(3), std::sqrt(22.0 / 54.0), 1e-12);
  std::mt19937 gen(5);
  for (int n : {3, 29}) {
    std::vector<double> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    std::iota(a.begin(), a.end(), 0.0);
    std::iota(b.begin(), b.end(), 0.0);
    double sum = 0, sq = 0;
    const int trials = 20000;
    for (int t = 0; t < trials; ++t) {
      std::shuffle(b.begin(), b.end(), gen);
      const double k = kendall_tau(a, b);
      sum += k;
      sq += k * k;
    }
    const double mean = sum / trials, sd = std::sqrt(sq / trials - mean * mean);
    EXPECT_NEAR(sd, kendall_null_sd(n), 0.02 * kendall_null_sd(n)) << "n " << n;
  }
}

TEST(KendallTau, UndefinedCases) {
  EXPECT_TRUE(std::isnan(kendall_tau({}, {})));
  EXPECT_TRUE(std::isnan(kendall_tau({1}, {2})));
  EXPECT_TRUE(std::isnan(kendall_tau({3, 3, 3}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(kendall_tau({1, 2, 3}, {7, 7, 7})));
}

TEST(KendallTau, MatchesNaiveOnRandomInputs) {
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<size_t> size(2, 300);
  for (int trial = 0; trial < 700; ++trial) {
    const size_t n = size(rng);
    const int range_x = kRanges[trial % 7], range_y = kRanges[(trial / 7) % 7];
    const auto x = random_values(rng, n, range_x);
    const auto y = random_values(rng, n, range_y);
    SCOPED_TRACE(testing::Message() << "trial " << trial << " n " << n);
    expect_same(naive_tau_b(x, y), kendall_tau(x, y));
  }
}

// ---- Ordered pair accuracy ----

TEST(OrderedPairAccuracy, HandComputed) {
  // runtime 1 2 3, score 3 1 2: only pair (1,2) is ordered right: 1/3.
  EXPECT_NEAR(ordered_pair_accuracy({3, 1, 2}, {1, 2, 3}), 1.0 / 3, 1e-15);
  // score tie on pair (0,1) counts as wrong: 2/3.
  EXPECT_NEAR(ordered_pair_accuracy({1, 1, 2}, {1, 2, 3}), 2.0 / 3, 1e-15);
  // runtime tie (0,1) is not a pair; (0,2) and (1,2) are both right.
  EXPECT_NEAR(ordered_pair_accuracy({2, 1, 3}, {1, 1, 2}), 1.0, 1e-15);
  EXPECT_NEAR(ordered_pair_accuracy({3, 2, 1}, {1, 2, 3}), 0.0, 1e-15);
}

TEST(OrderedPairAccuracy, UndefinedCases) {
  EXPECT_TRUE(std::isnan(ordered_pair_accuracy({}, {})));
  EXPECT_TRUE(std::isnan(ordered_pair_accuracy({1}, {1})));
  EXPECT_TRUE(std::isnan(ordered_pair_accuracy({1, 2, 3}, {4, 4, 4})));
  // All scores tied but runtimes distinct: defined, and all wrong.
  EXPECT_EQ(ordered_pair_accuracy({4, 4, 4}, {1, 2, 3}), 0.0);
}

TEST(OrderedPairAccuracy, MatchesNaiveOnRandomInputs) {
  std::mt19937_64 rng(777);
  std::uniform_int_distribution<size_t> size(2, 300);
  for (int trial = 0; trial < 700; ++trial) {
    const size_t n = size(rng);
    const int range_s = kRanges[trial % 7], range_r = kRanges[(trial / 7) % 7];
    const auto s = random_values(rng, n, range_s);
    const auto r = random_values(rng, n, range_r);
    SCOPED_TRACE(testing::Message() << "trial " << trial << " n " << n);
    expect_same(naive_opa(s, r), ordered_pair_accuracy(s, r));
  }
}

// ---- Input validation ----

TEST(Validation, LengthMismatchThrows) {
  EXPECT_THROW(kendall_tau({1, 2}, {1, 2, 3}), Error);
  EXPECT_THROW(ordered_pair_accuracy({1, 2, 3}, {1, 2}), Error);
  EXPECT_THROW(evaluate_graph({1}, {1, 2}), Error);
}

TEST(Validation, NaNThrowsNamingVectorAndIndex) {
  const std::vector<double> ok = {1, 2, 3};
  const std::vector<double> bad = {1, kNaN, 3};
  try {
    kendall_tau(ok, bad);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("runtime[1]"), std::string::npos)
        << e.what();
  }
  try {
    ordered_pair_accuracy(bad, ok);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("score[1]"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(ranking_from_scores(bad), Error);
  EXPECT_THROW(top_k_error({0, 1, 2}, bad, 1), Error);
  EXPECT_THROW(evaluate_graph(bad, ok), Error);
}

// ---- Ranking and top-K ----

TEST(Ranking, AscendingWithIndexTieBreak) {
  EXPECT_EQ(ranking_from_scores({3.0, 1.0, 2.0, 1.0, -5.0}),
            (std::vector<int64_t>{4, 1, 3, 2, 0}));
  EXPECT_TRUE(ranking_from_scores({}).empty());
}

TEST(TopK, HandComputed) {
  const std::vector<double> runtime = {5, 3, 4, 1, 2};
  const std::vector<int64_t> ranking = {2, 0, 3, 1, 4};
  EXPECT_DOUBLE_EQ(top_k_error(ranking, runtime, 1), 3.0);  // 4/1 - 1
  EXPECT_DOUBLE_EQ(top_k_error(ranking, runtime, 2), 3.0);  // min(4,5)/1 - 1
  EXPECT_DOUBLE_EQ(top_k_error(ranking, runtime, 3), 0.0);  // finds the 1
  EXPECT_DOUBLE_EQ(top_k_error(ranking, runtime, 100), 0.0);  // k > n
  // A ranking shorter than the runtimes: k beyond it uses what is there.
  EXPECT_DOUBLE_EQ(top_k_error({4}, runtime, 10), 1.0);  // 2/1 - 1
  // Duplicates are allowed.
  EXPECT_DOUBLE_EQ(top_k_error({0, 0, 3}, runtime, 2), 4.0);  // 5/1 - 1
}

TEST(TopK, InvalidArgumentsThrow) {
  const std::vector<double> runtime = {1, 2, 3};
  EXPECT_THROW(top_k_error({0, 1, 2}, runtime, 0), Error);
  EXPECT_THROW(top_k_error({0, 1, 2}, runtime, -3), Error);
  EXPECT_THROW(top_k_error({}, runtime, 1), Error);
  EXPECT_THROW(top_k_error({0}, {}, 1), Error);
  EXPECT_THROW(top_k_error({0, 3}, runtime, 1), Error);
  EXPECT_THROW(top_k_error({-1, 0}, runtime, 1), Error);
  EXPECT_THROW(top_k_error({0, 1}, {0.0, 1.0}, 1), Error);
}

TEST(TopK, MatchesNaiveOnRandomInputs) {
  std::mt19937_64 rng(4242);
  std::uniform_int_distribution<size_t> size(1, 300);
  for (int trial = 0; trial < 500; ++trial) {
    const size_t n = size(rng);
    const auto runtime = random_values(rng, n, kRanges[trial % 7]);
    std::uniform_int_distribution<int64_t> index(0, static_cast<int64_t>(n) - 1);
    std::uniform_int_distribution<size_t> length(1, n + 5);
    std::vector<int64_t> ranking(length(rng));
    for (int64_t& r : ranking) r = index(rng);
    std::uniform_int_distribution<int> kdist(1, static_cast<int>(n) + 10);
    const int k = kdist(rng);
    SCOPED_TRACE(testing::Message() << "trial " << trial << " n " << n);
    expect_same(naive_top_k(ranking, runtime, k),
                top_k_error(ranking, runtime, k));
  }
}

TEST(TileScore, HandComputed) {
  // Best (1) is ranked sixth; best of the top five is 2: 2 - 2/1 = 0.
  const std::vector<double> runtime = {2, 3, 4, 5, 6, 1};
  EXPECT_DOUBLE_EQ(tile_score({0, 1, 2, 3, 4, 5}, runtime), 0.0);
  EXPECT_DOUBLE_EQ(tile_score({5, 0, 1, 2, 3, 4}, runtime), 1.0);
  // Fewer than five configurations: all of them are in the top five.
  EXPECT_DOUBLE_EQ(tile_score({1, 0, 2}, {10, 20, 5}), 1.0);
}

// ---- Graph and collection ----

TEST(EvaluateGraph, CombinesTheMetrics) {
  const std::vector<double> score = {0.3, 0.1, 0.2, 0.9, 0.5, 0.4,
                                     0.8, 0.7, 0.6, 0.0, 1.0, 0.05};
  const std::vector<double> runtime = {4, 2, 3, 9, 1, 6, 8, 7, 5, 10, 11, 12};
  const GraphMetrics m = evaluate_graph(score, runtime);
  const auto ranking = ranking_from_scores(score);
  EXPECT_EQ(m.configs, 12);
  EXPECT_DOUBLE_EQ(m.kendall, naive_tau_b(score, runtime));
  EXPECT_DOUBLE_EQ(m.opa, naive_opa(score, runtime));
  // Ranking (runtime): 9 (10), 11 (12), 1 (2), 2 (3), 0 (4), 5 (6), 4 (1), ...
  EXPECT_DOUBLE_EQ(m.top1, 9.0);
  EXPECT_DOUBLE_EQ(m.top5, 1.0);
  EXPECT_DOUBLE_EQ(m.top10, 0.0);
  EXPECT_DOUBLE_EQ(m.tile_score, 0.0);
  EXPECT_DOUBLE_EQ(m.top5, top_k_error(ranking, runtime, 5));
}

// A file with zero runtimes among measured ones opens (validation warns);
// ranking it once failed on its metrics with "runtimes must be positive",
// then counted its unmeasured configs as the fastest of all in Kendall.
// A zero is no measurement: every metric is over the measured configs.
TEST(EvaluateGraph, ZeroRuntimesAreLeftOutOfEveryMetric) {
  const std::vector<double> score = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
  const std::vector<double> runtime = {0, 5, 3, 0, 4, 9};
  const GraphMetrics m = evaluate_graph(score, runtime);
  const std::vector<double> s = {0.2, 0.3, 0.5, 0.6}, r = {5, 3, 4, 9};
  EXPECT_EQ(m.configs, 4);
  EXPECT_DOUBLE_EQ(m.kendall, naive_tau_b(s, r));
  EXPECT_DOUBLE_EQ(m.opa, naive_opa(s, r));
  EXPECT_NE(m.kendall, naive_tau_b(score, runtime));  // the zeros would change it
  EXPECT_DOUBLE_EQ(m.top1, 5.0 / 3.0 - 1.0);  // the first measured pick over the best measured
  EXPECT_DOUBLE_EQ(m.top5, 0.0);
  const GraphMetrics none = evaluate_graph(score, std::vector<double>(6, 0.0));
  EXPECT_EQ(none.configs, 0);
  EXPECT_TRUE(std::isnan(none.kendall));
  EXPECT_TRUE(std::isnan(none.top1));
  // As a ranking of a file gets them: positions as scores.
  ConfigGroups six;  // six distinct configs
  six.group_of = {0, 1, 2, 3, 4, 5};
  const GraphMetrics q = evaluate_ranking({3, 1, 0, 2, 4, 5}, runtime, six);
  EXPECT_EQ(q.configs, 4);
  EXPECT_DOUBLE_EQ(q.kendall, naive_tau_b({1, 3, 4, 5}, {5, 3, 4, 9}));
  EXPECT_DOUBLE_EQ(q.top1, 5.0 / 3.0 - 1.0);
  // Measured copies of one config beside unmeasured others: nothing to correlate.
  ConfigGroups copies;
  copies.group_of = {0, 0, 1, 2};
  const GraphMetrics c = evaluate_ranking({0, 2, 1, 3}, {5, 6, 0, 0}, copies);
  EXPECT_TRUE(std::isnan(c.kendall));
  EXPECT_TRUE(std::isnan(c.opa));
}

TEST(EvaluateGraph, SingleConfigAndEmpty) {
  const GraphMetrics m = evaluate_graph({0.5}, {3.0});
  EXPECT_EQ(m.configs, 1);
  EXPECT_TRUE(std::isnan(m.kendall));
  EXPECT_TRUE(std::isnan(m.opa));
  EXPECT_DOUBLE_EQ(m.top1, 0.0);
  EXPECT_DOUBLE_EQ(m.tile_score, 1.0);
  EXPECT_THROW(evaluate_graph({}, {}), Error);
}

TEST(Summarize, MeansSkipNaNPerMetric) {
  GraphMetrics a, b, c;
  a.configs = 3;
  a.kendall = 0.5, a.opa = 0.8, a.top1 = 0.2, a.top5 = 0.1, a.top10 = 0.0;
  a.tile_score = 0.9;
  b.configs = 1;  // Kendall and OPA undefined
  b.top1 = 0.4, b.top5 = 0.3, b.top10 = 0.2, b.tile_score = 0.7;
  c.configs = 5;
  c.kendall = -0.1, c.opa = 0.4, c.top1 = 0.0, c.top5 = 0.0, c.top10 = 0.0;
  c.tile_score = 1.0;
  const CollectionMetrics s = summarize({a, b, c});
  EXPECT_EQ(s.graphs, 3);
  EXPECT_EQ(s.undefined_kendall, 1);
  EXPECT_NEAR(s.kendall, 0.2, 1e-15);
  EXPECT_NEAR(s.opa, 0.6, 1e-15);
  EXPECT_NEAR(s.top1, 0.2, 1e-15);
  EXPECT_NEAR(s.top5, 0.4 / 3, 1e-15);
  EXPECT_NEAR(s.top10, 0.2 / 3, 1e-15);
  EXPECT_NEAR(s.tile_score, 2.6 / 3, 1e-15);
}

TEST(Summarize, EmptyAndAllUndefined) {
  const CollectionMetrics empty = summarize({});
  EXPECT_EQ(empty.graphs, 0);
  EXPECT_EQ(empty.undefined_kendall, 0);
  EXPECT_TRUE(std::isnan(empty.kendall));
  EXPECT_TRUE(std::isnan(empty.tile_score));

  const CollectionMetrics none = summarize({GraphMetrics{}, GraphMetrics{}});
  EXPECT_EQ(none.graphs, 2);
  EXPECT_EQ(none.undefined_kendall, 2);
  EXPECT_TRUE(std::isnan(none.kendall));
  EXPECT_TRUE(std::isnan(none.opa));
}

// ---- Large input: invariants only, and a loose guard against O(n^2). ----

TEST(LargeInput, InvariantsAtHundredThousand) {
  const size_t n = 100000;
  std::mt19937_64 rng(99);
  const auto tied = random_values(rng, n, 1000);  // heavy ties
  std::vector<double> negated(n);
  for (size_t i = 0; i < n; ++i) negated[i] = -tied[i];

  // Two tie-free orders, where tau = 2 * OPA - 1 exactly.
  std::vector<double> p(n), q(n);
  std::iota(p.begin(), p.end(), 0.0);
  std::iota(q.begin(), q.end(), 0.0);
  std::shuffle(p.begin(), p.end(), rng);
  std::shuffle(q.begin(), q.end(), rng);

  // Timing belongs in bench/, not here; this size only keeps a quadratic
  // version from being practical.
  const double tau_same = kendall_tau(tied, tied);
  const double opa_same = ordered_pair_accuracy(tied, tied);

  EXPECT_NEAR(tau_same, 1.0, 1e-12);
  EXPECT_EQ(opa_same, 1.0);
  EXPECT_NEAR(kendall_tau(tied, negated), -1.0, 1e-12);
  EXPECT_EQ(ordered_pair_accuracy(negated, tied), 0.0);

  const double tau = kendall_tau(p, q);
  EXPECT_NEAR(tau, 2 * ordered_pair_accuracy(p, q) - 1, 1e-12);
  EXPECT_NEAR(tau, kendall_tau(q, p), 1e-12);
  // Monotone transform of one side changes nothing.
  std::vector<double> cubed(n);
  for (size_t i = 0; i < n; ++i) cubed[i] = q[i] * q[i] * q[i] + 7;
  EXPECT_NEAR(tau, kendall_tau(p, cubed), 1e-12);
  // Independent random orders: tau near 0 (sd about 0.002 at this n).
  EXPECT_LT(std::abs(tau), 0.02);

  const double mixed = kendall_tau(tied, q);
  EXPECT_NEAR(mixed, kendall_tau(q, tied), 1e-12);
}

}  // namespace
}  // namespace fastslow
