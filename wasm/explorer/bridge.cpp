// The explorer's C entry points for the page's JS (declared, with their
// JSON, in js_api.h): thin calls into the app that main.cpp attaches. Each
// call that changes what is shown marks the app changed, here and only
// here.
#include <emscripten/emscripten.h>

#include <nlohmann/json.hpp>
#include <string>

#include "app.h"
#include "bridge.h"
#include "c_strings.h"
#include "fastslow/error.h"
#include "fastslow/data/collection.h"
#include "fastslow/io/json_text.h"
#include "js_api.h"
#include "rank_session.h"

using fastslow::explorer::App;
using fastslow::wasm::guarded;
using fastslow::wasm::to_c;

namespace {

App* g_app = nullptr;  // the page has one app; main.cpp attaches it before the first call

App& app() {
  if (!g_app) throw fastslow::Error("the explorer has not started");
  return *g_app;
}

const std::string kOk = nlohmann::json{{"ok", true}}.dump();

// A call that changes what the app shows: `f`'s JSON, or {"error"}.
template <class F>
char* changing(F&& f) {
  return guarded([&] {
    App& a = app();
    a.changed();
    return f(a);
  });
}

}  // namespace

namespace fastslow::explorer {
void attach_bridge(App& app) { g_app = &app; }
}  // namespace fastslow::explorer

extern "C" {

EMSCRIPTEN_KEEPALIVE char* explorer_open(uint8_t* bytes, size_t size, const char* name, double started_ms) {
  fastslow::explorer::MallocBytes owned(bytes);  // ours now, whatever happens
  return changing([&](App& a) {
    a.open(name, std::move(owned), size, started_ms);
    return kOk;
  });
}

EMSCRIPTEN_KEEPALIVE char* explorer_open_study(const uint8_t* bytes, size_t size, const char* name) {
  return changing([&](App& a) {
    a.open_study(name, std::string(reinterpret_cast<const char*>(bytes), size));
    return nlohmann::json{{"ok", true}, {"trials", a.studies.study->file.trials.size()}}.dump();
  });
}

EMSCRIPTEN_KEEPALIVE char* explorer_study_view(const char* view_json) {
  return changing([&](App& a) {
    if (!a.studies.study) throw fastslow::Error("no study open");
    a.studies.study->set_view(fastslow::parse_json_text(view_json, "the study view", "not JSON"));
    return kOk;
  });
}

EMSCRIPTEN_KEEPALIVE char* explorer_study_point(int number) {
  return guarded([&] {
    const App& a = app();
    if (a.studies.study) {
      const auto it = a.studies.study->drawn.find(number);
      if (it != a.studies.study->drawn.end())
        return nlohmann::json{{"x", it->second[0] / a.dpr}, {"y", it->second[1] / a.dpr}}.dump();
    }
    throw fastslow::Error("trial " + std::to_string(number) + " is not drawn in the study's scatter");
  });
}

EMSCRIPTEN_KEEPALIVE void explorer_set_status(const char* text) {
  if (g_app) g_app->set_status(text);
}
EMSCRIPTEN_KEEPALIVE void explorer_set_error(const char* text) {
  if (g_app) g_app->set_error(text);
}

EMSCRIPTEN_KEEPALIVE char* explorer_add_model(const char* name, const char* card_json) {
  return changing([&](App& a) {
    try {
      return nlohmann::json{{"index", a.ranking.add_model(name, card_json)}}.dump();
    } catch (const std::exception& e) {
      a.set_error(e.what());
      throw;
    }
  });
}

EMSCRIPTEN_KEEPALIVE int explorer_start_rank(int model_index) {
  if (!g_app) return 0;
  g_app->changed();
  return g_app->start_rank(model_index) ? 1 : 0;
}

EMSCRIPTEN_KEEPALIVE int explorer_explain(int model_index, int config, int against) {
  if (!g_app) return 0;
  g_app->changed();
  return g_app->start_explain(model_index, config, against) ? 1 : 0;
}

EMSCRIPTEN_KEEPALIVE void explorer_explain_view(int coloured, int log_scale) {
  if (!g_app) return;
  g_app->changed();
  g_app->graph.set_log_scale(log_scale != 0);
  if (coloured) g_app->show_explanation();
  else if (g_app->explanation_coloured()) g_app->graph.set_node_values({}, "");  // the measured effects' colours stay
}

EMSCRIPTEN_KEEPALIVE void explorer_effects_view(int coloured) {
  if (g_app) g_app->show_effects(coloured != 0);
}
EMSCRIPTEN_KEEPALIVE int explorer_tune(int model_index, int count, int budget) {
  if (!g_app) return 0;
  g_app->changed();
  return g_app->start_tune(model_index, count, budget) ? 1 : 0;
}

EMSCRIPTEN_KEEPALIVE char* explorer_proposals_csv() {
  return guarded([] {
    const App& a = app();
    if (!a.doc) throw fastslow::Error("no graph open");
    return nlohmann::json{{"csv", a.ranking.proposals_csv(*a.doc)}, {"name", fastslow::file_stem(a.doc->name) + "_proposed.csv"}}
        .dump();
  });
}

EMSCRIPTEN_KEEPALIVE void explorer_cancel_rank() {
  if (!g_app) return;
  g_app->changed();
  g_app->ranking.cancel();
}

EMSCRIPTEN_KEEPALIVE char* fastslow_rank_open_document(int ticket, const char* card_json) {
  return changing([&](App& a) {
    std::unique_ptr<fastslow::wasm::RankSession> s = a.open_rank_session(ticket, card_json);
    const std::string text = fastslow::wasm::json_text(fastslow::wasm::rank_info(*s, a.doc->name));
    s.release();  // JS owns it now: fastslow_rank_finish or fastslow_rank_close
    return text;
  });
}

EMSCRIPTEN_KEEPALIVE char* explorer_state() {
  return guarded([] { return app().state_json(); });
}

EMSCRIPTEN_KEEPALIVE char* explorer_ranking() {
  return guarded([] {
    const App& a = app();
    return nlohmann::json{{"ranking", a.ranking.rank.ranking}, {"scores", a.config_scores()}}.dump();
  });
}

EMSCRIPTEN_KEEPALIVE char* explorer_submission_csv() {
  return guarded([] {
    const App& a = app();
    return nlohmann::json{{"csv", a.ranking.submission_csv(a.doc.get())},
                          {"name", fastslow::explorer::Ranking::submission_file_name(a.doc.get())}}
        .dump();
  });
}

EMSCRIPTEN_KEEPALIVE char* explorer_pick_collection(const char* collection_id) {
  return changing([&](App& a) {
    a.ranking.pick_collection(a.doc.get(), collection_id);
    return kOk;
  });
}

EMSCRIPTEN_KEEPALIVE char* explorer_config_row(int config) {
  return guarded([&] {
    const App& a = app();
    if (!a.doc) throw fastslow::Error("no graph open");
    return nlohmann::json{{"config", config}, {"row", a.doc->config_row(config)}}.dump();
  });
}

EMSCRIPTEN_KEEPALIVE void explorer_select(int node) {
  if (!g_app) return;
  g_app->changed();
  g_app->graph.select(node, g_app->dpr);
}
EMSCRIPTEN_KEEPALIVE void explorer_search(const char* text) {
  if (!g_app) return;
  g_app->changed();
  g_app->graph.search(text);
}
EMSCRIPTEN_KEEPALIVE void explorer_search_step(int delta) {
  if (!g_app) return;
  g_app->changed();
  g_app->graph.step_search(delta, g_app->dpr);
}
EMSCRIPTEN_KEEPALIVE void explorer_walk(int dx, int dy) {
  if (!g_app) return;
  g_app->changed();
  g_app->graph.walk(dx, dy, g_app->dpr);
}
EMSCRIPTEN_KEEPALIVE void explorer_node_set(int set, int khop) {
  if (!g_app) return;
  g_app->changed();
  g_app->graph.set_node_set(set ? fastslow::explorer::NodeSet::ModelReads : fastslow::explorer::NodeSet::All, khop);
}
EMSCRIPTEN_KEEPALIVE char* explorer_compare(int a, int b) {
  return changing([&](App& x) {
    x.compare_configs(a, b);
    return nlohmann::json{{"a", x.compare.a}, {"b", x.compare.b}, {"nodes", x.compare.nodes}}.dump();
  });
}
EMSCRIPTEN_KEEPALIVE char* explorer_view_svg(double scale) {
  return guarded([&] {
    const App& a = app();
    int64_t nodes = 0;
    std::string svg = a.graph.svg(static_cast<float>(scale), &nodes);
    return nlohmann::json{{"svg", std::move(svg)}, {"name", a.export_name("_view.svg")}, {"nodes", nodes}}.dump();
  });
}
EMSCRIPTEN_KEEPALIVE void explorer_fold_chains(int folded) {
  if (!g_app) return;
  g_app->changed();
  g_app->graph.set_chains_folded(folded != 0);
}
EMSCRIPTEN_KEEPALIVE void explorer_fold_blocks(int folded) {
  if (!g_app) return;
  g_app->changed();
  g_app->graph.set_blocks_folded(folded != 0);
}
EMSCRIPTEN_KEEPALIVE void explorer_open_box(int box) {
  if (!g_app) return;
  g_app->changed();
  g_app->graph.open_box(box);
}
EMSCRIPTEN_KEEPALIVE char* explorer_node(int node) {
  return guarded([&] {
    const App& a = app();
    if (!a.doc || node < 0 || node >= a.doc->graph.num_nodes)
      throw fastslow::Error("no node " + std::to_string(node) + " in the open graph");
    const auto& d = a.graph.display();
    const int32_t v = d.display_of[node];
    if (v < 0) return nlohmann::json{{"display", nullptr}}.dump();  // left out of the model's view
    const int64_t of = d.node_of[v];
    return nlohmann::json{{"display", of >= 0 ? static_cast<int64_t>(v) : of},
                          {"x", d.drawing.x[v]},
                          {"y", d.drawing.y[v]},
                          {"layer", d.drawing.layer[v]}}
        .dump();
  });
}
EMSCRIPTEN_KEEPALIVE char* explorer_scatter_svg() {
  return guarded([&] {
    const App& a = app();
    int64_t points = 0;
    std::string svg = a.rank_scatter(&points);
    return nlohmann::json{{"svg", std::move(svg)}, {"name", a.export_name("_scatter.svg")}, {"points", points}}.dump();
  });
}
EMSCRIPTEN_KEEPALIVE char* explorer_compare_file(uint8_t* bytes, size_t size, const char* name) {
  fastslow::explorer::MallocBytes owned(bytes);
  return changing([&](App& a) {
    a.compare_file(name, std::move(owned), size);
    return file_comparison_json(a.file_compare).dump();
  });
}
EMSCRIPTEN_KEEPALIVE void explorer_show_unmatched() {
  if (g_app) g_app->show_unmatched();
}
EMSCRIPTEN_KEEPALIVE void explorer_collapse(int computation, int collapsed) {
  if (!g_app) return;
  g_app->changed();
  g_app->graph.set_collapsed(computation, collapsed != 0);
}
EMSCRIPTEN_KEEPALIVE void explorer_fit() {
  if (!g_app) return;
  g_app->changed();
  g_app->graph.fit();
}
}
