// The explorer's graph part: the document's graph as drawn (computations
// collapsed or not), the view onto it, the selection and the search. It
// shows one document at a time (show()); graph_panel.cpp draws it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "document.h"
#include "graph_renderer.h"

namespace fastslow::explorer {

// What the graph view draws: the graph with some computations (node_splits)
// collapsed into one box each, laid out again.
struct Display {
  GraphDrawing drawing;
  std::vector<int64_t> edges;       // [u, v] rows between display nodes
  std::vector<int64_t> node_of;     // display node -> original node, or -(1 + computation) for a collapsed one
  std::vector<int32_t> display_of;  // original node -> display node
  std::vector<int64_t> members;     // per display node: original nodes it stands for
};

class GraphPanel {
 public:
  // What the GL callbacks of the last frame draw (the main view, the minimap).
  struct Pass {
    const GraphRenderer* renderer;
    float x, y, w, h;
    View view;
    bool edges;
  };
  // Shows `doc` (or nothing): selection and search cleared, every
  // computation expanded, the top of the graph fitted on the next frame.
  void show(const Document* doc);
  // The view and its toolbar, minimap and legend at (x, y, w, h).
  void draw(float x, float y, float w, float h, float dpr);

  void set_collapsed(int64_t computation, bool collapsed);  // out of range: ignored
  void set_all_collapsed(bool collapsed);
  const std::vector<char>& collapsed() const { return collapsed_; }
  int64_t computations() const { return static_cast<int64_t>(collapsed_.size()); }
  bool outline_computations = false;

  // Selects `node` (-1: none) and centres the view on it.
  void select(int64_t node, float dpr);
  int64_t selected() const { return selected_; }
  // Finds nodes by opcode name or "#id"; the hits light up, the rest dims.
  void search(const std::string& text);
  size_t search_hits() const { return hits_.size(); }
  void fit() { fit_pending_ = 1; }

  // Colours nodes by one value per original node (NaN: none, drawn dim):
  // an explanation's share of each configurable node, red where a node
  // makes the config slower, blue where faster; `title` heads the legend.
  // Empty values: colours by op family again.
  void set_node_values(std::vector<double> values, std::string title);
  const std::vector<double>& node_values() const { return values_; }
  // Node values on a log scale (|value| in decades below the largest).
  void set_log_scale(bool log);
  bool log_scale() const { return log_scale_; }

  const View& view() const { return view_; }
  const Display& display() const { return disp_; }
  int64_t vertices() const { return renderer_.vertices(); }

 private:
  void rebuild();
  void recolor();
  void fit_now();
  void fit_top_now();

  const Document* doc_ = nullptr;
  GraphRenderer renderer_;
  Display disp_;
  std::vector<char> collapsed_;  // per computation
  View view_;
  int fit_pending_ = 0;  // 1: fit the whole graph, 2: the top of it (on open)
  int64_t selected_ = -1, hovered_ = -1;
  char query_[128] = "";
  std::vector<int64_t> hits_;
  int64_t hit_cursor_ = 0;
  float view_w_ = 0, view_h_ = 0;  // the view's size in the last frame (fit uses it)
  Pass main_pass_{}, mini_pass_{};
  std::vector<double> values_;  // per original node, NaN = none
  std::string values_title_;
  double values_max_ = 0;       // the largest |value|
  bool log_scale_ = false;
};

}  // namespace fastslow::explorer
