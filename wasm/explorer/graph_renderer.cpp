#include "graph_renderer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fastslow::explorer {

namespace {

// Node vertices carry their centre and a corner (-1/+1); the shader grows the
// quad to max(half size, min_half) pixels. Edge vertices use corner 0.
const char* kVertex = R"(#version 300 es
precision highp float;
layout(location = 0) in vec2 center;
layout(location = 1) in vec2 corner;
layout(location = 2) in vec4 color;
uniform vec2 u_center;   // world point at the viewport centre
uniform vec2 u_scale;    // world -> clip: zoom * 2 / viewport size (y flipped)
uniform vec2 u_half;     // node half size in clip units at this zoom
uniform vec2 u_min_half; // smallest half size in clip units
uniform float u_alpha;
out vec4 v_color;
void main() {
  vec2 p = (center - u_center) * u_scale;
  p += corner * max(u_half, u_min_half);
  gl_Position = vec4(p, 0.0, 1.0);
  v_color = vec4(color.rgb, color.a * u_alpha);
}
)";

const char* kFragment = R"(#version 300 es
precision mediump float;
in vec4 v_color;
out vec4 frag;
void main() { frag = v_color; }
)";

GLuint compile(GLenum type, const char* src) {
  const GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024];
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    std::fprintf(stderr, "graph shader: %s\n", log);
  }
  return s;
}

}  // namespace

GraphRenderer::~GraphRenderer() {
  const GLuint buffers[] = {vbo_nodes_, vbo_colors_, vbo_edges_, vbo_edge_colors_};
  glDeleteBuffers(4, buffers);
  const GLuint arrays[] = {vao_nodes_, vao_edges_};
  glDeleteVertexArrays(2, arrays);
  if (program_) glDeleteProgram(program_);
}

void GraphRenderer::ensure_program() {
  if (program_) return;
  program_ = glCreateProgram();
  const GLuint vs = compile(GL_VERTEX_SHADER, kVertex), fs = compile(GL_FRAGMENT_SHADER, kFragment);
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  u_center_ = glGetUniformLocation(program_, "u_center");
  u_scale_ = glGetUniformLocation(program_, "u_scale");
  u_half_ = glGetUniformLocation(program_, "u_half");
  u_min_half_ = glGetUniformLocation(program_, "u_min_half");
  u_alpha_ = glGetUniformLocation(program_, "u_alpha");
  glGenVertexArrays(1, &vao_nodes_);
  glGenVertexArrays(1, &vao_edges_);
  glGenBuffers(1, &vbo_nodes_);
  glGenBuffers(1, &vbo_colors_);
  glGenBuffers(1, &vbo_edges_);
  glGenBuffers(1, &vbo_edge_colors_);
}

void GraphRenderer::set_graph(const GraphDrawing& d, const std::vector<uint32_t>& node_rgba) {
  ensure_program();
  nodes_ = static_cast<int64_t>(d.x.size());
  // Two triangles per node: centre.xy, corner.xy.
  static const float kCorners[6][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, -1}, {1, 1}, {-1, 1}};
  std::vector<float> nodes(static_cast<size_t>(nodes_) * 6 * 4);
  for (int64_t v = 0; v < nodes_; ++v)
    for (int k = 0; k < 6; ++k) {
      float* p = &nodes[(static_cast<size_t>(v) * 6 + k) * 4];
      p[0] = d.x[v];
      p[1] = d.y[v];
      p[2] = kCorners[k][0];
      p[3] = kCorners[k][1];
    }
  node_vertices_ = nodes_ * 6;
  glBindVertexArray(vao_nodes_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_nodes_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(nodes.size() * sizeof(float)), nodes.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 16, nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 16, reinterpret_cast<void*>(8));
  glBindBuffer(GL_ARRAY_BUFFER, vbo_colors_);
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, 4, nullptr);
  glBindVertexArray(0);
  set_colors(node_rgba);
  edge_vertices_ = 0;
}

void GraphRenderer::set_edges(const EdgeSegments& s, float level) {
  ensure_program();
  const int64_t m = s.segments();
  std::vector<float> lines(static_cast<size_t>(m) * 8);
  std::vector<uint32_t> colors(static_cast<size_t>(m) * 2);
  for (int64_t k = 0; k < m; ++k) {
    const float* p = &s.xy[4 * k];
    float* q = &lines[8 * k];
    q[0] = p[0], q[1] = p[1], q[2] = 0, q[3] = 0, q[4] = p[2], q[5] = p[3], q[6] = 0, q[7] = 0;
    const float a = edge_segment_alpha(s.weight[k], std::hypot(p[2] - p[0], p[3] - p[1]) * level);
    const uint32_t rgb = edge_segment_rgb(s.stub[k]);  // 0xRRGGBB; the vertex wants 0xAABBGGRR
    colors[2 * k] = colors[2 * k + 1] = (static_cast<uint32_t>(a * 255) << 24) | (rgb & 0xff) << 16 | (rgb & 0xff00) |
                                        (rgb >> 16 & 0xff);
  }
  edge_vertices_ = 2 * m;
  glBindVertexArray(vao_edges_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_edges_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(lines.size() * sizeof(float)), lines.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 16, nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 16, reinterpret_cast<void*>(8));
  glBindBuffer(GL_ARRAY_BUFFER, vbo_edge_colors_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(colors.size() * 4), colors.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, 4, nullptr);
  glBindVertexArray(0);
}

void GraphRenderer::set_colors(const std::vector<uint32_t>& node_rgba) {
  if (!program_) return;
  std::vector<uint32_t> per_vertex(static_cast<size_t>(nodes_) * 6);
  for (int64_t v = 0; v < nodes_ && v < static_cast<int64_t>(node_rgba.size()); ++v)
    std::fill_n(per_vertex.begin() + v * 6, 6, node_rgba[v]);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_colors_);
  glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(per_vertex.size() * 4), per_vertex.data(), GL_DYNAMIC_DRAW);
}

void GraphRenderer::draw(const View& v, float x, float y, float w, float h, float fb_h, float node_w, float node_h,
                         bool edges) const {
  if (!program_ || w < 1 || h < 1) return;
  glViewport(static_cast<GLint>(x), static_cast<GLint>(fb_h - y - h), static_cast<GLsizei>(w),
             static_cast<GLsizei>(h));
  glEnable(GL_SCISSOR_TEST);
  glScissor(static_cast<GLint>(x), static_cast<GLint>(fb_h - y - h), static_cast<GLsizei>(w), static_cast<GLsizei>(h));
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glUseProgram(program_);
  const float sx = v.zoom * 2.0f / w, sy = -v.zoom * 2.0f / h;
  glUniform2f(u_center_, v.center_x, v.center_y);
  glUniform2f(u_scale_, sx, sy);
  if (edges) {
    glUniform2f(u_half_, 0, 0);
    glUniform2f(u_min_half_, 0, 0);
    // Per-segment opacity does the fading (set_edges); a little more here
    // when zoomed far out.
    glUniform1f(u_alpha_, std::clamp(v.zoom / 2.0f, 0.6f, 1.0f));
    glBindVertexArray(vao_edges_);
    glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(edge_vertices_));
  }
  glUniform2f(u_half_, 0.5f * node_w * std::fabs(sx), 0.5f * node_h * std::fabs(sy));
  glUniform2f(u_min_half_, 1.0f / w, 1.0f / h);  // at least 2 x 2 pixels
  glUniform1f(u_alpha_, 1.0f);
  glBindVertexArray(vao_nodes_);
  glDrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(node_vertices_));
  glBindVertexArray(0);
}

}  // namespace fastslow::explorer
