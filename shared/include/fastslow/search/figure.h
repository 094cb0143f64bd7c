// What the study report's tables and figures share: the core's plot axes
// placed onto pixels, the number formats, XML escaping and a few SVG
// elements. The figures are written by hand so that the report needs no
// plotting library.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "fastslow/search/trials.h"
#include "fastslow/view/plot_axis.h"
#include "fastslow/view/svg.h"

namespace fastslow::search::figure {

// The SVG elements every figure uses (view/svg.h).
using svg::px;
using svg::svg_close;
using svg::svg_line;
using svg::svg_open;
using svg::svg_text;
using svg::xml_escape;

// A core PlotAxis (its scale, range and ticks: what the page shows for
// the same values) placed onto pixels: lo onto `from`, hi onto `to`
// (to < from for a y axis, whose pixels grow downwards).
struct Axis {
  PlotAxis plot;
  std::vector<AxisTick> ticks;  // ascending, inside the range, labelled
  double from = 0, to = 1;
  double map(double v) const;
};
// `plot` between the pixels `from` and `to`, with about one tick per 40
// pixels; on a categorical axis every slot (draw_axes fits the labels).
Axis place(PlotAxis plot, double from, double to);

// "1,234,567".
std::string with_thousands(int64_t v);
// An objective's value as the table and tooltips show it: score with 4
// decimals, latency with 3 significant digits, params and onnx_bytes as
// integers with thousands separators, others with 4 significant digits.
std::string objective_text(const std::string& name, double v);
// "latency (ms / 1,000 configs, minimize)", "score (maximize)".
std::string objective_label(const Objective& o);
// A parameter's value: integers as such, floats with 4 significant
// digits, strings as they are, true / false.
std::string param_text(const nlohmann::json& v);
// "12.5 s", "8.3 min", "2.1 h".
std::string duration_text(double seconds);

// Characters (UTF-8 code points), which is what lines up in a terminal.
size_t char_count(std::string_view s);
// Rough width of sans-serif text: enough to keep labels apart.
double text_width(std::string_view s, double font_size);
// s cut to fit `width` pixels, an ellipsis marking the cut.
std::string fit_text(const std::string& s, double width, double font_size);

// Fill colours: every trial, and the ones a figure points out (the front,
// the best).
inline constexpr const char* kTrialFill = "#4c78a8";
inline constexpr const char* kMarkFill = "#e45756";
// A trial's circle with a tooltip (an SVG <title>, shown on hover by
// browsers); `marked` trials are drawn larger in kMarkFill.
std::string svg_circle(double cx, double cy, bool marked, std::string_view cls, int64_t trial,
                       std::string_view tooltip);
std::string svg_polyline(const std::vector<std::pair<double, double>>& points, std::string_view cls,
                         std::string_view stroke, double width);


// A rectangle in pixels, to keep labels off each other.
struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  bool inside(const Box& o) const { return x0 >= o.x0 && x1 <= o.x1 && y0 >= o.y0 && y1 <= o.y1; }
};

// A plot's area in pixels; its axes span it (their ranges hold a margin
// that keeps points off the frame).
struct Frame {
  double left, top, right, bottom;
};
// Draws the frame, grid, ticks and axis labels (none when empty).
std::string draw_axes(const Frame& f, const Axis& x, const Axis& y, const std::string& x_label,
                      const std::string& y_label, double font_size);
// The width of the widest of the axis's tick labels.
double widest_tick(const Axis& a, double font_size);

}  // namespace fastslow::search::figure
