// The explorer's graph part: the document's graph as drawn (computations
// collapsed or not), the view onto it, the selection and the search. It
// shows one document at a time (show()); graph_panel.cpp draws it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "document.h"
#include "fastslow/view/edge_lod.h"
#include "fastslow/view/node_groups.h"
#include "fastslow/view/node_search.h"
#include "graph_renderer.h"

namespace fastslow::explorer {

// What the graph view draws: the graph with some computations (node_splits)
// collapsed into one box each, laid out again.
struct Display {
  GraphDrawing drawing;
  std::vector<int64_t> edges;       // [u, v] rows between display nodes
  // display node -> original node, or -(1 + box) for a folded box: boxes
  // 0 .. computations-1 are collapsed computations, then folded chains,
  // then folded repeated blocks (GraphPanel::box_kind)
  std::vector<int64_t> node_of;
  std::vector<int32_t> display_of;  // original node -> display node
  std::vector<int64_t> members;     // per display node: original nodes it stands for
  // Neighbours per display node (CSR over `edges`): producers and users.
  std::vector<int64_t> in_ptr, out_ptr;
  std::vector<int32_t> in_idx, out_idx;
  std::vector<char> hubs;                // per display node (edge_lod.h)
  std::vector<int32_t> hub_list;         // the display nodes that are hubs
  std::vector<int32_t> marked;           // display nodes outlined as configurable (or holding one)
  int64_t hidden = 0;                    // original nodes left out (the model's view)
};

// Which nodes the graph view shows.
enum class NodeSet { All, ModelReads };

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

  // Elementwise chains (node_groups.h) folded into one box each; a click
  // on a box opens it. Out of range: ignored.
  void set_chains_folded(bool folded);
  void set_chain_folded(int64_t chain, bool folded);
  int64_t chains() const { return chains_.groups(); }
  int64_t folded_chains() const { return std::count(chain_folded_.begin(), chain_folded_.end(), 1); }
  // Copies of a repeated block (node_groups.h: a transformer's layers), one
  // box each; a click opens one in place (open_in_place.h).
  void set_blocks_folded(bool folded);
  int64_t blocks() const { return blocks_.groups(); }
  int64_t folded_blocks() const { return std::count(block_folded_.begin(), block_folded_.end(), 1); }
  // Opens a folded box (a display node's -1 - node_of) in place: the other
  // nodes keep their places. Not folded: ignored.
  void open_box(int64_t box);
  enum class BoxKind { Computation, Chain, Block };
  BoxKind box_kind(int64_t box) const;
  void set_collapsed(int64_t computation, bool collapsed);  // out of range: ignored
  void set_all_collapsed(bool collapsed);
  const std::vector<char>& collapsed() const { return collapsed_; }
  int64_t computations() const { return static_cast<int64_t>(collapsed_.size()); }
  bool outline_computations = false;

  // Selects `node` (-1: none) and centres the view on it.
  void select(int64_t node, float dpr);
  int64_t selected() const { return selected_; }
  // Finds nodes as node_search.h reads `text`; the hits light up, the rest
  // dims. A query it cannot read leaves no hits and says why (search_error).
  void search(const std::string& text);
  size_t search_hits() const { return found_.nodes.size(); }
  const NodeSearch& search_result() const { return found_; }
  const std::string& search_error() const { return search_error_; }
  double search_ms() const { return search_ms_; }
  // Selects and centres the next (+1) or previous (-1) match (Enter, Shift+Enter).
  void step_search(int delta, float dpr);

  // The nodes shown: all, or only what a model reads (the configurable
  // nodes and their k-hop neighbourhood, as --khop keeps), laid out again.
  void set_node_set(NodeSet set, int khop = 1);
  NodeSet node_set() const { return node_set_; }
  EdgeLodOptions edge_options;  // hub threshold and merging (change: call set_node_set to apply)
  void fit() { fit_pending_ = 1; }

  // Colours nodes by one value per original node (NaN: none, drawn dim):
  // an explanation's share of each configurable node, red where a node
  // makes the config slower, blue where faster; `title` heads the legend.
  // Values never below 0 (measured shares) get a one-sided bar, with
  // `caption` under it in place of the red/blue reading. Empty values:
  // colours by op family again.
  void set_node_values(std::vector<double> values, std::string title, std::string caption = "");
  const std::vector<double>& node_values() const { return values_; }
  const std::string& values_title() const { return values_title_; }
  // Lights up `nodes` (original ids) and dims the rest, with `title` in the
  // legend (a comparison's differing nodes); empty: none.
  void set_highlight(std::vector<int64_t> nodes, std::string title);
  const std::vector<int64_t>& highlight() const { return highlight_; }
  // Node values on a log scale (|value| in decades below the largest).
  void set_log_scale(bool log);
  bool log_scale() const { return log_scale_; }

  const View& view() const { return view_; }
  const Display& display() const { return disp_; }
  int64_t vertices() const { return renderer_.vertices(); }
  // What the last frame drew: edge segments (the GPU's, plus the edges of a
  // hovered or selected node), configurable marks on screen, hubs.
  struct DrawStats {
    int64_t edges_drawn = 0, segments = 0, overlay_edges = 0, marks = 0, hubs = 0, visible_nodes = 0;
  };
  const DrawStats& draw_stats() const { return stats_; }
  // The view as SVG (graph_svg.h); `scale` SVG units per screen pixel.
  std::string svg(float scale, int64_t* nodes = nullptr) const;
  // Walks from the selection (arrows: producer, user, neighbours in the layer).
  void walk(int dx, int dy, float dpr);

 private:
  // Lays the display out again; with `opened` (a box just opened), only
  // that box's members are laid out, in its place.
  void rebuild(int64_t opened = -1);
  bool open_stable(Display& d, int64_t opened) const;
  void recolor();
  void update_edges(float level);
  std::string box_name(int64_t box) const;  // "computation 2", "chain of 5 (add ... tanh)"
  void node_colors(std::vector<uint32_t>* rgb, std::vector<char>* dim) const;
  void fit_now();
  void fit_top_now();

  const Document* doc_ = nullptr;
  GraphRenderer renderer_;
  Display disp_;
  std::vector<char> collapsed_;  // per computation
  NodeGroups chains_;
  std::vector<char> chain_folded_;  // per chain
  NodeGroups blocks_;
  std::vector<char> block_folded_;  // per block
  View view_;
  int fit_pending_ = 0;  // 1: fit the whole graph, 2: the top of it (on open)
  int64_t selected_ = -1, hovered_ = -1;
  char query_[128] = "";
  int64_t hit_cursor_ = -1;
  NodeSearch found_;
  std::string searched_;  // the query found_ is for
  std::string search_error_;
  double search_ms_ = 0;
  NodeSet node_set_ = NodeSet::All;
  int khop_ = 1;
  EdgeSegments segs_;
  float seg_level_ = 0;  // the level segs_ was computed at (0: none yet)
  DrawStats stats_;
  float view_w_ = 0, view_h_ = 0;  // the view's size in the last frame (fit uses it)
  Pass main_pass_{}, mini_pass_{};
  std::vector<double> values_;  // per original node, NaN = none
  std::string values_title_;
  std::vector<int64_t> highlight_;
  std::string highlight_title_;
  double values_max_ = 0;       // the largest |value|
  bool values_signed_ = false;  // some value below 0: the bar runs from -max
  std::string values_caption_;
  bool log_scale_ = false;
};

}  // namespace fastslow::explorer
