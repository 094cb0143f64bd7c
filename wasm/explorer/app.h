// The explorer's state and its views (Dear ImGui). The platform layer
// (main.cpp) owns the window and the frame loop; bridge.cpp is the JS side's
// way in (files, models, ranking results) and the tests' way to read state.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "document.h"
#include "fastslow/rank/metrics.h"
#include "graph_renderer.h"
#include "study_state.h"

namespace fastslow::wasm {
struct RankSession;
}

namespace fastslow::explorer {

struct ModelSlot {
  std::string name;       // "demo" or the uploaded file's name
  std::string kind;       // tile | layout
  int64_t node_feat_width = 0, config_feat_width = 0;
  // What it was trained on (DataProfile::summary), or why that is unknown.
  std::string trained_on;
  bool generated = false;  // trained on generated data: labelled as such wherever it is picked
  int64_t members = 0;     // an exported ensemble's member models (0: a single model)
  std::string combine;     // and how their scores combine (mean | weighted)
  std::string label() const { return generated ? name + " (generated data)" : name; }
};

enum class RankStatus { Idle, Running, Done, Failed, Cancelled };

struct RankState {
  RankStatus status = RankStatus::Idle;
  int64_t done = 0, total = 0;
  std::string message;
  std::string model;             // the model that produced the result
  std::string shift_warning;     // the file against the model's training data (shift_warning), "" = none found
  std::string card_collection;   // the card's data.collection ("" for per-program cards)
  std::string picked_collection;  // the user's pick for the submission row where the card's does not fit
  std::string submission_error;   // why the last submission row could not be written
  std::vector<double> group_scores;
  std::vector<int64_t> ranking;  // configs, best first
  std::vector<int64_t> position;  // per config: its place in the ranking
  GraphMetrics metrics;          // NaN fields without runtimes
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
  // The current ranking's ticket: opening a file or starting a ranking draws
  // a new one, and what JS reports under an older ticket is dropped.
  int rank_ticket = 0;
  bool show_rank_tab = false;  // select the Rank tab on the next frame
  // The open study (trials.jsonl), independent of the graph; its window.
  std::unique_ptr<StudyState> study;
  bool show_study = false;
  bool place_study = false;  // put the window over the graph view on the next frame
  // Frame statistics: CPU time on the main thread from the start of a frame to
  // the last GL call (the GPU's time is not in it).
  int64_t frames = 0;
  double last_frame_ms = 0, avg_frame_ms = 0;
  double first_frame_after_open_ms = -1;  // time from open to the first full frame
  double open_started_ms = 0;
  float dpr = 1;
  bool dirty = true;  // something changed that the next frame must show

  // Opens `size` bytes at `bytes` (taken over); a failure throws Error and
  // keeps the previous graph.
  void open(std::string name, MallocBytes bytes, size_t size, double started_ms);
  // Opens a study from its text; a failure throws Error and keeps the previous study.
  void open_study(std::string name, const std::string& text);
  void frame(float width, float height);  // the whole UI for one frame
  void frame_done(double ms);              // CPU time of the whole frame, UI to GL calls
  std::string state_json() const;

  // Rankings (ranking.cpp): started here, run by the page's JS, which
  // reports back with the ticket it was given.
  bool start_rank(int model_index);  // false: no file, no such model, or one running
  std::string rank_open(int ticket, const std::string& card_json);  // RankInfo JSON; throws Error
  bool rank_progress(int ticket, int64_t done, int64_t total);       // false: stop
  // Throws Error when the scores do not fit the session or the document.
  void rank_done(int ticket, const wasm::RankSession& session, std::vector<double> scores, double seconds);
  void rank_failed(int ticket, const std::string& message, bool cancelled);
  // The submission row's collection: the card's when it is of the file's
  // kind, else the user's pick, else the only one of that kind; "" = ask.
  std::string submission_collection() const;
  std::vector<std::string> submission_choices() const;  // the collections of the file's kind
  void pick_collection(const std::string& id);          // throws Error for one not in the choices
  // The competition CSV of the last ranking; throws Error when there is
  // none or no collection is known yet.
  std::string submission_csv() const;
  std::string submission_file_name() const;

  // Views.
  void graph_view(float x, float y, float w, float h);
  void side_panel();
  void summary_tab();
  void computations_section();
  void configs_tab();
  void rank_tab();
  void submission_row_section();
  void inspector();
  void study_window(float x, float y, float w, float h);  // study_view.cpp
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
