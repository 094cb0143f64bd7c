#include "fastslow/features/feature_stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "test_support.h"

namespace fastslow {
namespace {

// Columns: 0 signed small; 1 size-like up to 1e9; 2 constant 7; 3 in [0, 10]
// (the log threshold is max > 10, so not log-scaled); 4 constant 1e6; 5 a
// large negative offset with small spread (where E[x^2] - E[x]^2 would fail);
// 6 size-like with many zeros.
constexpr int64_t kWidth = 7;
const std::vector<uint8_t> kLogScale = {0, 1, 0, 0, 1, 0, 1};

std::vector<float> random_rows(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<float> rows;
  for (int64_t r = 0; r < n; ++r) {
    rows.push_back(static_cast<float>(u(rng) * 10.0 - 5.0));
    rows.push_back(std::round(static_cast<float>(std::exp(u(rng) * std::log(1e9)))));
    rows.push_back(7.0f);
    rows.push_back(r == 0 ? 10.0f : static_cast<float>(u(rng) * 10.0));
    rows.push_back(1e6f);
    rows.push_back(static_cast<float>(-1e6 + std::floor(u(rng) * 64.0) * 0.0625));
    rows.push_back(u(rng) < 0.4 ? 0.0f : std::round(static_cast<float>(u(rng) * 1e9)));
  }
  return rows;
}

// Reference: two passes in double over the whole matrix.
FeatureStats naive_stats(const std::vector<float>& rows, int64_t width) {
  const int64_t n = static_cast<int64_t>(rows.size()) / width;
  FeatureStats s;
  for (int64_t j = 0; j < width; ++j) {
    double mn = INFINITY, mx = -INFINITY;
    for (int64_t r = 0; r < n; ++r) {
      mn = std::min<double>(mn, rows[r * width + j]);
      mx = std::max<double>(mx, rows[r * width + j]);
    }
    const bool log = mn >= 0 && mx > 10;
    auto value = [&](int64_t r) {
      const double x = rows[r * width + j];
      return log ? std::log1p(x) : x;
    };
    double sum = 0;
    for (int64_t r = 0; r < n; ++r) sum += value(r);
    const double mean = sum / static_cast<double>(n);
    double ss = 0;
    for (int64_t r = 0; r < n; ++r) ss += (value(r) - mean) * (value(r) - mean);
    const double sd = std::sqrt(ss / static_cast<double>(n));
    s.log_scale.push_back(log);
    s.mean.push_back(mean);
    s.stddev.push_back(sd < 1e-12 ? 1.0 : sd);
  }
  return s;
}

void expect_close(const FeatureStats& want, const FeatureStats& got, double rel) {
  ASSERT_EQ(want.width(), got.width());
  EXPECT_EQ(want.log_scale, got.log_scale);
  for (int64_t j = 0; j < want.width(); ++j) {
    EXPECT_NEAR(want.mean[j], got.mean[j], rel * std::max(1.0, std::abs(want.mean[j]))) << "column " << j;
    EXPECT_NEAR(want.stddev[j], got.stddev[j], rel * want.stddev[j]) << "column " << j;
  }
}

// Added in uneven blocks, including an empty one.
FeatureStats built(const std::vector<float>& rows, int64_t width) {
  FeatureStatsBuilder b(width);
  const int64_t n = static_cast<int64_t>(rows.size()) / width;
  int64_t r = 0;
  for (int64_t size : {int64_t{0}, int64_t{1}, int64_t{17}, int64_t{1000}, n}) {
    const int64_t take = std::min(size, n - r);
    b.add(rows.data() + r * width, take);
    r += take;
  }
  EXPECT_EQ(b.rows(), n);
  return b.finish();
}

TEST(FeatureStats, MatchesNaiveTwoPassInDouble) {
  const std::vector<float> rows = random_rows(5000, 1);
  const FeatureStats s = built(rows, kWidth);
  EXPECT_EQ(s.log_scale, kLogScale);
  expect_close(naive_stats(rows, kWidth), s, 1e-13);
  // Constant columns: stddev 1, mean the value (log-scaled for 1e6).
  EXPECT_EQ(s.stddev[2], 1.0);
  EXPECT_EQ(s.mean[2], 7.0);
  EXPECT_EQ(s.stddev[4], 1.0);
  EXPECT_DOUBLE_EQ(s.mean[4], std::log1p(1e6));
  // Column 5's spread is small against its offset; a one-pass sum of squares
  // would lose it entirely at this magnitude.
  EXPECT_GT(s.stddev[5], 1.0);
  EXPECT_LT(s.stddev[5], 1.5);
}

TEST(FeatureStats, ApplyStandardisesTheTrainingData) {
  const std::vector<float> rows = random_rows(3000, 2);
  const FeatureStats s = built(rows, kWidth);
  const std::vector<float> out = s.applied(rows);
  ASSERT_EQ(out.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const size_t j = i % kWidth;
    const double x = s.log_scale[j] ? std::log1p(std::max<double>(rows[i], 0.0)) : rows[i];
    ASSERT_FLOAT_EQ(out[i], static_cast<float>((x - s.mean[j]) / s.stddev[j])) << "value " << i;
  }
  for (size_t j = 0; j < kWidth; ++j) {
    double sum = 0, ss = 0;
    for (size_t r = 0; r < 3000; ++r) sum += out[r * kWidth + j];
    const double mean = sum / 3000;
    for (size_t r = 0; r < 3000; ++r) ss += (out[r * kWidth + j] - mean) * (out[r * kWidth + j] - mean);
    const double sd = std::sqrt(ss / 3000);
    EXPECT_NEAR(mean, 0.0, 1e-5) << "column " << j;
    if (j == 2 || j == 4) {
      for (size_t r = 0; r < 3000; ++r) ASSERT_EQ(out[r * kWidth + j], 0.0f) << "constant column " << j;
    } else {
      EXPECT_NEAR(sd, 1.0, 1e-4) << "column " << j;
    }
  }
  // In place gives the same as applied().
  std::vector<float> in_place = rows;
  s.apply(in_place.data(), 3000);
  EXPECT_EQ(0, std::memcmp(in_place.data(), out.data(), out.size() * sizeof(float)));
}

TEST(FeatureStats, ApplyClampsNegativesInLogColumns) {
  FeatureStats s;
  s.log_scale = {1, 0};
  s.mean = {2.0, -1.0};
  s.stddev = {4.0, 0.5};
  const std::vector<float> out = s.applied({-5.0f, -2.0f, 0.0f, 1.0f});
  EXPECT_FLOAT_EQ(out[0], -0.5f);  // log1p(0) = 0
  EXPECT_FLOAT_EQ(out[1], -2.0f);
  EXPECT_FLOAT_EQ(out[2], -0.5f);
  EXPECT_FLOAT_EQ(out[3], 4.0f);
  EXPECT_NE(test::error_of([&] { s.applied({1.0f, 2.0f, 3.0f}); }), "");
}

TEST(FeatureStats, AgreesWithNumpy) {
  if (!test::numpy_available()) GTEST_SKIP() << "numpy not available";
  const int64_t n = 4000;
  const std::vector<float> rows = random_rows(n, 3);
  test::TempDir dir;
  test::write_bytes(dir.file("rows"), std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(rows.data()),
                                                           reinterpret_cast<const uint8_t*>(rows.data() + rows.size())));
  const std::string script =
      "import numpy as np\n"
      "x = np.fromfile('" + dir.file("rows") + "', dtype='<f4').reshape(-1, " + std::to_string(kWidth) + ").astype(np.float64)\n"
      "for j in range(x.shape[1]):\n"
      "    c = x[:, j]\n"
      "    log = bool(c.min() >= 0 and c.max() > 10)\n"
      "    y = np.log1p(np.maximum(c, 0)) if log else c\n"
      "    sd = float(y.std(ddof=0))\n"
      "    print(int(log), repr(float(y.mean())), repr(sd if sd >= 1e-12 else 1.0))\n";
  std::string out;
  ASSERT_EQ(test::run_python(script, &out), 0) << out;
  FeatureStats want;
  std::istringstream in(out);
  for (int64_t j = 0; j < kWidth; ++j) {
    int log = 0;
    double mean = 0, sd = 0;
    ASSERT_TRUE(in >> log >> mean >> sd) << out;
    want.log_scale.push_back(static_cast<uint8_t>(log));
    want.mean.push_back(mean);
    want.stddev.push_back(sd);
  }
  expect_close(want, built(rows, kWidth), 1e-13);
}

TEST(FeatureStats, JsonRoundTripIsExact) {
  FeatureStats s;
  s.log_scale = {0, 1, 1, 0, 0, 1};
  s.mean = {0.1, 1.0 / 3.0, 1e-300, 123456789.123456789, -2.5e17, std::numeric_limits<double>::denorm_min()};
  s.stddev = {1.0, std::sqrt(2.0), 7e-12, 1e300, 0.30000000000000004, 2.0 / 3.0};
  // Through text, as stats.json and model cards carry them.
  const std::string json = s.to_json().dump();
  const FeatureStats back = FeatureStats::from_json(nlohmann::json::parse(json));
  EXPECT_EQ(back.log_scale, s.log_scale);
  EXPECT_EQ(back.mean, s.mean);
  EXPECT_EQ(back.stddev, s.stddev);

  const nlohmann::json j = nlohmann::json::parse(json);
  EXPECT_EQ(j.size(), 3u);
  EXPECT_EQ(j.at("log_scale"), nlohmann::json::array({0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(j.at("mean").size(), 6u);

  const std::vector<float> rows = random_rows(500, 4);
  const FeatureStats fitted = built(rows, kWidth);
  const FeatureStats fitted_back = FeatureStats::from_json(fitted.to_json());
  EXPECT_EQ(fitted_back.mean, fitted.mean);
  EXPECT_EQ(fitted_back.stddev, fitted.stddev);
  const std::vector<float> a = fitted.applied(rows), b = fitted_back.applied(rows);
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float)));
}

TEST(FeatureStats, FromJsonRejectsMalformedInput) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[1, 2]", "object"},
      {R"({"mean":[0],"stddev":[1]})", "log_scale"},
      {R"({"log_scale":0,"mean":[0],"stddev":[1]})", "not an array"},
      {R"({"log_scale":[0],"mean":[0,1],"stddev":[1]})", "lengths differ"},
      {R"({"log_scale":[2],"mean":[0],"stddev":[1]})", "log_scale[0]"},
      {R"({"log_scale":[0],"mean":["a"],"stddev":[1]})", "'mean'[0]"},
      {R"({"log_scale":[0,0],"mean":[0,0],"stddev":[1,0]})", "stddev[1]"},
      {R"({"log_scale":[0],"mean":[0],"stddev":[-1]})", "stddev[0]"},
  };
  for (const auto& c : cases) {
    // Plain names: clang (the wasm build) cannot capture structured bindings in C++17.
    const std::string& json = c.first;
    const std::string& problem = c.second;
    const std::string e =
        test::error_of([&] { FeatureStats::from_json(nlohmann::json::parse(json), "runs/a/stats.json"); });
    EXPECT_NE(e.find("runs/a/stats.json"), std::string::npos) << json << " -> " << e;
    EXPECT_NE(e.find(problem), std::string::npos) << json << " -> " << e;
  }
}

TEST(FeatureStats, NonFiniteValuesNameTheColumnAndAreNotCounted) {
  const std::vector<float> good = random_rows(10, 5);
  for (float bad : {std::nanf(""), INFINITY, -INFINITY}) {
    FeatureStatsBuilder b(kWidth);
    b.add(good.data(), 10);
    std::vector<float> block = random_rows(3, 6);
    block[1 * kWidth + 2] = bad;
    const std::string e = test::error_of([&] { b.add(block.data(), 3); });
    EXPECT_NE(e.find("column 2"), std::string::npos) << e;
    EXPECT_NE(e.find("row 11"), std::string::npos) << e;
    EXPECT_EQ(b.rows(), 10);
    expect_close(naive_stats(good, kWidth), b.finish(), 1e-13);
  }
}

TEST(FeatureStats, BuilderErrors) {
  EXPECT_NE(test::error_of([] { FeatureStatsBuilder(3).finish(); }), "");
  EXPECT_NE(test::error_of([] { FeatureStatsBuilder b(-1); }), "");
  EXPECT_NE(test::error_of([] {
              FeatureStatsBuilder b(2);
              const float x[2] = {1, 2};
              b.add(x, -1);
            }),
            "");
}

}  // namespace
}  // namespace fastslow
