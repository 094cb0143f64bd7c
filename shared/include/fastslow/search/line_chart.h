// Curves as an SVG figure, drawn with the report's axes (figure.h): the
// benchmarks' learning curves (Kendall against measured configs) and
// tuning curves (best runtime found against measuring time).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fastslow/view/plot_axis.h"

namespace fastslow::search {

struct Curve {
  std::string name;                               // the legend's label
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in order; non-finite points are left out
};

struct LineChart {
  std::string title, x_label, y_label;
  ScaleChoice x_scale = ScaleChoice::Auto, y_scale = ScaleChoice::Linear;
  std::vector<Curve> curves;
};

// A standalone SVG document; Error when no curve has a finite point.
std::string line_chart_svg(const LineChart& chart);

}  // namespace fastslow::search
