// The explorer's C entry points for the page's JS (declared, with their
// JSON, in js_api.h): thin calls into the app.
#include <emscripten/emscripten.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "app.h"
#include "c_strings.h"
#include "fastslow/error.h"
#include "fastslow/rank/model_card.h"
#include "js_api.h"
#include "rank_session.h"
#include "fastslow/io/json_text.h"

using fastslow::explorer::app;
using fastslow::wasm::error_json;
using fastslow::wasm::guarded;
using fastslow::wasm::to_c;

namespace {

const std::string kOk = nlohmann::json{{"ok", true}}.dump();

// A failure the user must see (the error box) as well as the caller.
char* shown_error(const std::exception& e) {
  app().error = e.what();
  return to_c(error_json(e.what()));
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE char* explorer_open(uint8_t* bytes, size_t size, const char* name, double started_ms) {
  auto& a = app();
  a.dirty = true;
  a.status.clear();
  try {
    a.open(name, fastslow::explorer::MallocBytes(bytes), size, started_ms);
    return to_c(kOk);
  } catch (const std::exception& e) {
    return shown_error(e);  // the previous graph stays
  }
}

EMSCRIPTEN_KEEPALIVE char* explorer_open_study(const uint8_t* bytes, size_t size, const char* name) {
  auto& a = app();
  a.dirty = true;
  a.status.clear();
  try {
    a.open_study(name, std::string(reinterpret_cast<const char*>(bytes), size));
    return to_c(nlohmann::json{{"ok", true}, {"trials", a.study->file.trials.size()}}.dump());
  } catch (const std::exception& e) {
    return shown_error(e);  // the previous study stays
  }
}

EMSCRIPTEN_KEEPALIVE char* explorer_study_view(const char* view_json) {
  return guarded([&] {
    auto& a = app();
    if (!a.study) throw fastslow::Error("no study open");
    a.study->set_view(fastslow::parse_json_text(view_json, "the study view", "not JSON"));
    a.dirty = true;
    return kOk;
  });
}

EMSCRIPTEN_KEEPALIVE char* explorer_study_point(int number) {
  return guarded([&] {
    const auto& a = app();
    if (a.study) {
      const auto it = a.study->drawn.find(number);
      if (it != a.study->drawn.end())
        return nlohmann::json{{"x", it->second[0] / a.dpr}, {"y", it->second[1] / a.dpr}}.dump();
    }
    throw fastslow::Error("trial " + std::to_string(number) + " is not drawn in the study's scatter");
  });
}

EMSCRIPTEN_KEEPALIVE void explorer_set_status(const char* text) {
  app().dirty = true;
  app().status = text;
}
EMSCRIPTEN_KEEPALIVE void explorer_set_error(const char* text) {
  app().dirty = true;
  app().error = text;
}

EMSCRIPTEN_KEEPALIVE char* explorer_add_model(const char* name, const char* card_json) {
  app().dirty = true;
  try {
    const fastslow::ModelCard card = fastslow::ModelCard::from_json(card_json, std::string(name) + "/model.json");
    fastslow::explorer::ModelSlot m;
    m.name = name;
    m.kind = fastslow::graph_kind_name(card.kind);
    m.node_feat_width = card.node_feat_width;
    m.config_feat_width = card.config_feat_width;
    if (card.ensemble) {
      m.members = static_cast<int64_t>(card.ensemble->members.size());
      m.combine = card.ensemble->combine;
    }
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
    return shown_error(e);
  }
}

EMSCRIPTEN_KEEPALIVE int explorer_start_rank(int model_index) {
  if (!app().start_rank(model_index)) return 0;
  app().show_rank_tab = true;  // started from outside the tab: bring it up
  return 1;
}

EMSCRIPTEN_KEEPALIVE void explorer_cancel_rank() {
  app().dirty = true;
  app().rank.cancel_requested = true;
}

EMSCRIPTEN_KEEPALIVE char* explorer_rank_open(int ticket, const char* card_json) {
  return guarded([&] { return app().rank_open(ticket, card_json); });
}

EMSCRIPTEN_KEEPALIVE int explorer_rank_progress(int ticket, int done, int total) {
  return app().rank_progress(ticket, done, total) ? 1 : 0;
}

EMSCRIPTEN_KEEPALIVE void explorer_rank_done(int ticket, fastslow::wasm::RankSession* session, const double* scores,
                                             int count, double seconds) {
  try {
    app().rank_done(ticket, fastslow::wasm::checked(session), fastslow::wasm::doubles(scores, count), seconds);
  } catch (const std::exception& e) {
    app().rank_failed(ticket, e.what(), false);
  }
}

EMSCRIPTEN_KEEPALIVE void explorer_rank_failed(int ticket, const char* message, int cancelled) {
  app().rank_failed(ticket, message, cancelled != 0);
}

EMSCRIPTEN_KEEPALIVE char* explorer_state() {
  return guarded([] { return app().state_json(); });
}

EMSCRIPTEN_KEEPALIVE char* explorer_ranking() {
  return guarded([] {
    const auto& a = app();
    nlohmann::json j = {{"ranking", a.rank.ranking}};
    std::vector<double> per_config;
    if (a.doc && !a.rank.group_scores.empty())
      for (int64_t g : a.doc->groups.group_of) per_config.push_back(a.rank.group_scores[g]);
    j["scores"] = per_config;
    return j.dump();
  });
}

EMSCRIPTEN_KEEPALIVE char* explorer_submission_csv() {
  return guarded([] {
    return nlohmann::json{{"csv", app().submission_csv()}, {"name", app().submission_file_name()}}.dump();
  });
}

EMSCRIPTEN_KEEPALIVE char* explorer_pick_collection(const char* collection_id) {
  return guarded([&] {
    app().pick_collection(collection_id);
    return kOk;
  });
}

EMSCRIPTEN_KEEPALIVE char* explorer_config_row(int config) {
  return guarded([&] {
    if (!app().doc) throw fastslow::Error("no graph open");
    return nlohmann::json{{"config", config}, {"row", app().doc->config_row(config)}}.dump();
  });
}

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
