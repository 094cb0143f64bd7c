// The relevance ridge (baselines/relevance_ridge.h): a prior variance per
// group of columns by the evidence.
#include "baselines/relevance_ridge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "baselines/ridge.h"
#include "fastslow/graph/graph.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/rank/metrics.h"
#include "test_support.h"

namespace fastslow::baselines {
namespace {

using test::error_of;

// Rows of `groups` groups of `per` columns, each value drawn from 0..levels-1;
// the target depends on group `decides` alone (plus noise).
struct OneGroupDecides {
  std::vector<float> rows;
  std::vector<double> target;
  std::vector<int64_t> group_of;
  int64_t width = 0;
  OneGroupDecides(int64_t n, int64_t groups, int64_t per, int levels, int64_t decides, double noise, uint32_t seed) {
    width = groups * per;
    for (int64_t c = 0; c < width; ++c) group_of.push_back(c / per);
    std::mt19937 rng(seed);
    std::normal_distribution<double> eps(0.0, noise);
    for (int64_t r = 0; r < n; ++r) {
      double t = 0;
      for (int64_t c = 0; c < width; ++c) {
        const auto v = static_cast<float>(rng() % static_cast<unsigned>(levels));
        rows.push_back(v);
        if (c / per == decides) t += (c % per + 1) * (v == 1 ? 1.0 : v == 2 ? -0.5 : 0.0);
      }
      target.push_back(t + eps(rng));
    }
  }
};

// The same Adam on the same log evidence, written again in numpy: the
// reference for the variances the evidence picks and the predictions.
TEST(RelevanceRidge, MatchesNumpyOnTheSameEvidence) {
  if (!test::numpy_available()) GTEST_SKIP() << "numpy not available";
  const OneGroupDecides d(24, 5, 3, 3, 2, 0.2, 11);
  const OneGroupDecides t(40, 5, 3, 4, 2, 0.2, 12);  // level 3 is unseen in training
  RelevanceRidge m;
  m.fit(d.rows, d.width, d.group_of, d.target);
  const std::vector<double> p = m.predict(t.rows);

  std::ostringstream s;
  s.precision(17);
  const auto list = [&](const auto& v) {
    s << "[";
    for (auto x : v) s << static_cast<double>(x) << ",";
    s << "]";
  };
  s << "import numpy as np\nw = " << d.width << "\nsteps = " << RelevanceRidge::kSteps << "\nX = np.array(";
  list(d.rows);
  s << ").reshape(-1, w)\nT = np.array(";
  list(t.rows);
  s << ").reshape(-1, w)\ny = np.array(";
  list(d.target);
  s << ")\ngroup = np.array(";
  list(d.group_of);
  s << ", dtype=int)\n";
  s << R"(
G = group.max() + 1
n = len(y)
mean, sd = y.mean(), y.std()
ys = (y - mean) / sd
levels = [np.unique(X[:, c]) for c in range(w)]
varying = [len(l) > 1 for l in levels]
K = np.zeros((G, n, n))
for c in range(w):
    if varying[c]:
        K[group[c]] += (X[:, c][:, None] == X[:, c][None, :])
th = np.full(G + 1, np.log(1.0 / G)); th[G] = np.log(0.1)
m1 = np.zeros(G + 1); m2 = np.zeros(G + 1)
for step in range(1, steps + 1):
    s = np.exp(th)
    C = np.tensordot(s[:G], K, 1) + s[G] * np.eye(n)
    Ci = np.linalg.inv(C); a = Ci @ ys; M = np.outer(a, a) - Ci
    g = np.array([0.5 * s[k] * (M * K[k]).sum() for k in range(G)] + [0.5 * s[G] * np.trace(M)])
    m1 = 0.9 * m1 + 0.1 * g; m2 = 0.999 * m2 + 0.001 * g * g
    th = np.clip(th + 0.05 * (m1 / (1 - 0.9 ** step)) / (np.sqrt(m2 / (1 - 0.999 ** step)) + 1e-8), -12, 6)
s = np.exp(th)
C = np.tensordot(s[:G], K, 1) + s[G] * np.eye(n)
a = np.linalg.solve(C, ys)
Ks = sum(s[group[c]] * (T[:, c][:, None] == X[:, c][None, :]) for c in range(w) if varying[c])
cols = np.array([sum(1 for c in range(w) if varying[c] and group[c] == k) for k in range(G)])
var = np.array([s[k] * cols[k] if K[k].any() else 0.0 for k in range(G)])
for v in var / var.sum(): print(repr(float(v)))
sign, logdet = np.linalg.slogdet(C)
print(repr(float(-0.5 * ys @ a - 0.5 * logdet - 0.5 * n * np.log(2 * np.pi))))
for v in Ks @ a * sd + mean: print(repr(float(v)))
)";
  std::string out;
  ASSERT_EQ(test::run_python(s.str(), &out), 0) << out;
  std::istringstream in(out);
  const std::vector<double> share = m.relevance();
  ASSERT_EQ(share.size(), 5u);
  for (size_t g = 0; g < share.size(); ++g) {
    double ref = 0;
    ASSERT_TRUE(in >> ref) << out;
    EXPECT_NEAR(share[g], ref, 1e-6) << "group " << g;
  }
  double evidence = 0;  // numpy's, by slogdet, where its own search ended
  ASSERT_TRUE(in >> evidence) << out;
  EXPECT_NEAR(m.log_evidence(), evidence, 1e-6 * (1 + std::abs(evidence)));
  EXPECT_NEAR(relevance_log_evidence(d.rows, d.width, d.group_of, d.target, m.log_variances(), m.log_noise()), evidence,
              1e-6 * (1 + std::abs(evidence)));
  for (size_t i = 0; i < p.size(); ++i) {
    double ref = 0;
    ASSERT_TRUE(in >> ref) << out;
    EXPECT_NEAR(p[i], ref, 1e-6 * (1 + std::abs(ref))) << "row " << i;
  }
}

// The search ends where the evidence (computed plainly, without the fit's
// shortcuts) is flat: its numerical gradient in every variance the search
// left inside its bounds is a small part of the gradient at the start. A
// wrong derivative would stop the search elsewhere.
TEST(RelevanceRidge, TheSearchEndsWhereTheEvidenceIsFlat) {
  const OneGroupDecides d(24, 6, 3, 3, 2, 0.2, 17);
  RelevanceRidge m;
  m.fit(d.rows, d.width, d.group_of, d.target);
  const auto gradient = [&](std::vector<double> v, double noise, const std::vector<size_t>& which) {
    std::vector<double> g;
    const double h = 1e-4;
    for (size_t k : which) {
      std::vector<double> up = v, down = v;
      double nu = noise, nd = noise;
      if (k < v.size()) up[k] += h, down[k] -= h;
      else nu += h, nd -= h;
      g.push_back((relevance_log_evidence(d.rows, d.width, d.group_of, d.target, up, nu) -
                   relevance_log_evidence(d.rows, d.width, d.group_of, d.target, down, nd)) / (2 * h));
    }
    return g;
  };
  std::vector<size_t> inside;  // variances off the bounds [-12, 6], and the noise
  for (size_t k = 0; k < m.log_variances().size(); ++k)
    if (m.log_variances()[k] > -11.5 && m.log_variances()[k] < 5.5) inside.push_back(k);
  inside.push_back(m.log_variances().size());
  ASSERT_GE(inside.size(), 2u);
  const std::vector<double> start(6, std::log(1.0 / 6));
  const auto norm = [](const std::vector<double>& g) {
    double s = 0;
    for (double x : g) s += x * x;
    return std::sqrt(s);
  };
  const double at_start = norm(gradient(start, std::log(0.1), inside));
  const double at_end = norm(gradient(m.log_variances(), m.log_noise(), inside));
  std::printf("evidence gradient: %.4g at the start, %.4g where the search ended\n", at_start, at_end);
  EXPECT_LT(at_end, 0.1 * at_start);
  EXPECT_GT(m.log_evidence(), relevance_log_evidence(d.rows, d.width, d.group_of, d.target, start, std::log(0.1)));
}

// NaN is no value: a column of NaN and numbers weighs its numbers only,
// and a row with NaN there gets nothing from it.
TEST(RelevanceRidge, NanIsNoValue) {
  OneGroupDecides d(16, 3, 2, 3, 0, 0.1, 9);
  for (int64_t r = 0; r < 16; r += 3) d.rows[static_cast<size_t>(r * d.width + 1)] = NAN;
  RelevanceRidge m;
  m.fit(d.rows, d.width, d.group_of, d.target);
  EXPECT_EQ(m.weight(1, NAN), 0.0);
  for (double p : m.predict(d.rows)) EXPECT_TRUE(std::isfinite(p));
  EXPECT_EQ(m.num_features(), d.width * 3);  // column 1's three numbers, no NaN among them
}

// With 20 rows and 40 groups of columns, the evidence gives the one group
// the target depends on most of the variance, and ranks held-out rows far
// better than one penalty for all (ridge at its best penalty by hindsight).
TEST(RelevanceRidge, FindsTheGroupThatDecidesWhereRidgeSpreadsIt) {
  const OneGroupDecides d(20, 40, 3, 3, 17, 0.05, 3);
  const OneGroupDecides t(400, 40, 3, 3, 17, 0.05, 4);
  RelevanceRidge m;
  m.fit(d.rows, d.width, d.group_of, d.target);
  const std::vector<double> share = m.relevance();
  const auto top = std::max_element(share.begin(), share.end()) - share.begin();
  EXPECT_EQ(top, 17);
  EXPECT_GT(share[17], 0.5);
  const double k = kendall_tau(m.predict(t.rows), t.target);
  double ridge_best = -1;
  for (double lambda : {1e-3, 1e-2, 0.1, 1.0, 10.0}) {
    OneHotRidge r;
    r.fit(d.rows, d.width, d.target, lambda);
    ridge_best = std::max(ridge_best, kendall_tau(r.predict(t.rows), t.target));
  }
  EXPECT_GT(k, 0.7);
  EXPECT_GT(k, ridge_best + 0.1) << "relevance " << k << ", ridge " << ridge_best;
}

TEST(RelevanceRidge, PredictionsAreTheBiasPlusTheValuesWeights) {
  const OneGroupDecides d(16, 4, 2, 3, 1, 0.1, 5);
  RelevanceRidge m;
  m.fit(d.rows, d.width, d.group_of, d.target);
  const std::vector<double> p = m.predict(d.rows);
  for (int64_t r = 0; r < 16; ++r) {
    double sum = m.bias();
    for (int64_t c = 0; c < d.width; ++c) sum += m.weight(c, d.rows[static_cast<size_t>(r * d.width + c)]);
    EXPECT_NEAR(p[static_cast<size_t>(r)], sum, 1e-9);
  }
  EXPECT_EQ(m.weight(0, 99.0f), 0.0);  // unseen value
  EXPECT_EQ(m.num_features(), d.width * 3);
  // A constant column has no weight and its group no variance.
  std::vector<float> rows = d.rows;
  for (int64_t r = 0; r < 16; ++r) rows[static_cast<size_t>(r * d.width)] = rows[static_cast<size_t>(r * d.width + 1)] = 2.0f;
  RelevanceRidge c;
  c.fit(rows, d.width, d.group_of, d.target);
  const std::vector<double> share = c.relevance();
  EXPECT_EQ(share[0], 0.0);
  EXPECT_EQ(c.weight(0, 2.0f), 0.0);
  EXPECT_NEAR(std::accumulate(share.begin(), share.end(), 0.0), 1.0, 1e-12);
}

TEST(RelevanceRidge, Errors) {
  RelevanceRidge m;
  EXPECT_NE(error_of([&] { m.predict({1, 2}); }).find("predict before fit"), std::string::npos);
  EXPECT_NE(error_of([&] { m.fit({1, 2}, 2, {0, 0}, {1.0}); }).find("at least 2 rows"), std::string::npos);
  EXPECT_NE(error_of([&] { m.fit({1, 2, 3}, 2, {0, 0}, {1.0, 2.0}); }).find("3 values for 2 rows of width 2"),
            std::string::npos);
  EXPECT_NE(error_of([&] { m.fit({1, 2, 3, 4}, 2, {0}, {1.0, 2.0}); }).find("1 column groups for width 2"),
            std::string::npos);
  EXPECT_NE(error_of([&] { m.fit({1, 2, 3, 4}, 2, {0, -1}, {1.0, 2.0}); }).find("negative column group"),
            std::string::npos);
  EXPECT_NE(error_of([&] { m.fit({1, 2, 3, 4}, 2, {0, 1}, {1.0, NAN}); }).find("not finite"), std::string::npos);
  EXPECT_TRUE(std::isnan(relevance_cv_kendall({1, 2, 3, 4}, 2, {0, 1}, {1.0, 2.0}, 4, 1)));
}

// Real AlexNet, 16 configs drawn at random: the relevance ridge ranks the
// held-out configs better than ridge at any penalty, in every draw but one
// at most (what few-measurement training relies on).
TEST(RelevanceRidge, RanksAlexNetFromSixteenConfigsBetterThanRidge) {
  const LayoutGraph g = load_layout_graph(NpzReader::open(test::data_file("cleaned_alexnet.npz")));
  const int64_t width = g.num_configurable() * g.config_feat_width;
  std::vector<int64_t> group_of;
  for (int64_t c = 0; c < width; ++c) group_of.push_back(c / g.config_feat_width);
  int wins = 0;
  const int draws = 5;
  for (int draw = 0; draw < draws; ++draw) {
    std::vector<int64_t> order(static_cast<size_t>(g.num_configs));
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(100 + static_cast<uint64_t>(draw));
    for (int64_t i = g.num_configs - 1; i > 0; --i)
      std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(rng() % static_cast<uint64_t>(i + 1))]);
    std::vector<float> train, held;
    std::vector<double> y, runtime;
    for (int64_t k = 0; k < 16 + 2000; ++k) {
      const int64_t i = order[static_cast<size_t>(k)];
      const auto begin = g.node_config_feat.begin() + i * width;
      const double rt = static_cast<double>(g.config_runtime[static_cast<size_t>(i)]);
      if (k < 16) {
        train.insert(train.end(), begin, begin + width);
        y.push_back(std::log(rt));
      } else {
        held.insert(held.end(), begin, begin + width);
        runtime.push_back(rt);
      }
    }
    RelevanceRidge m;
    m.fit(train, width, group_of, y);
    const double k = kendall_tau(m.predict(held), runtime);
    double ridge_best = -1;
    for (double lambda : {1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0}) {
      OneHotRidge r;
      r.fit(train, width, y, lambda);
      ridge_best = std::max(ridge_best, kendall_tau(r.predict(held), runtime));
    }
    std::printf("alexnet, 16 configs, draw %d: relevance %.3f, ridge at its best penalty %.3f\n", draw, k, ridge_best);
    wins += k > ridge_best;
  }
  EXPECT_GE(wins, draws - 1);
}

}  // namespace
}  // namespace fastslow::baselines
