#include "baselines/ridge.h"
#include "baselines/ridge_cv.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/graph/graph.h"
#include "fastslow/rank/metrics.h"
#include "fastslow/io/npz_reader.h"
#include "test_support.h"

namespace fastslow::baselines {
namespace {

using test::error_of;

// Every combination of column 0 in {0,1,2}, column 1 in {-1,4,7,9},
// column 2 in {0.5,1.5} and a constant column 3, with an additive target.
struct Additive {
  std::vector<float> rows;
  std::vector<double> target;
  static constexpr int64_t kWidth = 4;
  static double effect(int c, float v) {
    if (c == 0) return v == 0 ? 0.3 : v == 1 ? -1.2 : 2.0;
    if (c == 1) return v == -1 ? 0.0 : v == 4 ? 0.7 : v == 7 ? -0.4 : 1.1;
    if (c == 2) return v == 0.5f ? -0.25 : 0.25;
    return 0.0;
  }
  Additive() {
    for (float a : {0.f, 1.f, 2.f})
      for (float b : {-1.f, 4.f, 7.f, 9.f})
        for (float c : {0.5f, 1.5f}) {
          rows.insert(rows.end(), {a, b, c, 3.f});
          target.push_back(5.0 + effect(0, a) + effect(1, b) + effect(2, c));
        }
  }
};

TEST(OneHotRidge, RecoversAdditiveEffectsExactly) {
  const Additive d;
  OneHotRidge m;
  m.fit(d.rows, Additive::kWidth, d.target, 0.0);
  // The constant column adds no indicator: 3 + 4 + 2.
  EXPECT_EQ(m.num_features(), 9);
  EXPECT_EQ(OneHotRidge::count_features(d.rows, Additive::kWidth), 9) << "known before fitting";
  const auto p = m.predict(d.rows);
  ASSERT_EQ(p.size(), d.target.size());
  for (size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(p[i], d.target[i], 1e-9) << "row " << i;
}

TEST(OneHotRidge, SmallPenaltyIsCloseToExact) {
  const Additive d;
  OneHotRidge m;
  m.fit(d.rows, Additive::kWidth, d.target, 1e-6);
  const auto p = m.predict(d.rows);
  for (size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(p[i], d.target[i], 1e-5) << "row " << i;
}

TEST(OneHotRidge, PenaltyShrinksTowardsTheMean) {
  const Additive d;
  double mean = 0;
  for (double t : d.target) mean += t;
  mean /= static_cast<double>(d.target.size());
  OneHotRidge m;
  m.fit(d.rows, Additive::kWidth, d.target, 1e9);
  for (double p : m.predict(d.rows)) EXPECT_NEAR(p, mean, 1e-6);
}

TEST(OneHotRidge, UnseenValuesContributeNothing) {
  const Additive d;
  double mean = 0;
  for (double t : d.target) mean += t;
  mean /= static_cast<double>(d.target.size());
  OneHotRidge m;
  m.fit(d.rows, Additive::kWidth, d.target, 0.5);
  // Nothing seen (the constant column's value included): the bias, the mean.
  EXPECT_NEAR(m.predict({42.f, 42.f, 42.f, 42.f})[0], mean, 1e-12);
  // Column 0 unseen: exactly what seen columns 1 and 2 add to the bias.
  const auto p = m.predict({42.f, 4.f, 1.5f, 3.f,  //
                            42.f, 42.f, 42.f, 3.f, //
                            0.f, 4.f, 1.5f, 3.f,   //
                            0.f, 42.f, 42.f, 3.f});
  EXPECT_NEAR(p[0] - p[1], p[2] - p[3], 1e-12);
  EXPECT_NEAR(p[1], mean, 1e-12);
  // NaN never matches a training value.
  EXPECT_NEAR(m.predict({NAN, 42.f, 42.f, 42.f})[0], mean, 1e-12);
}

TEST(OneHotRidge, MatchesNumpyClosedForm) {
  if (!test::numpy_available()) GTEST_SKIP() << "numpy not available";
  std::mt19937 rng(7);
  const int64_t n = 300, width = 6, n_test = 50;
  const double lambda = 0.7;
  std::vector<float> rows, test_rows;
  std::vector<double> target;
  auto draw = [&](std::vector<float>* out, int64_t count, int spread) {
    for (int64_t r = 0; r < count; ++r)
      for (int64_t c = 0; c < width; ++c)
        // Column 5 is constant; column 4 has real-valued levels.
        out->push_back(c == 5   ? -1.f
                       : c == 4 ? 0.25f * static_cast<float>(rng() % 5)
                                : static_cast<float>(static_cast<int>(rng() % static_cast<unsigned>(spread + c))));
  };
  draw(&rows, n, 4);
  std::normal_distribution<double> noise(0.0, 1.0);
  for (int64_t r = 0; r < n; ++r) target.push_back(std::sin(rows[static_cast<size_t>(r * width)]) + noise(rng));
  // A wider spread in the held-out rows gives values unseen in training.
  draw(&test_rows, n_test, 6);

  OneHotRidge m;
  m.fit(rows, width, target, lambda);
  const auto p = m.predict(test_rows);

  std::ostringstream s;
  s.precision(17);
  auto list = [&](const auto& v) {
    s << "[";
    for (auto x : v) s << static_cast<double>(x) << ",";
    s << "]";
  };
  s << "import numpy as np\n";
  s << "w = " << width << "\nlam = " << lambda << "\n";
  s << "X = np.array(";
  list(rows);
  s << ", dtype=np.float32).reshape(-1, w)\n";
  s << "T = np.array(";
  list(test_rows);
  s << ", dtype=np.float32).reshape(-1, w)\n";
  s << "y = np.array(";
  list(target);
  s << ")\n";
  s << R"(
levels = [np.unique(X[:, c]) for c in range(w)]
levels = [l if len(l) > 1 else l[:0] for l in levels]
def encode(A):
    return np.hstack([(A[:, c:c+1] == levels[c][None, :]).astype(np.float64) for c in range(w)])
E = encode(X)
mean = y.mean()
beta = np.linalg.solve(E.T @ E + lam * np.eye(E.shape[1]), E.T @ (y - mean))
print(E.shape[1])
for v in encode(T) @ beta + mean:
    print(repr(float(v)))
)";
  std::string out;
  ASSERT_EQ(test::run_python(s.str(), &out), 0) << out;
  std::istringstream in(out);
  int64_t features = 0;
  in >> features;
  EXPECT_EQ(m.num_features(), features);
  EXPECT_EQ(OneHotRidge::count_features(rows, width), features);
  for (int64_t i = 0; i < n_test; ++i) {
    double ref = 0;
    ASSERT_TRUE(in >> ref) << out;
    EXPECT_NEAR(p[static_cast<size_t>(i)], ref, 1e-9 * (1 + std::abs(ref))) << "row " << i;
  }
}

TEST(OneHotRidge, ConjugateGradientsMatchTheDenseSolve) {
  // 40 columns of 5 values, 600 rows: 200 features, solved both ways.
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> pick(0, 4);
  std::normal_distribution<double> noise(0.0, 0.1);
  const int64_t width = 40, count = 600;
  std::vector<float> rows;
  std::vector<double> target;
  for (int64_t r = 0; r < count; ++r) {
    double t = 0;
    for (int64_t c = 0; c < width; ++c) {
      const int v = pick(rng);
      rows.push_back(static_cast<float>(v));
      t += std::sin(static_cast<double>(c * 5 + v));
    }
    target.push_back(t + noise(rng));
  }
  for (double lambda : {0.01, 1.0, 30.0}) {
    OneHotRidge dense, cg;
    dense.fit(rows, width, target, lambda);
    cg.set_dense_limit(10);
    cg.fit(rows, width, target, lambda);
    ASSERT_EQ(dense.num_features(), 200);
    const auto a = dense.predict(rows), b = cg.predict(rows);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-6) << "lambda " << lambda << " row " << i;
    for (int64_t c = 0; c < width; ++c)
      for (float v : {0.f, 1.f, 2.f, 3.f, 4.f}) ASSERT_NEAR(dense.weight(c, v), cg.weight(c, v), 1e-6);
  }
}

TEST(OneHotRidge, WeightsAreTheLearnedEffects) {
  const Additive d;
  OneHotRidge m;
  m.fit(d.rows, Additive::kWidth, d.target, 0.0);
  // Minimum-norm solution: effects centred per column, the bias holds the rest.
  double pred = m.bias();
  const float row[] = {1.f, 7.f, 0.5f, 3.f};
  for (int c = 0; c < 4; ++c) pred += m.weight(c, row[c]);
  EXPECT_NEAR(pred, 5.0 + Additive::effect(0, 1) + Additive::effect(1, 7) + Additive::effect(2, 0.5f), 1e-9);
  EXPECT_NEAR(m.weight(0, 2.f) - m.weight(0, 1.f), Additive::effect(0, 2) - Additive::effect(0, 1), 1e-9);
  EXPECT_EQ(m.weight(3, 3.f), 0.0);   // constant column
  EXPECT_EQ(m.weight(1, 5.f), 0.0);   // unseen value
  EXPECT_EQ(m.weight(9, 1.f), 0.0);   // no such column
}

TEST(OneHotRidge, Errors) {
  OneHotRidge m;
  EXPECT_NE(error_of([&] { m.predict({1.f}); }).find("before fit"), std::string::npos);
  EXPECT_NE(error_of([&] { m.fit({}, 2, {}); }).find("no training rows"), std::string::npos);
  EXPECT_NE(error_of([&] { m.fit({1.f, 2.f}, 0, {1.0}); }).find("width"), std::string::npos);
  EXPECT_NE(error_of([&] { m.fit({1.f, 2.f, 3.f}, 2, {1.0, 2.0}); }).find("expected 4"), std::string::npos);
  EXPECT_NE(error_of([&] { m.fit({1.f, 2.f}, 2, {1.0}, -1.0); }).find("lambda"), std::string::npos);
  EXPECT_NE(error_of([&] { m.fit({1.f, 2.f}, 2, {1.0}, NAN); }).find("lambda"), std::string::npos);
  EXPECT_NE(error_of([&] { m.fit({1.f, NAN}, 2, {1.0}); }).find("row 0, column 1"), std::string::npos);
  EXPECT_NE(error_of([&] { m.fit({1.f, 2.f}, 2, {INFINITY}); }).find("target of row 0"), std::string::npos);
  m.fit({1.f, 2.f, 3.f, 4.f}, 2, {1.0, 2.0});
  EXPECT_NE(error_of([&] { m.predict({1.f, 2.f, 3.f}); }).find("width 2"), std::string::npos);
  EXPECT_EQ(m.predict({}).size(), 0u);
}

// The baseline on the real AlexNet layout sample: each config's row is its
// node_config_feat flattened (configurable nodes x 10).
TEST(OneHotRidge, AlexNetHeldOutKendallIsPositive) {
  const auto start = std::chrono::steady_clock::now();
  const LayoutGraph g = load_layout_graph(NpzReader::open(test::data_file("cleaned_alexnet.npz")));
  const int64_t width = g.num_configurable() * g.config_feat_width;
  ASSERT_GT(g.num_configs, 100);
  ASSERT_EQ(static_cast<int64_t>(g.node_config_feat.size()), g.num_configs * width);

  // A fixed 80/20 split: a seeded Fisher-Yates written out, so it does not
  // depend on the standard library's std::shuffle.
  std::vector<int64_t> order(static_cast<size_t>(g.num_configs));
  for (int64_t i = 0; i < g.num_configs; ++i) order[static_cast<size_t>(i)] = i;
  std::mt19937_64 rng(2023);
  for (int64_t i = g.num_configs - 1; i > 0; --i)
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(rng() % static_cast<uint64_t>(i + 1))]);
  const int64_t n_train = g.num_configs * 4 / 5;

  std::vector<float> train_rows, test_rows;
  std::vector<double> train_y, test_runtime;
  for (int64_t k = 0; k < g.num_configs; ++k) {
    const int64_t i = order[static_cast<size_t>(k)];
    const bool train = k < n_train;
    const auto begin = g.node_config_feat.begin() + i * width;
    (train ? train_rows : test_rows).insert((train ? train_rows : test_rows).end(), begin, begin + width);
    const double runtime = static_cast<double>(g.config_runtime[static_cast<size_t>(i)]);
    if (train)
      train_y.push_back(std::log(runtime));
    else
      test_runtime.push_back(runtime);
  }

  OneHotRidge m;
  m.fit(train_rows, width, train_y, 1.0);
  const double tau = kendall_tau(m.predict(test_rows), test_runtime);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("alexnet ridge: %lld train / %zu held-out configs, %lld features, held-out kendall %.4f (%.1f s)\n",
              static_cast<long long>(n_train), test_runtime.size(), static_cast<long long>(m.num_features()), tau,
              secs);
  EXPECT_GT(tau, 0.5);
}

// Fewer configs than indicator features, as when tuning starts: the rows'
// space (an n x n Gram matrix) gives the weights of the features' space,
// on real unet3d's first 64 measured configs (56 nodes x 18 columns).
TEST(OneHotRidge, RowsSpaceGivesTheFeaturesSpaceWeightsOnRealUnet3d) {
  const LayoutGraph g = load_layout_graph(NpzReader::open(test::data_file("real/layout_xla_default_train_unet3d.npz")));
  const int64_t width = g.num_configurable() * g.config_feat_width, count = 64;
  const std::vector<float> rows(g.node_config_feat.begin(), g.node_config_feat.begin() + count * width);
  std::vector<double> y;
  for (int64_t i = 0; i < count; ++i) y.push_back(std::log(static_cast<double>(g.config_runtime[static_cast<size_t>(i)])));
  ASSERT_GT(OneHotRidge::count_features(rows, width), count) << "the case the rows' space is for";
  const std::vector<float> all(g.node_config_feat.begin(), g.node_config_feat.end());
  for (double lambda : {0.01, 1.0, 30.0}) {
    OneHotRidge by_rows, by_features, by_cg;
    by_rows.fit(rows, width, y, lambda);
    EXPECT_EQ(by_rows.solved_in(), OneHotRidge::Space::Rows);
    by_features.set_space(OneHotRidge::Space::Features);
    by_features.fit(rows, width, y, lambda);
    EXPECT_EQ(by_features.solved_in(), OneHotRidge::Space::Features);
    by_cg.set_dense_limit(8);  // features and rows both above it
    by_cg.fit(rows, width, y, lambda);
    const auto a = by_rows.predict(all), b = by_features.predict(all), c = by_cg.predict(all);
    double spread = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_NEAR(a[i], b[i], 1e-9) << "lambda " << lambda << " config " << i;
      ASSERT_NEAR(a[i], c[i], 1e-6) << "lambda " << lambda << " config " << i;
      spread = std::max(spread, std::abs(a[i] - a[0]));
    }
    EXPECT_GT(spread, 1e-3) << "the fit predicts something";
    for (int64_t col = 0; col < width; ++col)
      for (float v = -1.f; v <= 5.f; v += 1.f) ASSERT_NEAR(by_rows.weight(col, v), by_features.weight(col, v), 1e-9);
  }
  // More configs than features, or no penalty: the features' space.
  OneHotRidge many, exact;
  const std::vector<double> all_y = [&] {
    std::vector<double> v;
    for (int64_t r : g.config_runtime) v.push_back(std::log(static_cast<double>(r)));
    return v;
  }();
  many.fit(all, width, all_y, 1.0);
  EXPECT_EQ(many.solved_in(), OneHotRidge::Space::Features);
  exact.fit(rows, width, y, 0.0);
  EXPECT_EQ(exact.solved_in(), OneHotRidge::Space::Features);
}

// The penalty by cross-validation: on exact additive data a light penalty
// ranks the held-out folds perfectly and a heavy one flattens them; pure
// noise gives no penalty an edge, and the tie goes to the heaviest.
TEST(RidgePenalty, CrossValidationPicksALightPenaltyForSignalAndTheHeaviestForNoise) {
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> val(0, 3);
  std::normal_distribution<double> noise(0.0, 1.0);
  const int64_t n = 60, width = 5;
  std::vector<float> rows;
  std::vector<double> signal, random_y;
  for (int64_t r = 0; r < n; ++r) {
    double y = 0;
    for (int64_t c = 0; c < width; ++c) {
      const int v = val(rng);
      rows.push_back(static_cast<float>(v));
      y += static_cast<double>((c + 1) * v * v);
    }
    signal.push_back(y);
    random_y.push_back(noise(rng));
  }
  const RidgeChoice s = choose_ridge_penalty(rows, width, signal, 4, 1);
  EXPECT_LE(s.lambda, 0.1);
  EXPECT_GT(s.cv_kendall, 0.9);
  const RidgeChoice r = choose_ridge_penalty(rows, width, random_y, 4, 1);
  EXPECT_LT(r.cv_kendall, 0.3);
  // Too few rows to cross-validate: the default penalty.
  const std::vector<float> few(rows.begin(), rows.begin() + 7 * width);
  EXPECT_EQ(choose_ridge_penalty(few, width, std::vector<double>(signal.begin(), signal.begin() + 7), 4, 1).lambda, 1.0);
  EXPECT_NE(test::error_of([&] { choose_ridge_penalty(rows, width, {1.0, 2.0}, 4, 1); }).find("2 rows"),
            std::string::npos);
}

}  // namespace
}  // namespace fastslow::baselines
