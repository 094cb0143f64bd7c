#include "fastslow/view/plot_axis.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace fastslow {
namespace {

std::vector<std::string> labels(const std::vector<AxisTick>& ticks) {
  std::vector<std::string> out;
  for (const AxisTick& t : ticks) out.push_back(t.label);
  return out;
}

TEST(PlotAxis, AutoTakesLogOnlyForPositiveValuesSpanningMoreThanTenfold) {
  EXPECT_EQ(fit_axis({1, 5, 10}).scale, AxisScale::Linear);  // exactly 10x
  EXPECT_EQ(fit_axis({1, 5, 10.5}).scale, AxisScale::Log);
  EXPECT_EQ(fit_axis({1e-4, 3e-3}).scale, AxisScale::Log);
  EXPECT_EQ(fit_axis({0, 5, 1000}).scale, AxisScale::Linear);  // a zero has no place on a log axis
  EXPECT_EQ(fit_axis({-1, 1000}).scale, AxisScale::Linear);
  EXPECT_EQ(fit_axis({1, 1000}, ScaleChoice::Linear).scale, AxisScale::Linear);
  EXPECT_EQ(fit_axis({2, 3}, ScaleChoice::Log).scale, AxisScale::Log);
  EXPECT_EQ(fit_axis({-2, -3}, ScaleChoice::Log).scale, AxisScale::Linear);  // nothing positive to show
}

TEST(PlotAxis, RangeHoldsEveryValueInsideAMargin) {
  const PlotAxis lin = fit_axis({0.2, NAN, 0.8, INFINITY});
  EXPECT_NEAR(lin.lo, 0.17, 1e-12);
  EXPECT_NEAR(lin.hi, 0.83, 1e-12);
  EXPECT_NEAR(lin.unit(0.5), 0.5, 1e-12);
  const PlotAxis log = fit_axis({1, 100});
  EXPECT_NEAR(log.unit(10), 0.5, 1e-12);
  EXPECT_GT(log.unit(1), 0);
  EXPECT_LT(log.unit(100), 1);
  EXPECT_TRUE(std::isnan(log.unit(0)));
  const PlotAxis one = fit_axis({4});  // a single value sits in the middle of a range around it
  EXPECT_NEAR(one.unit(4), 0.5, 1e-12);
  EXPECT_LT(one.lo, 4);
  const PlotAxis none = fit_axis({});
  EXPECT_EQ(none.lo, 0);
  EXPECT_EQ(none.hi, 1);
}

TEST(PlotAxis, LinearTicksAreRoundAndInsideTheRange) {
  PlotAxis a;
  a.lo = 0.17, a.hi = 0.83;
  EXPECT_EQ(labels(a.ticks(7)), (std::vector<std::string>{"0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8"}));
  a.lo = -3, a.hi = 12;
  EXPECT_EQ(labels(a.ticks(5)), (std::vector<std::string>{"0", "5", "10"}));
  a.lo = 0, a.hi = 2.5e6;
  EXPECT_EQ(labels(a.ticks(5)), (std::vector<std::string>{"0", "500k", "1M", "1.5M", "2M", "2.5M"}));
  // One round value at the step max_ticks asks for shows no scale: a finer one.
  a.lo = 0.61, a.hi = 0.69;
  EXPECT_EQ(labels(a.ticks(2)), (std::vector<std::string>{"0.62", "0.64", "0.66", "0.68"}));
}

TEST(PlotAxis, LinearTicksOverManyRangesAreEvenOneTwoFiveStepsInside) {
  const std::vector<std::vector<double>> sets = {{0, 1},         {0.6123, 0.6348},   {3, 4870}, {-2.5, 7.1},
                                                 {1e-4, 3.2e-4}, {1234567, 9876543}, {5},       {0},
                                                 {-3},           {0.1, 0.3},         {}};
  for (const auto& values : sets)
    for (int max_ticks : {2, 3, 5, 9}) {
      const PlotAxis a = fit_axis(values, ScaleChoice::Linear);
      const std::vector<AxisTick> t = a.ticks(max_ticks);
      SCOPED_TRACE(std::to_string(a.lo) + ".." + std::to_string(a.hi) + " max " + std::to_string(max_ticks));
      ASSERT_GE(t.size(), 2u);
      EXPECT_LE(t.size(), static_cast<size_t>(std::max(max_ticks + 1, 5)));
      const double step = t[1].value - t[0].value, eps = 1e-9 * std::max({1.0, std::fabs(a.lo), std::fabs(a.hi)});
      EXPECT_GE(t.front().value, a.lo - eps);
      EXPECT_LE(t.back().value, a.hi + eps);
      for (size_t i = 1; i < t.size(); ++i) EXPECT_NEAR(t[i].value - t[i - 1].value, step, 1e-9 * step);
      const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
      EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-6 || std::fabs(mantissa - 2) < 1e-6 || std::fabs(mantissa - 5) < 1e-6)
          << "step " << step;
    }
}

TEST(PlotAxis, CountAxesAreLinearWithWholeTicks) {
  const PlotAxis few = count_axis({0, 1, 2, 3});
  EXPECT_EQ(few.scale, AxisScale::Linear);
  EXPECT_TRUE(few.whole);
  EXPECT_EQ(labels(few.ticks(12)), (std::vector<std::string>{"0", "1", "2", "3"}));  // not 0, 0.5, 1...
  EXPECT_EQ(labels(count_axis({7}).ticks(12)), (std::vector<std::string>{"7"}));   // one trial: one tick
  EXPECT_EQ(count_axis({1, 2, 5000}).scale, AxisScale::Linear);                      // never log
  std::vector<double> thirty;
  for (int i = 0; i < 30; ++i) thirty.push_back(i);
  EXPECT_EQ(labels(count_axis(thirty).ticks(8)), (std::vector<std::string>{"0", "5", "10", "15", "20", "25", "30"}));
}

TEST(PlotAxis, LogTicksAreOneTwoFiveWhereTheyFitElsePowersOfTen) {
  PlotAxis a;
  a.scale = AxisScale::Log;
  a.lo = 0.9e-4, a.hi = 1.1e-1;
  EXPECT_EQ(labels(a.ticks(6)), (std::vector<std::string>{"0.0001", "0.001", "0.01", "0.1"}));
  EXPECT_EQ(labels(a.ticks(10)), (std::vector<std::string>{"0.0001", "0.0002", "0.0005", "0.001", "0.002", "0.005",
                                                            "0.01", "0.02", "0.05", "0.1"}));
  // Too few ticks allowed even for every decade: every other one, or every
  // third, starting from the first inside, so that two still show.
  EXPECT_EQ(labels(a.ticks(2)), (std::vector<std::string>{"0.0001", "0.01"}));
  a.lo = 1.5, a.hi = 60;
  EXPECT_EQ(labels(a.ticks(8)), (std::vector<std::string>{"2", "5", "10", "20", "50"}));
  a.lo = 1, a.hi = 1e12;
  EXPECT_LE(a.ticks(6).size(), 6u);
  a.lo = 3e-7, a.hi = 2e3;
  for (int max_ticks : {3, 6}) {
    const auto t = a.ticks(max_ticks);
    EXPECT_GE(t.size(), 2u);
    EXPECT_LE(t.size(), static_cast<size_t>(max_ticks));
    for (const AxisTick& tick : t) EXPECT_NEAR(std::log10(tick.value), std::round(std::log10(tick.value)), 1e-9);
  }
  a.lo = 3, a.hi = 9;  // inside one decade: round linear steps
  EXPECT_EQ(labels(a.ticks(4)), (std::vector<std::string>{"4", "6", "8"}));
}

TEST(PlotAxis, CategoricalSlotsAreEvenlySpacedAndLabelled) {
  const PlotAxis c = categorical_axis({"gcn", "mlp", "sage"});
  EXPECT_EQ(c.scale, AxisScale::Categorical);
  EXPECT_NEAR(c.unit(0), 1.0 / 6, 1e-12);
  EXPECT_NEAR(c.unit(1), 0.5, 1e-12);
  EXPECT_NEAR(c.unit(2), 5.0 / 6, 1e-12);
  EXPECT_EQ(labels(c.ticks(10)), (std::vector<std::string>{"gcn", "mlp", "sage"}));
  EXPECT_EQ(c.ticks(2).size(), 2u);  // every other slot labelled when they do not fit
}

TEST(PlotAxis, TickLabelsUseTheDigitsTheStepNeeds) {
  EXPECT_EQ(tick_label(0.25, 0.05), "0.25");
  EXPECT_EQ(tick_label(1.0, 0.5), "1");
  EXPECT_EQ(tick_label(1500, 500), "1.5k");
  EXPECT_EQ(tick_label(120000, 20000), "120k");
  EXPECT_EQ(tick_label(-2, 1), "-2");
  EXPECT_EQ(tick_label(2e-5, 1e-5), "2e-05");
  EXPECT_EQ(tick_label(0, 0.1), "0");
}

}  // namespace
}  // namespace fastslow
