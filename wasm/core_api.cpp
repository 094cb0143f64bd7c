// C entry points of the core for JavaScript. Strings cross as malloc'd UTF-8
// that JS frees with fastslow_free_string; errors come back as JSON
// {"error": ...} because an exception cannot cross into JS with its message.
#include <emscripten/emscripten.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

#include "c_strings.h"
#include "fastslow/data/data_profile.h"
#include "fastslow/error.h"
#include "fastslow/data/graph_cache.h"
#include "fastslow/graph/graph_info.h"
#include "fastslow/features/layout_context.h"
#include "fastslow/rank/model_card.h"
#include "fastslow/rank/rank_inputs.h"

namespace {

using fastslow::wasm::error_json;
using fastslow::wasm::to_c;

// One file being ranked: the prepared graph inputs stay here while JS feeds
// ONNX Runtime one batch after another.
struct RankSession {
  fastslow::ModelCard card;
  fastslow::CachedGraph graph;
  fastslow::RankGraphInputs inputs;
  std::vector<int64_t> groups;  // every duplicate group, in order
  std::vector<float> batch;     // the rows of the last batch asked for
};

uintptr_t addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace

extern "C" {

// Describes an npz held in memory (the bytes of a file the user opened).
EMSCRIPTEN_KEEPALIVE char* fastslow_info_json(const uint8_t* bytes, size_t size, const char* name) {
  try {
    const fastslow::NpzReader npz(fastslow::memory_view_source(name ? name : "file.npz", bytes, size));
    return to_c(fastslow::graph_info_json(fastslow::graph_info(npz), -1));
  } catch (const std::exception& e) {
    return to_c(error_json(e.what()));
  }
}

EMSCRIPTEN_KEEPALIVE void fastslow_free_string(char* s) { std::free(s); }

// Prepares `path` (a file JS wrote to the in-memory file system) for the
// model described by `card_json`, exactly as `fastslow rank` does: pruned
// with the card's k, de-duplicated, features normalised with its statistics.
// Returns {"session": handle, sizes, pointers to the graph inputs, chunks,
// "shift": {"warning", "findings", "origin"} or null for a card without a
// training-data profile, ...} or {"error": ...} (a card that does not fit
// the file included).
EMSCRIPTEN_KEEPALIVE char* fastslow_rank_open(const char* path, const char* card_json, const char* cache_dir) {
  try {
    auto s = std::make_unique<RankSession>();
    s->card = fastslow::ModelCard::from_json(card_json, "model.json");
    s->graph = fastslow::CachedGraph::open(path, {cache_dir, s->card.khop});
    s->inputs = fastslow::rank_graph_inputs(s->graph, s->card);
    s->groups.resize(static_cast<size_t>(s->graph.groups.num_groups()));
    for (size_t i = 0; i < s->groups.size(); ++i) s->groups[i] = static_cast<int64_t>(i);
    const fastslow::RankGraphInputs& in = s->inputs;
    nlohmann::json j = {
        {"kind", fastslow::graph_kind_name(s->graph.kind)},
        {"nodes", in.num_nodes},
        {"edges", in.num_edges()},
        {"config_nodes", static_cast<int64_t>(in.config_nodes.size())},
        {"node_feat_width", in.node_feat_width},
        {"config_feat_width", s->card.config_feat_width},
        {"configs", s->graph.num_configs},
        {"groups", s->graph.groups.num_groups()},
        {"chunk", s->card.chunk},
        {"chunks", fastslow::rank_chunk_count(static_cast<int64_t>(s->groups.size()), s->card.chunk)},
        {"has_runtime", s->graph.has_runtime()},
        {"node_feat", addr(in.node_feat.data())},
        {"node_opcode", addr(in.node_opcode.data())},
        {"edge_index", addr(in.edge_index.data())},
        {"config_nodes_ptr", addr(in.config_nodes.data())},
        {"config_context_ptr", addr(in.config_context.data())},
        {"config_context_width", fastslow::LayoutContext::kWidth},
    };
    // How the file differs from what the model was trained on (the same
    // check and words as `fastslow rank`).
    if (s->card.training_data) {
      const fastslow::ShiftReport r = fastslow::distribution_shift(*s->card.training_data, fastslow::sample_graph(s->graph));
      const std::string name = std::string(path).substr(std::string(path).find_last_of('/') + 1);
      j["shift"] = {{"warning", fastslow::shift_warning(name, *s->card.training_data, r)},
                    {"findings", r.findings},
                    {"origin", s->card.training_data->origin}};
    } else {
      j["shift"] = nullptr;
    }
    j["session"] = addr(s.release());
    return to_c(j.dump());
  } catch (const std::exception& e) {
    return to_c(error_json(e.what()));
  }
}

// The config rows of chunk `index`: {"ptr", "count"} (floats valid until the
// next call), or {"error"}.
EMSCRIPTEN_KEEPALIVE char* fastslow_rank_batch(RankSession* s, int index) {
  try {
    const std::vector<int64_t> part = fastslow::rank_chunk(s->groups, s->card.chunk, index);
    s->batch = fastslow::rank_config_batch(s->graph, part, s->card);
    return to_c(nlohmann::json{{"ptr", addr(s->batch.data())}, {"count", part.size()}}.dump());
  } catch (const std::exception& e) {
    return to_c(error_json(e.what()));
  }
}

// Scores of every group (float64, in group order) -> {"ranking": [config,
// best first], "group_of": [...], "metrics": {...}} (metrics null without
// runtimes), ranked and scored by the same code as the terminal.
EMSCRIPTEN_KEEPALIVE char* fastslow_rank_finish(RankSession* s, const double* scores, int count) {
  try {
    const std::vector<double> v(scores, scores + count);
    const std::vector<int64_t> ranking = fastslow::rank_configs(s->graph.groups, s->groups, v);
    nlohmann::json j = {{"ranking", ranking}, {"group_of", s->graph.groups.group_of}, {"metrics", nullptr}};
    if (s->graph.has_runtime()) {
      const fastslow::GraphMetrics m = fastslow::evaluate_ranking(ranking, s->graph.runtime);
      auto num = [](double x) { return std::isnan(x) ? nlohmann::json(nullptr) : nlohmann::json(x); };
      j["metrics"] = {{"kendall", num(m.kendall)}, {"opa", num(m.opa)},   {"top1_error", num(m.top1)},
                      {"top5_error", num(m.top5)}, {"top10_error", num(m.top10)}};
      j["runtime"] = s->graph.runtime;
    }
    return to_c(j.dump());
  } catch (const std::exception& e) {
    return to_c(error_json(e.what()));
  }
}

EMSCRIPTEN_KEEPALIVE void fastslow_rank_close(RankSession* s) { delete s; }

}
