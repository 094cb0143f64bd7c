// The explorer's C entry points for the page's JS, and the JS functions the
// app calls (EM_JS). Strings cross as malloc'd UTF-8 that JS frees with
// explorer_free; results are JSON, errors {"error": ...}.
#include <emscripten/emscripten.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "app.h"
#include "c_strings.h"
#include "fastslow/rank/model_card.h"
#include "js_bridge.h"

using fastslow::explorer::app;
using fastslow::explorer::RankStatus;

EM_JS(void, js_request_rank, (int model_index), { Module.fastslowHooks.requestRank(model_index); });
EM_JS(void, js_cancel_rank, (), { Module.fastslowHooks.cancelRank(); });
EM_JS(void, js_open_dialog, (int what), { Module.fastslowHooks.openDialog(what); });
EM_JS(void, js_download, (const char* name, const char* text),
      { Module.fastslowHooks.download(UTF8ToString(name), UTF8ToString(text)); });
EM_JS(void, js_set_clipboard, (const char* text), {
  const t = UTF8ToString(text);
  if (navigator.clipboard) navigator.clipboard.writeText(t).catch(() => {});
});
EM_JS(double, js_now_ms, (), { return performance.now(); });

using fastslow::wasm::error_json;
using fastslow::wasm::to_c;

extern "C" {

EMSCRIPTEN_KEEPALIVE void explorer_free(char* p) { std::free(p); }

// Takes ownership of `bytes` (malloc'd by JS). The previous graph stays when
// the new one fails; the message is shown and returned.
EMSCRIPTEN_KEEPALIVE char* explorer_open(uint8_t* bytes, size_t size, const char* name, double started_ms) {
  app().dirty = true;
  std::vector<uint8_t> data(bytes, bytes + size);
  std::free(bytes);
  try {
    app().open(name, std::move(data), started_ms);
    app().status.clear();
    return to_c(nlohmann::json{{"ok", true}}.dump());
  } catch (const std::exception& e) {
    app().error = e.what();
    app().status.clear();
    return to_c(error_json(e.what()));
  }
}

EMSCRIPTEN_KEEPALIVE void explorer_set_status(const char* text) {
  app().dirty = true;
  app().status = text;
}
EMSCRIPTEN_KEEPALIVE void explorer_set_error(const char* text) {
  app().dirty = true;
  app().error = text;
}

// Adds (or replaces, by name) a model; checks the card with the core's parser.
EMSCRIPTEN_KEEPALIVE char* explorer_add_model(const char* name, const char* card_json) {
  app().dirty = true;
  try {
    const fastslow::ModelCard card = fastslow::ModelCard::from_json(card_json, std::string(name) + "/model.json");
    fastslow::explorer::ModelSlot m;
    m.name = name;
    m.card_json = card_json;
    m.kind = fastslow::graph_kind_name(card.kind);
    m.node_feat_width = card.node_feat_width;
    m.config_feat_width = card.config_feat_width;
    if (card.training_data) {
      m.trained_on = card.training_data->summary();
      m.generated = card.training_data->origin == "generated";
    } else {
      m.trained_on = "not recorded (exported before model cards carried a training-data profile)";
    }
    auto& models = app().models;
    int index = -1;
    for (size_t i = 0; i < models.size(); ++i)
      if (models[i].name == m.name) index = static_cast<int>(i);
    if (index < 0) {
      models.push_back(m);
      index = static_cast<int>(models.size()) - 1;
    } else {
      models[index] = m;
    }
    app().model_index = index;
    return to_c(nlohmann::json{{"index", index}}.dump());
  } catch (const std::exception& e) {
    app().error = e.what();
    return to_c(error_json(e.what()));
  }
}

// Starts a ranking from JS (tests, or a page button) as the Rank button does.
EMSCRIPTEN_KEEPALIVE int explorer_start_rank(int model_index) {
  app().dirty = true;
  auto& a = app();
  if (!a.doc || model_index < 0 || model_index >= static_cast<int>(a.models.size()) ||
      a.rank.status == RankStatus::Running)
    return 0;
  a.rank = fastslow::explorer::RankState{};
  a.rank.status = RankStatus::Running;
  a.rank.model = a.models[model_index].name;
  a.model_index = model_index;
  a.show_rank_tab = true;
  js_request_rank(model_index);
  return 1;
}

EMSCRIPTEN_KEEPALIVE void explorer_rank_progress(int done, int total) {
  app().dirty = true;
  app().rank.done = done;
  app().rank.total = total;
}

// {"group_scores": [...], "ranking": [...], "metrics": {...} | null, "seconds"}
EMSCRIPTEN_KEEPALIVE void explorer_rank_done(const char* json) {
  app().dirty = true;
  auto& r = app().rank;
  try {
    const nlohmann::json j = nlohmann::json::parse(json);
    r.group_scores = j.at("group_scores").get<std::vector<double>>();
    r.ranking = j.at("ranking").get<std::vector<int64_t>>();
    r.position.assign(r.ranking.size(), 0);
    for (size_t k = 0; k < r.ranking.size(); ++k) r.position[r.ranking[k]] = static_cast<int64_t>(k);
    const nlohmann::json& m = j.at("metrics");
    auto get = [&](const char* k) { return m.is_object() && m[k].is_number() ? m[k].get<double>() : NAN; };
    r.kendall = get("kendall");
    r.opa = get("opa");
    r.top1 = get("top1_error");
    r.top5 = get("top5_error");
    r.top10 = get("top10_error");
    r.seconds = j.value("seconds", 0.0);
    r.status = RankStatus::Done;
  } catch (const std::exception& e) {
    r.status = RankStatus::Failed;
    r.message = std::string("bad ranking result: ") + e.what();
  }
}

// The ranking's file against the model's training data, once it is prepared.
EMSCRIPTEN_KEEPALIVE void explorer_rank_shift(const char* warning) {
  app().dirty = true;
  app().rank.shift_warning = warning;
}

EMSCRIPTEN_KEEPALIVE void explorer_rank_failed(const char* message, int cancelled) {
  app().dirty = true;
  app().rank.status = cancelled ? RankStatus::Cancelled : RankStatus::Failed;
  app().rank.message = message;
}

EMSCRIPTEN_KEEPALIVE char* explorer_state() { return to_c(app().state_json()); }

// The last ranking: configs best first and the score of each config.
EMSCRIPTEN_KEEPALIVE char* explorer_ranking() {
  const auto& a = app();
  nlohmann::json j = {{"ranking", a.rank.ranking}};
  std::vector<double> per_config;
  if (a.doc && !a.rank.group_scores.empty())
    for (int64_t g : a.doc->groups.group_of) per_config.push_back(a.rank.group_scores[g]);
  j["scores"] = per_config;
  return to_c(j.dump());
}

// Test hooks: select a node, search, zoom to fit.
EMSCRIPTEN_KEEPALIVE void explorer_select(int node) {
  app().dirty = true;
  app().select(node);
}
EMSCRIPTEN_KEEPALIVE void explorer_search(const char* text) {
  app().dirty = true;
  std::snprintf(app().search, sizeof app().search, "%s", text);
  app().run_search();
}
EMSCRIPTEN_KEEPALIVE void explorer_collapse(int computation, int collapsed) {
  app().dirty = true;
  app().set_collapsed(computation, collapsed != 0);
}
EMSCRIPTEN_KEEPALIVE void explorer_fit() {
  app().dirty = true;
  app().fit_pending = 1;
}

}
