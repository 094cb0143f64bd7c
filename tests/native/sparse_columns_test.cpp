#include "baselines/sparse_columns.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "baselines/ridge.h"
#include "baselines/ridge_cv.h"
#include "fastslow/rank/metrics.h"
#include "test_support.h"

namespace fastslow::baselines {
namespace {

// A table of categorical columns (values 0..3) where column `decides`
// makes a config slow in one of its values, column `minor` adds a little,
// and every other column is noise-free irrelevance; plus a little noise.
struct OneDecides {
  static constexpr int64_t kWidth = 40, kDecides = 7, kMinor = 23;
  std::vector<float> rows;
  std::vector<double> y;
  OneDecides(int64_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> val(0, 3);
    std::normal_distribution<double> noise(0.0, 0.01);
    for (int64_t r = 0; r < n; ++r) {
      double t = 0;
      for (int64_t c = 0; c < kWidth; ++c) {
        const int v = val(rng);
        rows.push_back(static_cast<float>(v));
        if (c == kDecides && v == 2) t += 1.0;
        if (c == kMinor) t += 0.05 * v;
      }
      y.push_back(t + noise(rng));
    }
  }
};

double sse(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

// The first pick against a naive reference: refit each column alone and
// take the one whose fit leaves the least squared error.
TEST(SparseColumns, TheFirstPickIsTheColumnWhoseFitLeavesTheLeastError) {
  const OneDecides d(48, 3);
  int64_t naive = -1;
  double least = 1e300;
  for (int64_t c = 0; c < OneDecides::kWidth; ++c) {
    const std::vector<float> x = take_columns(d.rows, OneDecides::kWidth, {c});
    OneHotRidge r;
    r.fit(x, 1, d.y, 1e-9);
    const double e = sse(r.predict(x), d.y);
    if (e < least) least = e, naive = c;
  }
  const std::vector<int64_t> path = forward_select_columns(d.rows, OneDecides::kWidth, d.y, 2);
  ASSERT_EQ(path.size(), 2u);
  EXPECT_EQ(path[0], naive);
  EXPECT_EQ(path[0], OneDecides::kDecides);
  EXPECT_EQ(path[1], OneDecides::kMinor);
}

// Where one column decides, cross-validation keeps it and the minor one,
// and with 32 rows they rank unseen rows better than ridge over all 40
// columns (its penalty cross-validated on the same folds).
TEST(SparseColumns, WhereOneColumnDecidesFewColumnsRankBetterThanRidgeOverAll) {
  const OneDecides d(32, 5), unseen(400, 6);
  const SparseColumnsChoice s = choose_sparse_columns(d.rows, OneDecides::kWidth, d.y, 4, 1);
  ASSERT_FALSE(s.columns.empty());
  EXPECT_EQ(s.columns.front(), OneDecides::kDecides);
  EXPECT_NE(std::find(s.columns.begin(), s.columns.end(), OneDecides::kMinor), s.columns.end());
  const RidgeChoice all = choose_ridge_penalty(d.rows, OneDecides::kWidth, d.y, 4, 1);
  EXPECT_GT(s.cv_kendall, all.cv_kendall);

  OneHotRidge sparse, dense;
  sparse.fit(take_columns(d.rows, OneDecides::kWidth, s.columns), static_cast<int64_t>(s.columns.size()), d.y, s.lambda);
  dense.fit(d.rows, OneDecides::kWidth, d.y, all.lambda);
  const double k_sparse = kendall_tau(
      sparse.predict(take_columns(unseen.rows, OneDecides::kWidth, s.columns)), unseen.y);
  const double k_dense = kendall_tau(dense.predict(unseen.rows), unseen.y);
  std::printf("one column decides, 32 rows: held-out kendall %.4f with %zu column(s), %.4f ridge over all\n", k_sparse,
              s.columns.size(), k_dense);
  EXPECT_GT(k_sparse, k_dense);
}

// Beside a base (a config's values, each adding a little): the pick is the
// deciding column, and base and pick together rank unseen rows better than
// the base alone or the pick alone.
TEST(SparseColumns, BesideABaseThePickAddsWhatTheBaseMisses) {
  struct Data {
    BaseColumns base{{}, 10};
    OneDecides cand;
    std::vector<double> y;
    Data(int64_t n, uint32_t seed) : cand(n, seed) {
      std::mt19937 rng(seed + 1000);
      std::uniform_int_distribution<int> val(0, 3);
      for (int64_t r = 0; r < n; ++r) {
        double t = cand.y[static_cast<size_t>(r)];
        for (int64_t c = 0; c < base.width; ++c) {
          const int v = val(rng);
          base.rows.push_back(static_cast<float>(v));
          t += 0.05 * static_cast<double>((c + 1) * v);
        }
        y.push_back(t);
      }
    }
  };
  const Data d(32, 11), unseen(400, 12);
  const SparseColumnsChoice s = choose_sparse_columns(d.cand.rows, OneDecides::kWidth, d.y, 4, 1, 4, d.base);
  ASSERT_FALSE(s.columns.empty());
  EXPECT_EQ(s.columns.front(), OneDecides::kDecides);
  const int64_t w = d.base.width + static_cast<int64_t>(s.columns.size());
  OneHotRidge both, base_only, pick_only;
  both.fit(join_columns(d.base, d.cand.rows, OneDecides::kWidth, s.columns), w, d.y, s.lambda);
  const RidgeChoice b = choose_ridge_penalty(d.base.rows, d.base.width, d.y, 4, 1);
  base_only.fit(d.base.rows, d.base.width, d.y, b.lambda);
  const SparseColumnsChoice alone = choose_sparse_columns(d.cand.rows, OneDecides::kWidth, d.y, 4, 1);
  pick_only.fit(take_columns(d.cand.rows, OneDecides::kWidth, alone.columns), static_cast<int64_t>(alone.columns.size()),
                d.y, alone.lambda);
  const double k_both =
      kendall_tau(both.predict(join_columns(unseen.base, unseen.cand.rows, OneDecides::kWidth, s.columns)), unseen.y);
  const double k_base = kendall_tau(base_only.predict(unseen.base.rows), unseen.y);
  const double k_pick =
      kendall_tau(pick_only.predict(take_columns(unseen.cand.rows, OneDecides::kWidth, alone.columns)), unseen.y);
  std::printf("beside a base, 32 rows: held-out kendall %.4f base and pick, %.4f base alone, %.4f pick alone\n", k_both,
              k_base, k_pick);
  EXPECT_GT(k_both, k_base);
  EXPECT_GT(k_both, k_pick);
  // A fixed penalty: only the count is chosen, at that penalty.
  const SparseColumnsChoice fixed = choose_sparse_columns(d.cand.rows, OneDecides::kWidth, d.y, 4, 1, 4, d.base, 0.5);
  EXPECT_EQ(fixed.lambda, 0.5);
  ASSERT_FALSE(fixed.columns.empty());
  EXPECT_EQ(fixed.columns.front(), OneDecides::kDecides);
  EXPECT_NE(test::error_of([&] {
              choose_sparse_columns(d.cand.rows, OneDecides::kWidth, d.y, 4, 1, 4, BaseColumns{{1.f, 2.f}, 10});
            }).find("the base has 2 values for"),
            std::string::npos);
}

// On noise the best of 4 counts x 7 penalties is biased upwards, as any
// choice by cross-validation is: by a few hundredths on average at 40 rows,
// more than ridge's choice of 7 penalties. A caller asks more than that of
// it (wide_init.cpp: Kendall's noise over n, 0.11 at 40 rows).
TEST(SparseColumns, NoiseFindsLittleToRankAndBadInputIsRefused) {
  double sparse = 0, dense = 0;
  constexpr int kDraws = 20;
  for (uint32_t seed = 1; seed <= kDraws; ++seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(0.0, 1.0);
    const OneDecides d(40, seed + 100);
    std::vector<double> y;
    for (size_t i = 0; i < d.y.size(); ++i) y.push_back(noise(rng));
    sparse += choose_sparse_columns(d.rows, OneDecides::kWidth, y, 4, seed).cv_kendall / kDraws;
    dense += choose_ridge_penalty(d.rows, OneDecides::kWidth, y, 4, seed).cv_kendall / kDraws;
  }
  std::printf("noise, 40 rows: mean cross-validated kendall %.3f sparse, %.3f ridge\n", sparse, dense);
  EXPECT_LT(sparse, 0.1);
  EXPECT_LT(dense, 0.1);
  const OneDecides d(40, 7);
  // Too few rows to cross-validate: nothing chosen.
  const std::vector<float> few(d.rows.begin(), d.rows.begin() + 7 * OneDecides::kWidth);
  const SparseColumnsChoice none = choose_sparse_columns(few, OneDecides::kWidth, std::vector<double>(7, 1.0), 4, 1);
  EXPECT_TRUE(none.columns.empty());
  EXPECT_EQ(none.cv_kendall, -2);
  EXPECT_NE(test::error_of([&] { choose_sparse_columns(d.rows, OneDecides::kWidth, {1.0, 2.0}, 4, 1); })
                .find("sparse columns: 1600 values for 2 rows"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { choose_sparse_columns(d.rows, OneDecides::kWidth, d.y, 1, 1); }).find("2 folds"),
            std::string::npos);
}

// The folds every few-measurement cross-validation shares: the same for a
// seed, balanced, another deal for another seed.
TEST(SparseColumns, FoldsAreSeededAndBalanced) {
  const std::vector<int> a = cv_folds(30, 4, 1), b = cv_folds(30, 4, 1), c = cv_folds(30, 4, 2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (int f = 0; f < 4; ++f) {
    const auto k = std::count(a.begin(), a.end(), f);
    EXPECT_TRUE(k == 7 || k == 8) << "fold " << f << " has " << k;
  }
}

}  // namespace
}  // namespace fastslow::baselines
