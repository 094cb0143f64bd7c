#include "fastslow/view/plot_axis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace fastslow {

namespace {

constexpr double kMargin = 0.05;  // of the span, each side

// 1, 2 or 5 x 10^k: the smallest at least `raw`.
double nice_step(double raw) {
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * mag >= raw * (1 - 1e-9)) return m * mag;
  return 10 * mag;
}

// The step below `step` on the 1-2-5 ladder: 5 -> 2 -> 1 -> 0.5.
double finer_step(double step) {
  const double mag = std::pow(10.0, std::floor(std::log10(step) + 1e-9)), m = step / mag;
  return m < 1.5 ? 0.5 * mag : m < 3 ? mag : 2 * mag;
}

std::vector<AxisTick> linear_ticks(double lo, double hi, int max_ticks, bool whole) {
  std::vector<AxisTick> out;
  if (!(hi > lo)) return out;
  double step = nice_step((hi - lo) / std::max(1, max_ticks));
  if (whole) step = std::max(step, 1.0);
  auto first = [&](double s) { return std::ceil(lo / s - 1e-9); };
  auto count = [&](double s) { return std::floor(hi / s + 1e-9) - first(s) + 1; };
  // A single tick shows no scale: a finer step while it gives two.
  for (int i = 0; i < 60 && count(step) < 2 && !(whole && step <= 1); ++i) step = finer_step(step);
  // Multiples of the step, not a running sum: no drift into 0.30000000000000004.
  for (double k = first(step); k * step <= hi + step * 1e-9; ++k) {
    const double v = std::fabs(k) < 0.5 ? 0.0 : k * step;
    out.push_back({v, tick_label(v, step)});
  }
  return out;
}

std::vector<AxisTick> log_ticks(double lo, double hi, int max_ticks) {
  std::vector<AxisTick> out;
  if (!(lo > 0) || !(hi > lo)) return out;
  const int first = static_cast<int>(std::floor(std::log10(lo))), last = static_cast<int>(std::ceil(std::log10(hi)));
  auto inside = [&](double v) { return v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9); };
  // 1, 2 and 5 in every decade where they fit...
  for (int k = first; k <= last; ++k)
    for (double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, k);
      if (inside(v)) out.push_back({v, tick_label(v, v)});
    }
  if (out.size() >= 2 && static_cast<int>(out.size()) <= max_ticks) return out;
  // ...else the powers of ten inside, every `every`-th one from the first
  // when there are more than max_ticks of them...
  out.clear();
  const int k0 = static_cast<int>(std::ceil(std::log10(lo) - 1e-9));
  const int k1 = static_cast<int>(std::floor(std::log10(hi) + 1e-9));
  const int every = std::max(1, (k1 - k0 + std::max(1, max_ticks)) / std::max(1, max_ticks));
  for (int k = k0; k <= k1; k += every) {
    const double v = std::pow(10.0, k);
    out.push_back({v, tick_label(v, v)});
  }
  // ...and within one decade (3 to 9, say), round linear steps.
  if (out.size() < 2) return linear_ticks(lo, hi, max_ticks, false);
  return out;
}

}  // namespace

const char* axis_scale_name(AxisScale s) {
  switch (s) {
    case AxisScale::Linear: return "linear";
    case AxisScale::Log: return "log";
    case AxisScale::Categorical: return "categorical";
  }
  return "?";
}

double PlotAxis::unit(double v) const {
  if (scale == AxisScale::Log) {
    if (!(v > 0)) return std::numeric_limits<double>::quiet_NaN();
    return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
  }
  return (v - lo) / (hi - lo);
}

std::vector<AxisTick> PlotAxis::ticks(int max_ticks) const {
  if (scale == AxisScale::Categorical) {
    std::vector<AxisTick> out;
    const size_t n = categories.size();
    const size_t every = std::max<size_t>(1, (n + std::max(1, max_ticks) - 1) / std::max(1, max_ticks));
    for (size_t i = 0; i < n; i += every) out.push_back({static_cast<double>(i), categories[i]});
    return out;
  }
  return scale == AxisScale::Log ? log_ticks(lo, hi, max_ticks) : linear_ticks(lo, hi, max_ticks, whole);
}

PlotAxis fit_axis(const std::vector<double>& values, ScaleChoice choice) {
  double min_all = INFINITY, max_all = -INFINITY, min_pos = INFINITY, max_pos = -INFINITY;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    min_all = std::min(min_all, v), max_all = std::max(max_all, v);
    if (v > 0) min_pos = std::min(min_pos, v), max_pos = std::max(max_pos, v);
  }
  PlotAxis axis;
  const bool any_positive = min_pos <= max_pos;
  const bool log = choice == ScaleChoice::Log ? any_positive
                   : choice == ScaleChoice::Auto ? any_positive && min_all > 0 && max_pos > 10 * min_pos
                                                 : false;
  if (log) {
    axis.scale = AxisScale::Log;
    const double a = std::log10(min_pos), b = std::log10(max_pos);
    const double m = b > a ? kMargin * (b - a) : 0.5;
    axis.lo = std::pow(10.0, a - m);
    axis.hi = std::pow(10.0, b + m);
    return axis;
  }
  if (!(min_all <= max_all)) return axis;  // nothing to show: 0 to 1
  if (max_all > min_all) {
    const double m = kMargin * (max_all - min_all);
    axis.lo = min_all - m;
    axis.hi = max_all + m;
  } else {  // one value: a range around it
    const double half = min_all != 0 ? 0.1 * std::fabs(min_all) : 0.5;
    axis.lo = min_all - half;
    axis.hi = min_all + half;
  }
  return axis;
}

PlotAxis count_axis(const std::vector<double>& values) {
  PlotAxis axis = fit_axis(values, ScaleChoice::Linear);
  axis.whole = true;
  return axis;
}

PlotAxis categorical_axis(std::vector<std::string> labels) {
  PlotAxis axis;
  axis.scale = AxisScale::Categorical;
  axis.lo = -0.5;
  axis.hi = static_cast<double>(labels.size()) - 0.5;
  if (labels.empty()) axis.hi = 0.5;
  axis.categories = std::move(labels);
  return axis;
}

std::string tick_label(double v, double step) {
  if (v == 0) return "0";
  const double a = std::fabs(v);
  if (a < 1e-3 || a >= 1e12) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", v);
    return b;
  }
  const char* suffix = "";
  double div = 1;
  if (a >= 1e9) suffix = "G", div = 1e9;
  else if (a >= 1e6) suffix = "M", div = 1e6;
  else if (a >= 1e3) suffix = "k", div = 1e3;
  const double s = std::fabs(step) / div;
  const int decimals = s > 0 ? std::clamp(static_cast<int>(std::ceil(-std::log10(s) - 1e-9)), 0, 12) : 3;
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", decimals, v / div);
  std::string out = b;
  // Ticks 0.5 apart read "1", "1.5", "2", not "1.0", "1.5", "2.0".
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out + suffix;
}

}  // namespace fastslow
