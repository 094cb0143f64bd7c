// Plots drawn with ImDrawList in the current window: the frame (background,
// grid, ticks, axis titles) and the mapping from values to the screen. The
// Rank tab's scatter and a study's plots share it, so they look alike.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "fastslow/view/plot_axis.h"

namespace fastslow::explorer {

constexpr ImU32 kPlotBackground = IM_COL32(20, 20, 26, 255);
constexpr ImU32 kPlotPoint = IM_COL32(90, 170, 250, 160);

struct PlotFrame {
  PlotAxis x, y;
  ImVec2 lo, hi;         // the data area on screen: top left, bottom right
  bool hovered = false;  // the mouse is over the plot (and no window above it)

  // Where (vx, vy) goes on screen; NaN coordinates for a value the axis
  // cannot place (not positive on a log axis).
  ImVec2 at(double vx, double vy) const;
};

// Reserves `size` at the cursor (tick labels and titles included) and draws
// the frame: titles above (y) and below (x) the data area, ticks on its left
// and bottom edges.
PlotFrame plot_frame(PlotAxis x, PlotAxis y, const std::string& x_title, const std::string& y_title, ImVec2 size,
                     float dpr);

// The index of the point nearest the mouse within `radius` pixels, or -1;
// -1 too when the plot is not hovered.
int point_under_mouse(const PlotFrame& frame, const std::vector<ImVec2>& points, float radius);

}  // namespace fastslow::explorer
