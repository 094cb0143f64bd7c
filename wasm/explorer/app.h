// The explorer's state and its views (Dear ImGui). The platform layer
// (main.cpp) owns the window and the frame loop; bridge.cpp is the JS side's
// way in (files, models, ranking results) and the tests' way to read state.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "document.h"
#include "graph_renderer.h"

namespace fastslow::explorer {

struct ModelSlot {
  std::string name;       // "demo" or the uploaded file's name
  std::string card_json;  // model.json
  std::string kind;       // tile | layout
  int64_t node_feat_width = 0, config_feat_width = 0;
  // What it was trained on (DataProfile::summary), or why that is unknown.
  std::string trained_on;
  bool generated = false;  // trained on generated data: labelled as such wherever it is picked
  std::string label() const { return generated ? name + " (generated data)" : name; }
};

enum class RankStatus { Idle, Running, Done, Failed, Cancelled };

struct RankState {
  RankStatus status = RankStatus::Idle;
  int64_t done = 0, total = 0;
  std::string message;
  std::string model;             // the model that produced the result
  std::string shift_warning;     // the file against the model's training data (shift_warning), "" = none found
  std::vector<double> group_scores;
  std::vector<int64_t> ranking;  // configs, best first
  std::vector<int64_t> position;  // per config: its place in the ranking
  double kendall = NAN, opa = NAN, top1 = NAN, top5 = NAN, top10 = NAN;
  double seconds = 0;
  bool cancel_requested = false;
};

// What the graph view draws: the graph with some computations (node_splits)
// collapsed into one box each, laid out again.
struct Display {
  GraphDrawing drawing;
  std::vector<int64_t> edges;       // [u, v] rows between display nodes
  std::vector<int64_t> node_of;     // display node -> original node, or -(1 + computation) for a collapsed one
  std::vector<int32_t> display_of;  // original node -> display node
  std::vector<int64_t> members;     // per display node: original nodes it stands for
};

struct App {
  std::unique_ptr<Document> doc;
  std::string error;  // the last failure, shown until dismissed
  std::string status;  // e.g. "loading big.npz (120 MB)"
  GraphRenderer renderer;
  Display disp;
  std::vector<char> collapsed;  // per computation
  bool group_boxes = false;     // outline each computation in the graph view
  View view;
  int fit_pending = 0;  // 1: fit the whole graph, 2: the top of it (on open)
  int64_t selected = -1, hovered = -1;
  char search[128] = "";
  std::vector<int64_t> search_hits;
  int64_t search_cursor = 0;
  int64_t heatmap_config = 0;
  std::vector<ModelSlot> models;
  int model_index = 0;
  RankState rank;
  bool show_rank_tab = false;  // select the Rank tab on the next frame
  // Frame statistics: CPU time on the main thread from the start of a frame to
  // the last GL call (the GPU's time is not in it).
  int64_t frames = 0;
  double last_frame_ms = 0, avg_frame_ms = 0;
  double first_frame_after_open_ms = -1;  // time from open to the first full frame
  double open_started_ms = 0;
  float dpr = 1;
  bool dirty = true;  // something changed that the next frame must show

  void open(std::string name, std::vector<uint8_t> bytes, double started_ms);
  void frame(float width, float height);  // the whole UI for one frame
  void frame_done(double ms);              // CPU time of the whole frame, UI to GL calls
  std::string state_json() const;

  // Views.
  void graph_view(float x, float y, float w, float h);
  void side_panel();
  void summary_tab();
  void computations_section();
  void configs_tab();
  void rank_tab();
  void inspector();
  void rebuild_display();
  void set_collapsed(int64_t computation, bool c);
  void fit();
  void fit_top();
  void select(int64_t node);
  void recolor();
  void run_search();
};

App& app();

}  // namespace fastslow::explorer
