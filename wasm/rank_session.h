// One file being ranked from JS: the graph prepared for a model card stays
// here while JS feeds ONNX Runtime one batch after another. The node tools
// open it from a file (fastslow_rank_open), the explorer from its open
// document (explorer_rank_open); both describe it to JS the same way.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fastslow/data/graph_cache.h"
#include "fastslow/rank/model_card.h"
#include "fastslow/rank/rank_inputs.h"

namespace fastslow::wasm {

struct RankSession {
  ModelCard card;
  CachedGraph graph;
  RankGraphInputs inputs;
  std::vector<int64_t> groups;  // every duplicate group, in order
  std::vector<float> batch;     // the rows of the last batch asked for
};

// Prepares the model inputs; throws Error naming the file when the card does
// not fit the graph.
std::unique_ptr<RankSession> prepare_rank_session(ModelCard card, CachedGraph graph);

// `s` as JS passed it: throws Error for a null session.
RankSession& checked(RankSession* s);

// `count` scores as JS passed them (float64 in the heap); throws Error for a
// negative count or a null pointer.
std::vector<double> doubles(const double* p, int count);

// The RankInfo JSON of js_api.h; the shift warning names the file `file_name`.
nlohmann::json rank_info(const RankSession& s, const std::string& file_name);

}  // namespace fastslow::wasm
