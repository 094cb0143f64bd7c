#include "rank_figure.h"

#include <cmath>

#include "fastslow/error.h"
#include "fastslow/search/figure.h"

namespace fastslow::explorer {

namespace fig = search::figure;

std::string rank_scatter_svg(const std::string& title, const std::vector<double>& score,
                             const std::vector<double>& runtime, int64_t* points) {
  if (score.size() != runtime.size())
    throw Error("rank scatter: " + std::to_string(score.size()) + " scores for " + std::to_string(runtime.size()) + " runtimes");
  constexpr double kW = 640, kH = 480, kFont = 12;
  fig::Frame f{0, 48, kW - 24, kH - 56};
  const fig::Axis y = fig::place(fit_axis(runtime, ScaleChoice::Log), f.bottom, f.top);
  f.left = 18 + (kFont + 1) + 14 + fig::widest_tick(y, kFont);
  const fig::Axis x = fig::place(fit_axis(score, ScaleChoice::Linear), f.left, f.right);
  std::string out = fig::svg_open(kW, kH);
  out += fig::svg_text(16, 28, title, 15, "start", "font-weight=\"bold\" class=\"title\"");
  out += fig::draw_axes(f, x, y, "score (lower = predicted faster)", "measured runtime (log scale)", kFont);
  out += "<g class=\"configs\" fill=\"" + std::string(fig::kTrialFill) + "\" fill-opacity=\"0.55\">\n";
  int64_t drawn = 0;
  for (size_t c = 0; c < score.size(); ++c) {
    const double px = x.map(score[c]), py = y.map(runtime[c]);
    if (!std::isfinite(px) || !std::isfinite(py)) continue;
    out += "<circle cx=\"" + fig::px(px) + "\" cy=\"" + fig::px(py) + "\" r=\"2.2\"/>\n";
    ++drawn;
  }
  out += "</g>\n";
  out += fig::svg_text(16, kH - 14, std::to_string(drawn) + " configs; each at its group's score", kFont, "start",
                       "class=\"caption\" fill=\"#555\"");
  out += fig::svg_close();
  if (points) *points = drawn;
  return out;
}

}  // namespace fastslow::explorer
