// One axis of a plot drawn by the page (the Rank tab's scatter, a study's
// objectives and parameters): its scale, the range it shows and its ticks.
// No drawing here, so that the choices can be tested without a browser.
#pragma once

#include <string>
#include <vector>

namespace fastslow {

enum class AxisScale { Linear, Log, Categorical };
const char* axis_scale_name(AxisScale s);  // "linear", "log", "categorical"

// What fit_axis may pick: Auto takes a log scale only for positive values
// spanning more than 10x (latencies, parameter counts, learning rates), where
// a linear one would crowd most points into a corner.
enum class ScaleChoice { Auto, Linear, Log };

struct AxisTick {
  double value = 0;
  std::string label;
};

struct PlotAxis {
  AxisScale scale = AxisScale::Linear;
  double lo = 0, hi = 1;                // the range shown (Categorical: slot -0.5 to n - 0.5)
  std::vector<std::string> categories;  // Categorical: slot i's label
  bool whole = false;                   // counts (trial numbers): no tick step below 1

  // Where v lies across the range, 0 at lo and 1 at hi; NaN where the scale
  // cannot place it (not positive on a log axis).
  double unit(double v) const;
  // At most about `max_ticks` ticks inside the range, at round values
  // (1, 2, 5 x 10^k; on a log axis 1, 2 and 5 in each decade where they
  // fit, else the powers of ten), each slot on a categorical one. A linear
  // axis gets at least two where two round values fit (a finer step than
  // max_ticks asks for, if need be; never below 1 when `whole`).
  std::vector<AxisTick> ticks(int max_ticks) const;
};

// An axis showing every finite value (non-positive ones are left out of a log
// axis; Log falls back to Linear when none is positive), with a margin so
// that no point sits on the frame.
PlotAxis fit_axis(const std::vector<double>& values, ScaleChoice choice = ScaleChoice::Auto);
// Counts such as trial numbers: fitted like fit_axis(values,
// ScaleChoice::Linear), never log, with ticks at whole numbers.
PlotAxis count_axis(const std::vector<double>& values);
// Evenly spaced slots, one per label, in the order given.
PlotAxis categorical_axis(std::vector<std::string> labels);

// A tick's label: as few digits as `step` (the distance between ticks)
// needs, thousands and millions as k and M.
std::string tick_label(double v, double step);

}  // namespace fastslow
