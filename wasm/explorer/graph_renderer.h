// Draws a GraphDrawing with WebGL2 from buffers built once per graph, so a
// frame costs a few draw calls whatever the graph's size: edges as lines,
// nodes as quads that never shrink below a couple of pixels (level of detail
// by the vertex shader instead of per-node CPU work).
#pragma once

#include <GLES3/gl3.h>

#include <cstdint>
#include <vector>

#include "fastslow/view/edge_lod.h"
#include "fastslow/view/graph_drawing.h"

namespace fastslow::explorer {

struct View {
  // World -> framebuffer pixels: px = (world - center) * zoom + viewport centre.
  float center_x = 0, center_y = 0, zoom = 1;
};

class GraphRenderer {
 public:
  GraphRenderer() = default;
  ~GraphRenderer();
  GraphRenderer(const GraphRenderer&) = delete;
  GraphRenderer& operator=(const GraphRenderer&) = delete;

  // node_rgba: per node 0xAABBGGRR. Builds the nodes' GPU buffers.
  void set_graph(const GraphDrawing& d, const std::vector<uint32_t>& node_rgba);
  // The edge segments to draw (edge_lod.h), computed at `level` pixels per
  // world unit: a merged segment is more opaque, a long one fainter.
  void set_edges(const EdgeSegments& s, float level);
  // Re-colours nodes (search hits, dimming) without rebuilding the edges.
  void set_colors(const std::vector<uint32_t>& node_rgba);
  // Viewport (x, y, w, h) in framebuffer pixels, y from the top; fb_h the
  // framebuffer height. Leaves GL state for ImGui to reset.
  void draw(const View& v, float x, float y, float w, float h, float fb_h, float node_w, float node_h,
            bool edges) const;
  int64_t vertices() const { return node_vertices_ + edge_vertices_; }
  int64_t edge_segments() const { return edge_vertices_ / 2; }

 private:
  void ensure_program();
  GLuint program_ = 0, vao_nodes_ = 0, vao_edges_ = 0, vbo_nodes_ = 0, vbo_colors_ = 0, vbo_edges_ = 0, vbo_edge_colors_ = 0;
  GLint u_center_ = -1, u_scale_ = -1, u_half_ = -1, u_min_half_ = -1, u_alpha_ = -1;
  int64_t node_vertices_ = 0, edge_vertices_ = 0, nodes_ = 0;
};

}  // namespace fastslow::explorer
