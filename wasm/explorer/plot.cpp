#include "plot.h"

#include <algorithm>
#include <cmath>

namespace fastslow::explorer {

ImVec2 PlotFrame::at(double vx, double vy) const {
  const double ux = x.unit(vx), uy = y.unit(vy);
  return {lo.x + static_cast<float>(ux) * (hi.x - lo.x), hi.y - static_cast<float>(uy) * (hi.y - lo.y)};
}

PlotFrame plot_frame(PlotAxis x, PlotAxis y, const std::string& x_title, const std::string& y_title, ImVec2 size,
                     float dpr) {
  PlotFrame f;
  f.x = std::move(x);
  f.y = std::move(y);
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImGui::Dummy(size);
  f.hovered = ImGui::IsItemHovered();
  const float line = ImGui::GetTextLineHeight(), pad = 6 * dpr;
  // The y ticks first: their widest label sets the left margin.
  const float top = p.y + line + pad, bottom = p.y + size.y - 2 * line - pad;
  const std::vector<AxisTick> y_ticks =
      f.y.ticks(std::clamp(static_cast<int>((bottom - top) / (32 * dpr)), 2, 10));
  float label_w = 0;
  for (const AxisTick& t : y_ticks) label_w = std::max(label_w, ImGui::CalcTextSize(t.label.c_str()).x);
  f.lo = {p.x + label_w + 2 * pad, top};
  f.hi = {p.x + size.x - pad, std::max(top + 1, bottom)};
  const std::vector<AxisTick> x_ticks =
      f.x.ticks(std::clamp(static_cast<int>((f.hi.x - f.lo.x) / (80 * dpr)), 2, 12));

  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 grid = IM_COL32(255, 255, 255, 22), text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  dl->AddRectFilled(f.lo, f.hi, kPlotBackground);
  for (const AxisTick& t : y_ticks) {
    const float sy = f.at(f.x.lo, t.value).y;
    if (!(sy >= f.lo.y - 0.5f && sy <= f.hi.y + 0.5f)) continue;
    dl->AddLine({f.lo.x, sy}, {f.hi.x, sy}, grid);
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    dl->AddText({f.lo.x - pad - ts.x, sy - 0.5f * ts.y}, text, t.label.c_str());
  }
  for (const AxisTick& t : x_ticks) {
    const float sx = f.at(t.value, f.y.lo).x;
    if (!(sx >= f.lo.x - 0.5f && sx <= f.hi.x + 0.5f)) continue;
    dl->AddLine({sx, f.lo.y}, {sx, f.hi.y}, grid);
    const ImVec2 ts = ImGui::CalcTextSize(t.label.c_str());
    dl->AddText({std::clamp(sx - 0.5f * ts.x, p.x, p.x + size.x - ts.x), f.hi.y + 0.5f * pad}, text, t.label.c_str());
  }
  dl->AddRect(f.lo, f.hi, IM_COL32(255, 255, 255, 40));
  const ImU32 title = ImGui::GetColorU32(ImGuiCol_Text);
  dl->AddText({f.lo.x, p.y}, title, y_title.c_str());
  const ImVec2 xs = ImGui::CalcTextSize(x_title.c_str());
  dl->AddText({0.5f * (f.lo.x + f.hi.x - xs.x), f.hi.y + 0.5f * pad + line}, title, x_title.c_str());
  return f;
}

int point_under_mouse(const PlotFrame& frame, const std::vector<ImVec2>& points, float radius) {
  if (!frame.hovered) return -1;
  const ImVec2 m = ImGui::GetIO().MousePos;
  int best = -1;
  float best_d2 = radius * radius;
  for (size_t i = 0; i < points.size(); ++i) {
    const float dx = points[i].x - m.x, dy = points[i].y - m.y, d2 = dx * dx + dy * dy;
    if (d2 <= best_d2) best = static_cast<int>(i), best_d2 = d2;
  }
  return best;
}

}  // namespace fastslow::explorer
