// Scoring every config of a graph and turning scores into the competition's
// rankings and metrics. Configs are scored once per duplicate group, in
// fixed-size chunks in group order, because models that attend across a
// batch give scores that depend on the batch: the same chunking everywhere
// makes the terminal and the page agree.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fastslow/rank/metrics.h"
#include "fastslow/rank/rank_inputs.h"
#include "models/model.h"
#include "train/dataset.h"

namespace fastslow::train {

// Scores of `groups` (lower = faster), in that order.
std::vector<double> score_groups(models::RankModelImpl& model, const GraphEntry& e, const std::vector<int64_t>& groups,
                                 const Normalizer& norm, int64_t chunk, const torch::Device& device);

struct GraphResult {
  std::string graph;  // file stem
  std::vector<int64_t> ranking;
  GraphMetrics metrics;  // NaN fields without runtimes; configs: the measured ones ranked
};

// The ranking of e.eval_groups' configs by `scores` (one per group, in that
// order) and its metrics when the graph has runtimes.
GraphResult graph_result(const GraphEntry& e, const std::vector<double>& scores);

// Ranks e.eval_groups' configs; metrics when the graph has runtimes.
GraphResult evaluate_entry(models::RankModelImpl& model, const GraphEntry& e, const Normalizer& norm, int64_t chunk,
                           const torch::Device& device);

// evaluate_entry over every entry; `after_each(done, total, graph)`
// returning false stops after that graph (nullopt: not all were ranked).
std::optional<std::vector<GraphResult>> evaluate_entries(
    models::RankModelImpl& model, const std::vector<GraphEntry>& entries, const Normalizer& norm, int64_t chunk,
    const torch::Device& device, const std::function<bool(size_t, size_t, const std::string&)>& after_each = {});

// One GraphResult and its index in the valid graphs as JSON, exactly (NaN
// as null), and back: how the processes of a run exchange their shares of
// a validation. from_json throws Error on a malformed object.
nlohmann::json graph_result_json(const GraphResult& r, size_t index);
GraphResult graph_result_from_json(const nlohmann::json& j, size_t& index);

// {"split", "score", "mean": {...}, "graphs": [{graph, configs, kendall, opa,
// top1_error, top5_error, top10_error, tile_score}]}, NaN as null: what
// metrics.json and eval_<split>.json hold.
nlohmann::json results_json(const std::vector<GraphResult>& results, const std::string& split, double score);

// The validation score: mean Kendall (layout) or mean tile score (tile).
double collection_score(GraphKind kind, const std::vector<GraphResult>& results);

// Results of several sources (collections): each source's score and mean
// metrics, {"LABEL": {"score", "graphs", "mean": {...}}}, and the overall
// score, the mean of the sources' finite scores (NaN when none): every
// collection counts alike, however many graphs it has, as the
// competition's final score does.
struct SourceScores {
  double score = 0;
  nlohmann::json per_source = nlohmann::json::object();
};
SourceScores source_scores(GraphKind kind, const std::vector<GraphResult>& results, const std::vector<int>& source_of,
                           const std::vector<std::string>& labels);

}  // namespace fastslow::train
