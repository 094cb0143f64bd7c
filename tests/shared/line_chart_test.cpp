// Curves as SVG (the benchmarks' learning and tuning curves).
#include "fastslow/search/line_chart.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "test_support.h"

namespace fastslow::search {
namespace {

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(LineChart, OneLineAndLegendEntryPerCurveNonFinitePointsLeftOut) {
  LineChart c;
  c.title = "kendall <by> N";
  c.x_label = "N";
  c.y_label = "kendall";
  c.x_scale = ScaleChoice::Log;
  c.curves = {{"ridge", {{16, 0.2}, {32, 0.5}, {64, 0.6}}}, {"fastslow", {{16, 0.1}, {32, NAN}, {64, 0.8}}}};
  const std::string svg = line_chart_svg(c);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_EQ(count(svg, "<circle"), 5u);  // the NaN point is not drawn
  EXPECT_NE(svg.find("kendall &lt;by&gt; N"), std::string::npos);
  EXPECT_NE(svg.find(">fastslow<"), std::string::npos);
  LineChart empty;
  empty.title = "nothing";
  empty.curves = {{"a", {{1, NAN}}}};
  EXPECT_NE(test::error_of([&] { line_chart_svg(empty); }).find("nothing"), std::string::npos);
}

}  // namespace
}  // namespace fastslow::search
