// What an exported model is fed for one graph, and how its scores become a
// ranking. The terminal (LibTorch) and the page (ONNX Runtime Web) both go
// through these functions, so they feed the model the same numbers in the
// same batches and rank the same way.
#pragma once

#include <cstdint>
#include <vector>

#include "fastslow/data/graph_cache.h"
#include "fastslow/rank/metrics.h"
#include "fastslow/rank/model_card.h"

namespace fastslow {

// The graph part of a model's inputs, named as in model.onnx.
struct RankGraphInputs {
  int64_t num_nodes = 0;
  int64_t node_feat_width = 0;
  std::vector<float> node_feat;        // node_feat [nodes, F], normalised with the card's statistics
  std::vector<int64_t> node_opcode;    // node_opcode [nodes]
  std::vector<int64_t> edge_index;     // edge_index [edges, 2], rows [u, v] (u consumes v), pruned numbering
  std::vector<int64_t> config_nodes;   // config_nodes [config_nodes] (layout only)
  // config_context [config_nodes, LayoutContext::kWidth] (layout only; the
  // models that use it have this input, see layout_context.h)
  std::vector<float> config_context;
  int64_t num_edges() const { return static_cast<int64_t>(edge_index.size() / 2); }
};

// Checks that the card fits the graph (ModelCard::check_fits) first.
RankGraphInputs rank_graph_inputs(const CachedGraph& g, const ModelCard& card);

// A tile graph's config rows for the given groups, as a model reads them
// before standardising: the published columns, then the core's tiling
// features (tile_features.h) when `tile_features`. The trainer and the
// rankers both read rows through this.
std::vector<float> tile_config_rows(const CachedGraph& g, const std::vector<int64_t>& groups, bool tile_features);

// config_feat for the given duplicate groups, in that order: tile [B, Fc]
// standardised with the card's statistics; layout [B, config_nodes, Fc] raw.
std::vector<float> rank_config_batch(const CachedGraph& g, const std::vector<int64_t>& groups, const ModelCard& card);
// The same for `count` rows of any configs of the graph (config_row_elems
// values each), in the file or not: a search's candidates.
std::vector<float> rank_row_batch(const CachedGraph& g, std::vector<float> rows, int64_t count, const ModelCard& card);
// Tile rows as a tile model reads them: the tiling features appended when
// `tile_features`, then standardised by `stats` (a card's or a run's).
std::vector<float> tile_model_rows(const CachedGraph& g, std::vector<float> rows, int64_t count, bool tile_features,
                                   const FeatureStats& stats);

// The groups of one model call: chunk `index` of `groups` cut into pieces of
// `chunk`, in order (the last one shorter).
std::vector<int64_t> rank_chunk(const std::vector<int64_t>& groups, int64_t chunk, int64_t index);
int64_t rank_chunk_count(int64_t num_groups, int64_t chunk);

// The configs of `groups` ranked best first: groups by score (lower =
// faster), each group's members in index order (its representative first).
std::vector<int64_t> rank_configs(const ConfigGroups& cg, const std::vector<int64_t>& groups,
                                  const std::vector<double>& group_scores);

// Metrics of a ranking of a subset of configs against their runtimes.
// Kendall and OPA are undefined (NaN) when the ranked configs that were
// measured (runtime above 0) hold fewer than two distinct configs (groups
// of cg): duplicates differ only by
// measurement noise, and their order in a ranking is index order, so a
// correlation over them measures nothing.
GraphMetrics evaluate_ranking(const std::vector<int64_t>& ranking, const std::vector<double>& runtime,
                              const ConfigGroups& cg);

}  // namespace fastslow
