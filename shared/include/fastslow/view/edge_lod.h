// Which line segments a view of a large graph draws for its edges. Drawn one
// line per edge, a real 22k-node graph at fit is a wall: a few nodes with
// over a thousand users (parameters, constants, tuples) send lines across
// the whole picture, and thousands of short edges pile up in the same
// pixels. Here:
// - a hub (in or out degree above a threshold) keeps its edges as stubs: a
//   short line at each neighbour pointing toward the hub (one per cell and
//   direction); the view draws a hub's full edges only when it is hovered
//   or selected;
// - an edge longer than a few hundred pixels at the zoom is two stubs, one
//   at each end pointing toward the other: a line across the whole view
//   hides what it crosses and its far end is off screen or lost in the
//   crowd; hovering or selecting either end shows it;
// - at a zoom level, edges whose ends fall in the same pair of screen cells
//   become one segment that stands for all of them (its weight), and edges
//   inside one cell are not drawn (the node marks cover them).
// Cells depend on the zoom only, not on the pan, so a view rebuilds the
// segments when the zoom crosses a level, not on every frame.
#pragma once

#include <cstdint>
#include <vector>

#include "fastslow/view/graph_drawing.h"

namespace fastslow {

struct EdgeLodOptions {
  // A node with more users or more operands than this is a hub. Measured on
  // the real files (tests/shared/edge_lod_test.cpp prints the counts): 32
  // makes hubs of 59 of the nlp test graph's 21,918 nodes and 7 of unet3d's
  // 2,774, and of none in AlexNet or the xla test graph, whose largest
  // fan-out (22) still reads as lines.
  int64_t hub_degree = 32;
  // Merge edges whose ends share cells of this many pixels (1 to 2 times
  // this on screen: the level is a power of two). At 6, the nlp test graph
  // at fit draws under 5,000 segments for its 36,278 edges even where the
  // cells are smallest (the test prints the counts).
  float cell_px = 6;
  float stub_px = 14;   // a stub's length on screen
  float long_px = 160;  // longer edges are drawn as two stubs
};

// Per node: 1 when it is a hub under `hub_degree`. edge_index rows [u, v]
// (u consumes v's output); ids out of range throw Error.
std::vector<char> find_hubs(int64_t num_nodes, const std::vector<int64_t>& edge_index, int64_t hub_degree);

struct EdgeSegments {
  std::vector<float> xy;        // per segment: x0, y0, x1, y1 (world units)
  std::vector<int32_t> weight;  // per segment: the edges it stands for
  // Per segment: 0 a line, 1 a stub toward a hub, 2 a stub of a long edge
  // (each long edge gives two, one at each end).
  std::vector<char> stub;
  int64_t edges_hidden = 0;     // edges inside one cell (not drawn)
  int64_t segments() const { return static_cast<int64_t>(weight.size()); }
};

// The segments for a view at `zoom` pixels per world unit. Segments run
// producer -> consumer; a merged segment is drawn along its first edge.
EdgeSegments edge_segments(const GraphDrawing& d, const std::vector<int64_t>& edge_index,
                           const std::vector<char>& hubs, float zoom, const EdgeLodOptions& options = {});

// How a segment looks, the same on screen and in an exported SVG: merged
// segments more opaque (weight), long ones fainter (length in pixels), so
// edges across the view do not hide what lies under them; stubs toward hubs
// amber (0xRRGGBB), the rest grey-blue.
float edge_segment_alpha(int32_t weight, float length_px);
uint32_t edge_segment_rgb(char kind);

// The zoom at which the view computes segments: `zoom` rounded down to a
// power of two, so the set changes at most once per doubling of the zoom.
float edge_lod_level(float zoom);

}  // namespace fastslow
