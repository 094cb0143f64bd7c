// The explorer: the open document and the parts that show and use it (the
// graph, the ranking, the study), each with its own state, over a Host (the
// page, a desktop window or a test). The platform layer (main.cpp) owns the
// window and the frame loop; bridge.cpp is the page's way in.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "compare.h"
#include "document.h"
#include "graph_panel.h"
#include "host.h"
#include "measured_effects.h"
#include "ranking.h"
#include "study_panel.h"

namespace fastslow::wasm {
struct RankSession;
}

namespace fastslow::explorer {

// CPU time on the main thread from the start of a frame to its last GL call
// (the GPU's time is not in it).
struct FrameStats {
  int64_t frames = 0;
  double last_ms = 0, avg_ms = 0;
  double first_after_open_ms = -1;  // from a file's open to its first full frame
  double open_started_ms = 0;
};

class App {
 public:
  explicit App(Host& host) : host_(host) {}

  // Opens `size` bytes at `bytes` (taken over); a failure throws Error and
  // keeps the previous graph (and shows the error).
  void open(std::string name, MallocBytes bytes, size_t size, double started_ms);
  // Opens a study from its text; a failure throws Error and keeps the previous study.
  void open_study(std::string name, const std::string& text);

  // Ranking the open document: the command (Rank button, JS), and the
  // session the host opens for it (ranking.h).
  bool start_rank(int model_index) { return ranking.start(doc.get(), model_index, host_); }
  // Explains `config` (against `against`, -1 = none) with a model; the graph
  // is coloured by the shares once they are in.
  bool start_explain(int model_index, int64_t config, int64_t against) {
    return show_configs_ = ranking.start_explain(doc.get(), model_index, config, against, host_);
  }
  bool start_tune(int model_index, int64_t count, int64_t budget) {
    return show_configs_ = ranking.start_tune(doc.get(), model_index, count, budget, host_);
  }
  // Config c in the Configs tab, brought up.
  void show_config(int64_t c) {
    heatmap_config = c, heatmap_proposal = -1, show_configs_ = true;
    changed();
  }
  // The last explanation's shares as the graph's node values.
  void show_explanation();
  // The graph coloured by the measured effects (found first if they were
  // not), or by op family again.
  void show_effects(bool coloured);
  // By the title as well: a new file's graph drops the values, not the title.
  bool effects_coloured() const { return !graph.node_values().empty() && graph.values_title() == kEffectsTitle; }
  bool explanation_coloured() const { return !graph.node_values().empty() && !effects_coloured(); }
  // Compares configs a and b (compare.h): the nodes they set differently
  // light up in the graph. a < 0 ends the comparison. Throws Error.
  void compare_configs(int64_t a, int64_t b);
  // Compares the open file with another (`size` bytes at `bytes`, taken
  // over and freed once compared: only the comparison is kept). Throws
  // Error naming the other file; the previous comparison then stays.
  void compare_file(std::string name, MallocBytes bytes, size_t size);
  // Lights up the open graph's nodes without a partner in the other file.
  void show_unmatched();
  std::unique_ptr<wasm::RankSession> open_rank_session(int ticket, const std::string& card_json);

  void frame(float width, float height);  // the whole UI for one frame
  void frame_done(double ms);             // CPU time of the whole frame, UI to GL calls
  // Whether a frame is worth drawing now: the user touched the window in the
  // last second, or something changed (the ranking's progress shows once a
  // second: drawing costs CPU the ranking needs), else four times a second.
  bool wants_frame(double now_ms) const;
  // Something the next frame must show changed outside a frame (a file, a
  // command from JS, the ranking's progress).
  void changed() { ++changes_; }

  // The name a saved file takes: the open file's stem (or "graph") and
  // `suffix` ("_view.svg", "_view.png", "_scatter.svg", ...).
  std::string export_name(const std::string& suffix) const;
  // The last ranking's scatter against measured runtimes (rank_figure.h);
  // throws Error without one.
  std::string rank_scatter(int64_t* points = nullptr) const;
  float png_scale = 2;           // PNG pixels per screen pixel
  // The state for tests and scripts: explorer_state's JSON (js_api.h).
  std::string state_json() const;
  // Per config, the score of its group in the last ranking (empty without one).
  std::vector<double> config_scores() const;

  void set_error(std::string e) { error_ = std::move(e); changed(); }
  void set_status(std::string s) { status_ = std::move(s); changed(); }
  Host& host() { return host_; }

  std::unique_ptr<Document> doc;
  GraphPanel graph;
  Ranking ranking;
  StudyPanel studies;
  FrameStats stats;
  float dpr = 1;                // device pixels per CSS pixel: the UI's scale
  int64_t heatmap_config = 0;   // the Configs tab's config
  int64_t against_config = -1;  // and the one to compare it with (-1: none)
  int64_t heatmap_proposal = -1;  // a proposed config shown instead (-1: none)
  int64_t tune_count = 10, tune_budget = 2048;
  ConfigDiff compare;  // the configs compared in the graph, if any
  MeasuredEffects effects;  // what the open file's runtimes depend on
  FileComparison file_compare;  // the open file against another, if any

 private:
  // panels.cpp: the side panel's tabs and the node inspector.
  void side_panel();
  void summary_tab();
  void file_compare_section();
  void effects_section();  // effects_section.cpp
  void effects_inspector(int64_t node);
  // The Configs tab's config (-1: a proposal) read against the effects.
  void config_effects_section(int64_t config, const std::vector<float>& row);
  void computations_section();
  void configs_tab();
  void explain_section();
  void compare_section(int64_t configs);
  void tune_section();
  void rank_tab();
  void submission_row_section();
  void inspector();
  void error_box(float width, float height);

  Host& host_;
  std::string error_;   // the last failure, shown until dismissed
  std::string status_;  // e.g. "loading big.npz (120 MB)"
  uint64_t changes_ = 1, drawn_changes_ = 0;
  int64_t shown_explanation_ = -1;
  bool drawn_since_open_ = false;  // the open file's first frame is done
  bool show_summary_ = false;  // the measured effects coloured from outside the tab bring it up
  bool show_configs_ = false;  // an explanation or tuning started from outside the tab brings it up  // the explanation (by its serial) the graph shows
  double last_frame_at_ = -1e18;
};

}  // namespace fastslow::explorer
