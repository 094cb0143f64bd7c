#include "fastslow/graph/f_distribution.h"

#include <cmath>
#include <string>

#include "fastslow/error.h"

namespace fastslow {
namespace {

// The continued fraction of I_x(a, b) / (x^a (1-x)^b / (a B(a, b))),
// by the modified Lentz method; it converges fast for x < (a+1)/(a+b+2).
double beta_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  const auto guard = [](double v) { return std::fabs(v) < tiny ? tiny : v; };
  double c = 1, d = 1 / guard(1 - (a + b) * x / (a + 1)), h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double m2 = 2.0 * m;
    double term = m * (b - m) * x / ((a - 1 + m2) * (a + m2));  // even step
    d = 1 / guard(1 + term * d);
    c = guard(1 + term / c);
    h *= d * c;
    term = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2));  // odd step
    d = 1 / guard(1 + term * d);
    c = guard(1 + term / c);
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < 1e-15) return h;
  }
  return h;  // 10,000 terms: closer than any test asks
}

}  // namespace

double incomplete_beta(double a, double b, double x) {
  if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1))
    throw Error("incomplete beta: needs a, b > 0 and x in [0, 1], got a = " + std::to_string(a) +
                ", b = " + std::to_string(b) + ", x = " + std::to_string(x));
  if (x == 0 || x == 1) return x;
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double f_survival(double f, double d1, double d2) {
  if (!(d1 > 0) || !(d2 > 0))
    throw Error("F distribution: needs positive degrees of freedom, got " + std::to_string(d1) + " and " +
                std::to_string(d2));
  if (std::isnan(f)) throw Error("F distribution: the statistic is not a number");
  if (f <= 0) return 1;
  if (std::isinf(f)) return 0;
  return incomplete_beta(d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
}

}  // namespace fastslow
