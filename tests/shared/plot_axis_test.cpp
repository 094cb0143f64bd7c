#include "fastslow/view/plot_axis.h"

#include <gtest/gtest.h>

#include <cmath>

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
}

TEST(PlotAxis, LogTicksAreOneTwoFiveWhereTheyFitElsePowersOfTen) {
  PlotAxis a;
  a.scale = AxisScale::Log;
  a.lo = 0.9e-4, a.hi = 1.1e-1;
  EXPECT_EQ(labels(a.ticks(6)), (std::vector<std::string>{"0.0001", "0.001", "0.01", "0.1"}));
  EXPECT_EQ(labels(a.ticks(10)), (std::vector<std::string>{"0.0001", "0.0002", "0.0005", "0.001", "0.002", "0.005",
                                                            "0.01", "0.02", "0.05", "0.1"}));
  a.lo = 1.5, a.hi = 60;
  EXPECT_EQ(labels(a.ticks(8)), (std::vector<std::string>{"2", "5", "10", "20", "50"}));
  a.lo = 1, a.hi = 1e12;  // too many decades: every other one
  EXPECT_LE(a.ticks(6).size(), 7u);
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
