#include "fastslow/view/graph_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fastslow/error.h"
#include "fastslow/view/svg.h"

namespace fastslow {

namespace {

std::string hex(uint32_t rgb) {
  char b[8];
  std::snprintf(b, sizeof b, "#%06x", rgb & 0xffffffu);
  return b;
}

// Whether the segment from (x0, y0) to (x1, y1) can touch the box [0, w] x [0, h].
bool crosses(float x0, float y0, float x1, float y1, float w, float h) {
  return std::max(x0, x1) >= 0 && std::min(x0, x1) <= w && std::max(y0, y1) >= 0 && std::min(y0, y1) <= h;
}

}  // namespace

GraphSvg graph_svg(const GraphDrawing& d, const EdgeSegments& edges, const GraphSvgContent& c, const GraphSvgView& v) {
  const size_t n = d.x.size();
  auto check = [&](size_t size, const char* what) {
    if (size != n)
      throw Error(std::string("graph_svg: ") + what + " has " + std::to_string(size) + " entries for " +
                  std::to_string(n) + " nodes");
  };
  check(c.rgb.size(), "rgb");
  check(c.label.size(), "label");
  check(c.id.size(), "id");
  check(c.outlined.size(), "outlined");
  if (!c.tooltip.empty()) check(c.tooltip.size(), "tooltip");
  const float s = v.scale > 0 ? v.scale : 1, W = v.width * s, H = v.height * s;
  const float z = v.zoom * s;
  auto sx = [&](float x) { return (x - v.center_x) * z + 0.5f * W; };
  auto sy = [&](float y) { return (y - v.center_y) * z + 0.5f * H; };
  GraphSvg out;
  std::string& t = out.text;
  t = svg::svg_open(W, H, "#181a20");  // the view's own background
  // Edges under the nodes.
  t += "<g class=\"edges\" stroke-linecap=\"round\">\n";
  for (int64_t k = 0; k < edges.segments(); ++k) {
    const float x0 = sx(edges.xy[4 * k]), y0 = sy(edges.xy[4 * k + 1]);
    const float x1 = sx(edges.xy[4 * k + 2]), y1 = sy(edges.xy[4 * k + 3]);
    if (!crosses(x0, y0, x1, y1, W, H)) continue;
    const float a = edge_segment_alpha(edges.weight[k], std::hypot(x1 - x0, y1 - y0) / s);  // as on screen
    t += "<line x1=\"" + svg::px(x0) + "\" y1=\"" + svg::px(y0) + "\" x2=\"" + svg::px(x1) + "\" y2=\"" + svg::px(y1) +
         "\" stroke=\"" + hex(edge_segment_rgb(edges.stub[k])) + "\" stroke-opacity=\"" + svg::px(a) + "\"/>\n";
    ++out.segments;
  }
  t += "</g>\n<g class=\"nodes\">\n";
  // Boxes never shrink below 2 x 2 pixels, as on screen.
  const float hw = std::max(0.5f * v.node_w * z, 1.0f * s), hh = std::max(0.5f * v.node_h * z, 1.0f * s);
  const bool labels = 2 * hw > 30 * s;
  const float font = std::min(12.0f * s, 1.2f * hh);
  for (size_t i = 0; i < n; ++i) {
    const float x = sx(d.x[i]), y = sy(d.y[i]);
    if (x + hw < 0 || x - hw > W || y + hh < 0 || y - hh > H) continue;
    t += "<rect class=\"node\" data-node=\"" + std::to_string(c.id[i]) + "\" x=\"" + svg::px(x - hw) + "\" y=\"" +
         svg::px(y - hh) + "\" width=\"" + svg::px(2 * hw) + "\" height=\"" + svg::px(2 * hh) + "\" fill=\"" +
         hex(c.rgb[i]) + "\"";
    if (c.outlined[i]) t += " stroke=\"#ffe650\" stroke-width=\"" + svg::px(1.5f * s) + "\"";
    t += ">";
    if (!c.tooltip.empty()) t += "<title>" + svg::xml_escape(c.tooltip[i]) + "</title>";
    t += "</rect>\n";
    if (labels && !c.label[i].empty())
      t += svg::svg_text(x, y + 0.35f * font, c.label[i], font, "middle", "fill=\"#0a0a0a\" pointer-events=\"none\"");
    ++out.nodes;
  }
  t += "</g>\n";
  // Legend, top right; caption, top left.
  const float fs = 12 * s;
  float ly = 8 * s + fs;
  const float lx = W - 190 * s;
  for (const auto& [name, rgb] : c.legend) {
    t += "<rect x=\"" + svg::px(lx) + "\" y=\"" + svg::px(ly - 0.8f * fs) + "\" width=\"" + svg::px(0.8f * fs) +
         "\" height=\"" + svg::px(0.8f * fs) + "\" fill=\"" + hex(rgb) + "\"/>\n";
    t += svg::svg_text(lx + 1.3f * fs, ly, name, fs, "start", "fill=\"#dcdcdc\"");
    ly += 1.4f * fs;
  }
  if (!c.caption.empty()) t += svg::svg_text(8 * s, 8 * s + fs, c.caption, fs, "start", "fill=\"#dcdcdc\"");
  t += svg::svg_close();
  return out;
}

}  // namespace fastslow
