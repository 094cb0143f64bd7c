// The core's C entry points for JavaScript (declared, with their JSON, in
// js_api.h): describing a file and the rank session's calls.
#include <emscripten/emscripten.h>

#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "c_strings.h"
#include "fastslow/graph/graph_info.h"
#include "fastslow/rank/metrics_json.h"
#include "js_api.h"
#include "rank_session.h"

using fastslow::wasm::guarded;
using fastslow::wasm::RankSession;

extern "C" {

EMSCRIPTEN_KEEPALIVE void fastslow_free_string(char* s) { std::free(s); }

EMSCRIPTEN_KEEPALIVE char* fastslow_info_json(const uint8_t* bytes, size_t size, const char* name) {
  return guarded([&] {
    const fastslow::NpzReader npz(fastslow::memory_view_source(name ? name : "file.npz", bytes, size));
    return fastslow::graph_info_json(fastslow::graph_info(npz), -1);
  });
}

EMSCRIPTEN_KEEPALIVE char* fastslow_rank_open(const char* path, const char* card_json, const char* cache_dir) {
  return guarded([&] {
    fastslow::ModelCard card = fastslow::ModelCard::from_json(card_json, "model.json");
    const int khop = card.khop;
    std::unique_ptr<RankSession> s =
        fastslow::wasm::prepare_rank_session(std::move(card), fastslow::CachedGraph::open(path, {cache_dir, khop}));
    const std::string p(path);
    const nlohmann::json j = fastslow::wasm::rank_info(*s, p.substr(p.find_last_of('/') + 1));
    s.release();  // JS owns it now: fastslow_rank_finish or fastslow_rank_close
    return fastslow::wasm::json_text(j);
  });
}

EMSCRIPTEN_KEEPALIVE char* fastslow_rank_batch(RankSession* session, int index) {
  return guarded([&] {
    RankSession& s = fastslow::wasm::checked(session);
    const std::optional<int64_t> count = fastslow::wasm::rank_session_batch(s, index);
    if (!count) return nlohmann::json{{"stopped", s.stopped}}.dump();
    return nlohmann::json{{"ptr", reinterpret_cast<uintptr_t>(s.batch.data())}, {"count", *count}}.dump();
  });
}

EMSCRIPTEN_KEEPALIVE char* fastslow_rank_finish(RankSession* session, const double* scores, int count, double seconds,
                                                int lists) {
  return guarded([&] {
    RankSession& s = fastslow::wasm::checked(session);
    const fastslow::wasm::RankResult r = fastslow::wasm::rank_session_finish(s, fastslow::wasm::doubles(scores, count), seconds);
    nlohmann::json j = {{"configs", r.ranking.size()}, {"groups", s.count()}, {"metrics", nullptr}};
    if (s.graph.has_runtime() && !s.explicit_rows()) j["metrics"] = fastslow::metrics_json(r.metrics);
    if (lists) {
      j["ranking"] = r.ranking;
      j["group_of"] = s.graph.groups.group_of;
      if (s.graph.has_runtime()) j["runtime"] = s.graph.runtime;
    }
    delete session;  // finished: the session ends here
    return j.dump();
  });
}

EMSCRIPTEN_KEEPALIVE void fastslow_rank_close(RankSession* session, const char* failure) {
  if (!session) return;
  fastslow::wasm::rank_session_abandon(*session, failure ? failure : "");
  delete session;
}

}
