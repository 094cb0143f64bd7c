#include "fastslow/rank/rank_inputs.h"

#include <algorithm>

#include "fastslow/error.h"
#include "fastslow/features/layout_context.h"
#include "fastslow/features/tile_features.h"

namespace fastslow {

RankGraphInputs rank_graph_inputs(const CachedGraph& g, const ModelCard& card) {
  card.check_fits(g.source, g.kind, g.node_feat_width,
                  g.kind == GraphKind::Tile ? g.config_row_elems : g.config_feat_width);
  card.check_program(g.source, g.original_nodes, g.original_edges,
                     static_cast<int64_t>(g.pruned.config_positions.size()));
  RankGraphInputs in;
  in.num_nodes = g.pruned.num_nodes();
  in.node_feat_width = g.node_feat_width;
  in.node_feat = card.node_stats.applied(g.node_feat);
  in.node_opcode.assign(g.node_opcode.begin(), g.node_opcode.end());
  in.edge_index = g.pruned.edge_index;
  if (g.kind == GraphKind::Layout) {
    in.config_nodes = g.pruned.config_positions;
    in.config_context =
        layout_context(in.num_nodes, g.node_feat_width, g.node_feat, g.node_opcode, g.pruned.edge_index,
                       in.config_nodes)
            .values;
  }
  return in;
}

namespace {

// Tile rows as a model reads them before standardising (tile_config_rows).
std::vector<float> tile_rows_read(const CachedGraph& g, std::vector<float> rows, int64_t count, bool tile_features) {
  if (!tile_features) return rows;
  if (g.config_row_elems != kTileConfigColumns)
    throw Error(g.source, "config_feat",
                "has " + std::to_string(g.config_row_elems) + " columns; the tiling features read the published " +
                    std::to_string(kTileConfigColumns));
  // The context is a scan of a kernel's few nodes: cheaper to redo than to keep.
  return with_tile_features(tile_context(g.pruned.num_nodes(), g.node_feat_width, g.node_feat), rows, count);
}

}  // namespace

std::vector<float> tile_config_rows(const CachedGraph& g, const std::vector<int64_t>& groups, bool tile_features) {
  return tile_rows_read(g, g.config_rows(groups), static_cast<int64_t>(groups.size()), tile_features);
}

std::vector<float> rank_config_batch(const CachedGraph& g, const std::vector<int64_t>& groups, const ModelCard& card) {
  if (g.kind != GraphKind::Tile) return g.config_rows(groups);
  return rank_row_batch(g, g.config_rows(groups), static_cast<int64_t>(groups.size()), card);
}

std::vector<float> rank_row_batch(const CachedGraph& g, std::vector<float> rows, int64_t count, const ModelCard& card) {
  if (count < 0 || static_cast<int64_t>(rows.size()) != count * g.config_row_elems)
    throw Error(g.source, "", std::to_string(rows.size()) + " values are not " + std::to_string(count) + " configs of " +
                                  std::to_string(g.config_row_elems));
  if (g.kind != GraphKind::Tile) return rows;
  return tile_model_rows(g, std::move(rows), count, card.tile_features, card.config_stats);
}

std::vector<float> tile_model_rows(const CachedGraph& g, std::vector<float> rows, int64_t count, bool tile_features,
                                   const FeatureStats& stats) {
  rows = tile_rows_read(g, std::move(rows), count, tile_features);
  stats.apply(rows.data(), count);
  return rows;
}

int64_t rank_chunk_count(int64_t num_groups, int64_t chunk) {
  if (chunk < 1) throw Error("rank: chunk must be >= 1, got " + std::to_string(chunk));
  return (num_groups + chunk - 1) / chunk;
}

std::vector<int64_t> rank_chunk(const std::vector<int64_t>& groups, int64_t chunk, int64_t index) {
  const int64_t n = static_cast<int64_t>(groups.size());
  if (index < 0 || index >= rank_chunk_count(n, chunk))
    throw Error("rank: chunk " + std::to_string(index) + " out of range");
  const int64_t lo = index * chunk, hi = std::min(n, lo + chunk);
  return std::vector<int64_t>(groups.begin() + lo, groups.begin() + hi);
}

std::vector<int64_t> rank_configs(const ConfigGroups& cg, const std::vector<int64_t>& groups,
                                  const std::vector<double>& group_scores) {
  if (group_scores.size() != groups.size())
    throw Error("rank: " + std::to_string(group_scores.size()) + " scores for " + std::to_string(groups.size()) +
                " groups");
  const std::vector<int64_t> order = ranking_from_scores(group_scores);
  std::vector<std::vector<int64_t>> members(static_cast<size_t>(cg.num_groups()));
  std::vector<char> wanted(static_cast<size_t>(cg.num_groups()), 0);
  for (int64_t g : groups) wanted[g] = 1;
  for (int64_t c = 0; c < cg.num_configs(); ++c)
    if (wanted[cg.group_of[c]]) members[cg.group_of[c]].push_back(c);
  std::vector<int64_t> ranking;
  for (int64_t k : order) {
    const int64_t g = groups[k];
    const int64_t rep = cg.representative[g];
    ranking.push_back(rep);
    for (int64_t c : members[g])
      if (c != rep) ranking.push_back(c);
  }
  return ranking;
}

GraphMetrics evaluate_ranking(const std::vector<int64_t>& ranking, const std::vector<double>& runtime,
                              const ConfigGroups& cg) {
  // Positions as scores: exactly what a submission row tells the scorer.
  std::vector<double> score(ranking.size()), rt(ranking.size());
  // Among the measured configs (evaluate_graph leaves runtime 0 out).
  bool distinct = false;
  int64_t first = -1;
  for (size_t i = 0; i < ranking.size(); ++i) {
    score[i] = static_cast<double>(i);
    rt[i] = runtime.at(static_cast<size_t>(ranking[i]));
    if (!(rt[i] > 0)) continue;
    const int64_t group = cg.group_of.at(static_cast<size_t>(ranking[i]));
    if (first < 0) first = group;
    distinct = distinct || group != first;
  }
  GraphMetrics m = evaluate_graph(score, rt);
  if (!distinct) m.kendall = m.opa = kNaN;
  return m;
}

}  // namespace fastslow
