// The core's C entry points for JavaScript (declared, with their JSON, in
// js_api.h): describing a file and ranking it batch by batch.
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
    s.release();  // JS owns it now: fastslow_rank_close
    return fastslow::wasm::json_text(j);
  });
}

EMSCRIPTEN_KEEPALIVE char* fastslow_rank_batch(RankSession* session, int index) {
  return guarded([&] {
    RankSession& s = fastslow::wasm::checked(session);
    const std::vector<int64_t> part = fastslow::rank_chunk(s.groups, s.card.chunk, index);
    s.batch = fastslow::rank_config_batch(s.graph, part, s.card);
    return nlohmann::json{{"ptr", reinterpret_cast<uintptr_t>(s.batch.data())}, {"count", part.size()}}.dump();
  });
}

EMSCRIPTEN_KEEPALIVE char* fastslow_rank_finish(RankSession* session, const double* scores, int count) {
  return guarded([&] {
    const RankSession& s = fastslow::wasm::checked(session);
    const std::vector<int64_t> ranking =
        fastslow::rank_configs(s.graph.groups, s.groups, fastslow::wasm::doubles(scores, count));
    nlohmann::json j = {{"ranking", ranking}, {"group_of", s.graph.groups.group_of}, {"metrics", nullptr}};
    if (s.graph.has_runtime()) {
      j["metrics"] = fastslow::metrics_json(fastslow::evaluate_ranking(ranking, s.graph.runtime, s.graph.groups));
      j["runtime"] = s.graph.runtime;
    }
    return j.dump();
  });
}

EMSCRIPTEN_KEEPALIVE void fastslow_rank_close(RankSession* s) { delete s; }

}
