#include "fastslow/graph/f_distribution.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <tuple>

#include "fastslow/error.h"

namespace fastslow {
namespace {

// The F density, integrated from f to a far bound by Simpson's rule on a
// substitution that tames the tail: the reference for degrees of freedom
// without a closed form.
double f_tail_by_quadrature(double f, double d1, double d2) {
  const auto density = [&](double x) {
    const double log_c = std::lgamma((d1 + d2) / 2) - std::lgamma(d1 / 2) - std::lgamma(d2 / 2) +
                         (d1 / 2) * std::log(d1 / d2);
    return std::exp(log_c + (d1 / 2 - 1) * std::log(x) - ((d1 + d2) / 2) * std::log1p(d1 * x / d2));
  };
  // x = f + t / (1 - t), t in [0, 1): dx = dt / (1 - t)^2.
  const int n = 200000;
  const double h = 1.0 / n;
  double s = 0;
  for (int i = 0; i <= n; ++i) {
    const double t = std::min(i * h, 1 - 1e-12);
    const double v = density(f + t / (1 - t)) / ((1 - t) * (1 - t));
    s += (i == 0 || i == n ? 1 : (i % 2 ? 4 : 2)) * v;
  }
  return s * h / 3;
}

TEST(FDistribution, MatchesItsClosedFormsAndTheIntegratedDensity) {
  // d1 = 2: P(F >= f) = (1 + 2f/d2)^(-d2/2). At tens of thousands of degrees
  // of freedom the log-gamma prefactor (and the closed form's power) round at
  // about 1e-11: a p-value needs far less.
  for (const double d2 : {1.0, 7.0, 40.0, 46000.0})
    for (const double f : {0.01, 0.5, 3.2, 10.0, 60.0})
      EXPECT_NEAR(f_survival(f, 2, d2), std::pow(1 + 2 * f / d2, -d2 / 2), d2 > 1000 ? 1e-10 : 1e-12) << f << " " << d2;
  // d2 = 2: P(F < f) = (d1 f / (d1 f + 2))^(d1/2).
  for (const double d1 : {1.0, 5.0, 63.0})
    for (const double f : {0.05, 1.0, 8.0})
      EXPECT_NEAR(1 - f_survival(f, d1, 2), std::pow(d1 * f / (d1 * f + 2), d1 / 2), 1e-12) << f << " " << d1;
  // Others against the density integrated (both tails of the fraction's switch).
  for (const auto& [f, d1, d2] : {std::tuple{0.7, 5.0, 11.0}, {2.5, 7.0, 48.0}, {4.0, 3.0, 9.0}, {1.2, 40.0, 200.0}})
    EXPECT_NEAR(f_survival(f, d1, d2), f_tail_by_quadrature(f, d1, d2), 1e-7) << f << " " << d1 << " " << d2;
}

TEST(FDistribution, EdgesAndRefusals) {
  EXPECT_EQ(f_survival(0, 3, 4), 1.0);
  EXPECT_EQ(f_survival(-1, 3, 4), 1.0);
  EXPECT_EQ(f_survival(std::numeric_limits<double>::infinity(), 3, 4), 0.0);
  EXPECT_THROW(f_survival(1, 0, 4), Error);
  EXPECT_THROW(f_survival(1, 3, -1), Error);
  EXPECT_THROW(f_survival(std::nan(""), 3, 4), Error);
  EXPECT_THROW(incomplete_beta(1, 1, 1.5), Error);
  EXPECT_DOUBLE_EQ(incomplete_beta(1, 1, 0.3), 0.3);  // the uniform distribution's CDF
}

}  // namespace
}  // namespace fastslow
