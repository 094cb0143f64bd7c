// The explorer's graph view as an SVG document: what is on screen (nodes
// as boxes in their colours, configurable ones outlined, labels where the
// view shows them, the edge segments it draws, the legend), in vector form
// for a paper or a slide. Every node in the view is a <rect class="node">
// with data-node="<id>" and a <title> tooltip.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fastslow/view/edge_lod.h"
#include "fastslow/view/graph_drawing.h"

namespace fastslow {

struct GraphSvgView {
  float center_x = 0, center_y = 0, zoom = 1;  // as the screen shows it: px = (world - center) * zoom + size / 2
  float width = 800, height = 600;             // the view in pixels
  float scale = 1;                             // SVG units per screen pixel
  float node_w = 0.8f, node_h = 0.5f;          // node size in world units
};

struct GraphSvgContent {
  std::vector<uint32_t> rgb;         // per drawn node: 0xRRGGBB
  std::vector<std::string> label;    // per drawn node: text inside its box, when it fits
  std::vector<std::string> tooltip;  // per drawn node (may be empty)
  std::vector<int64_t> id;           // per drawn node: data-node (its id in the file; negative for a group)
  std::vector<char> outlined;        // per drawn node: configurable (outlined)
  std::vector<std::pair<std::string, uint32_t>> legend;  // entries shown top right
  std::string caption;               // top left, e.g. the file and the view
};

struct GraphSvg {
  std::string text;
  int64_t nodes = 0, segments = 0;  // written
};

// Throws Error when the content's vectors do not have one entry per node of
// the drawing.
GraphSvg graph_svg(const GraphDrawing& d, const EdgeSegments& edges, const GraphSvgContent& content,
                   const GraphSvgView& view);

}  // namespace fastslow
