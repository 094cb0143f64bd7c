#include "search/figure.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fastslow::search {
namespace {

using namespace figure;

// ---- ticks, axes, formats -------------------------------------------------------

TEST(ReportFigure, NiceTicksCoverTheRangeInStepsOf1_2Or5TimesAPowerOfTen) {
  const std::pair<double, double> ranges[] = {{0, 1},         {0.6123, 0.6348},   {3, 4870}, {-2.5, 7.1},
                                              {1e-4, 3.2e-4}, {1234567, 9876543}, {5, 5},    {0, 0},
                                              {-3, -3},       {0.1, 0.3}};
  for (const auto& [lo, hi] : ranges)
    for (int target : {2, 5, 9}) {
      const auto t = nice_ticks(lo, hi, target);
      SCOPED_TRACE(std::to_string(lo) + ".." + std::to_string(hi) + " target " + std::to_string(target));
      ASSERT_GE(t.size(), 2u);
      const double step = t[1] - t[0], eps = 1e-9 * std::max({1.0, std::abs(lo), std::abs(hi)});
      EXPECT_LE(t.front(), lo + eps);
      EXPECT_GE(t.back(), hi - eps);
      for (size_t i = 1; i < t.size(); ++i) EXPECT_NEAR(t[i] - t[i - 1], step, 1e-9 * step);
      const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
      EXPECT_TRUE(std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 || std::abs(mantissa - 5) < 1e-6)
          << "step " << step;
      if (hi > lo) {
        EXPECT_LE(t.size(), static_cast<size_t>(target) + 2);
      }
    }
  EXPECT_EQ(nice_ticks(0, 1, 5), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1}));
  EXPECT_EQ(nice_ticks(3, 4870, 5), (std::vector<double>{0, 1000, 2000, 3000, 4000, 5000}));
  EXPECT_EQ(nice_ticks(0.1, 0.3, 2), (std::vector<double>{0.1, 0.2, 0.3}));
}

TEST(ReportFigure, LogTicksUse1_2_5OrDecades) {
  EXPECT_EQ(log_ticks(3, 700, 12), (std::vector<double>{2, 5, 10, 20, 50, 100, 200, 500, 1000}));
  EXPECT_EQ(log_ticks(1e-4, 0.1, 12), (std::vector<double>{1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1}));
  // Too many for 1, 2, 5: powers of ten, every second decade when needed.
  const auto t = log_ticks(3e-7, 2e3, 6);
  ASSERT_GE(t.size(), 2u);
  EXPECT_LE(t.size(), 7u);
  EXPECT_LE(t.front(), 3e-7);
  EXPECT_GE(t.back(), 2e3);
  for (double v : t) EXPECT_NEAR(std::log10(v), std::round(std::log10(v)), 1e-9) << v;
}

TEST(ReportFigure, AxesMapTheirEndsAndGoLogOnlyForWidePositiveSpans) {
  const Axis log = make_axis({1.5, 40, 900}, 100, 500, 20);
  EXPECT_EQ(log.scale, Scale::Log);
  EXPECT_DOUBLE_EQ(log.map(log.lo), 100);
  EXPECT_DOUBLE_EQ(log.map(log.hi), 500);
  EXPECT_NEAR(log.map(std::sqrt(log.lo * log.hi)), 300, 1e-9);
  EXPECT_LE(log.lo, 1.5);
  EXPECT_GE(log.hi, 900);
  EXPECT_EQ(make_axis({1.5, 25}, 100, 500, 20).scale, Scale::Linear);  // 16.7x
  EXPECT_EQ(make_axis({-1, 900}, 100, 500, 20).scale, Scale::Linear);  // not positive
  EXPECT_EQ(make_axis({1.5, 900}, 100, 500, 0).scale, Scale::Linear);  // log not wanted
  const Axis y = make_axis({0.2, 0.7}, 400, 50, 20);                   // pixels grow downwards
  EXPECT_GT(y.map(0.2), y.map(0.7));
  const Axis trials = make_axis({0, 3}, 0, 600, 0, true);
  EXPECT_GE(trials.ticks[1] - trials.ticks[0], 1);
  const Axis slots = categorical_axis({"a", "b", "c"}, 0, 300);
  EXPECT_DOUBLE_EQ(slots.map(0), 50);
  EXPECT_DOUBLE_EQ(slots.map(2), 250);
  EXPECT_EQ(tick_label(slots, 1), "b");
}

TEST(ReportFigure, NumberFormats) {
  EXPECT_EQ(with_thousands(1234567), "1,234,567");
  EXPECT_EQ(with_thousands(-1234), "-1,234");
  EXPECT_EQ(with_thousands(999), "999");
  EXPECT_EQ(objective_text("score", 0.612345), "0.6123");
  EXPECT_EQ(objective_text("latency", 2.4), "2.40");
  EXPECT_EQ(objective_text("latency", 12.345), "12.3");
  EXPECT_EQ(objective_text("latency", 123.4), "123");
  EXPECT_EQ(objective_text("latency", 0.012345), "0.0123");
  EXPECT_EQ(objective_text("params", 1234567.4), "1,234,567");
  EXPECT_EQ(objective_text("onnx_bytes", 52000), "52,000");
  EXPECT_EQ(objective_label({"latency", Direction::Minimize}), "latency (ms / 1,000 configs, minimize)");
  EXPECT_EQ(objective_label({"score", Direction::Maximize}), "score (maximize)");
  EXPECT_EQ(param_text(nlohmann::json(32)), "32");
  EXPECT_EQ(param_text(nlohmann::json(0.00123456)), "0.001235");
  EXPECT_EQ(param_text(nlohmann::json("gelu")), "gelu");
  EXPECT_EQ(param_text(nlohmann::json(true)), "true");
  const Axis big = make_axis({0, 190000}, 0, 300, 0);
  EXPECT_EQ(tick_label(big, 1), "50k");
  const Axis small = make_axis({0.61, 0.63}, 0, 300, 0);
  EXPECT_EQ(tick_label(small, 0), "0.610");
  EXPECT_EQ(xml_escape("a<b&\"c'>"), "a&lt;b&amp;&quot;c&apos;&gt;");
  EXPECT_EQ(fit_text("abcdefghij", text_width("abcd", 10), 10), "abc…");
}

}  // namespace
}  // namespace fastslow::search
