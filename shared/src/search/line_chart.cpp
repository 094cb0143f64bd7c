#include "fastslow/search/line_chart.h"

#include <cmath>

#include "fastslow/error.h"
#include "fastslow/search/figure.h"

namespace fastslow::search {

namespace {
// Colour-blind-safe, distinct in grey too (Tableau 10's first ones).
const char* const kColours[] = {"#4c78a8", "#e45756", "#54a24b", "#f58518", "#b279a2", "#72b7b2", "#9d755d"};
}  // namespace

std::string line_chart_svg(const LineChart& chart) {
  using namespace figure;
  std::vector<double> xs, ys;
  for (const Curve& c : chart.curves)
    for (const auto& [x, y] : c.points)
      if (std::isfinite(x) && std::isfinite(y)) xs.push_back(x), ys.push_back(y);
  if (xs.empty()) throw Error("line chart '" + chart.title + "': no finite point to draw");
  const double width = 640, height = 400, font = 12;
  const Frame f{70, 36, width - 170, height - 50};
  const Axis x = place(fit_axis(xs, chart.x_scale), f.left, f.right);
  const Axis y = place(fit_axis(ys, chart.y_scale), f.bottom, f.top);
  std::string s = svg_open(width, height);
  s += svg_text(width / 2, 20, chart.title, font + 2, "middle");
  s += draw_axes(f, x, y, chart.x_label, chart.y_label, font);
  for (size_t i = 0; i < chart.curves.size(); ++i) {
    const Curve& c = chart.curves[i];
    const char* colour = kColours[i % (sizeof kColours / sizeof *kColours)];
    std::vector<std::pair<double, double>> pts;
    for (const auto& [px_, py_] : c.points) {
      const double mx = x.map(px_), my = y.map(py_);
      if (std::isfinite(mx) && std::isfinite(my)) pts.emplace_back(mx, my);
    }
    s += svg_polyline(pts, "curve", colour, 2);
    for (const auto& [mx, my] : pts)
      s += "<circle cx=\"" + figure::px(mx) + "\" cy=\"" + figure::px(my) + "\" r=\"3\" fill=\"" + colour + "\"/>\n";
    const double ly = f.top + 10 + 18 * static_cast<double>(i);
    s += svg_line(f.right + 12, ly - 4, f.right + 32, ly - 4, colour, 2);
    s += svg_text(f.right + 38, ly, fit_text(c.name, width - f.right - 42, font), font);
  }
  return s + svg_close();
}

}  // namespace fastslow::search
