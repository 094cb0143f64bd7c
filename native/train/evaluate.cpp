#include "train/evaluate.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "fastslow/rank/metrics_json.h"

namespace fastslow::train {

std::vector<double> score_groups(models::RankModelImpl& model, const GraphEntry& e, const std::vector<int64_t>& groups,
                                 const Normalizer& norm, int64_t chunk, const torch::Device& device) {
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  // Every chunk queued before one read: on a GPU nothing waits in between.
  std::vector<torch::Tensor> parts;
  const int64_t chunks = rank_chunk_count(static_cast<int64_t>(groups.size()), chunk);
  for (int64_t c = 0; c < chunks; ++c) {
    const Batch b = make_batch(e, rank_chunk(groups, chunk, c), norm, device);
    parts.push_back(model.forward(e.tensors, b.config_feat).to(torch::kFloat64));
  }
  model.train(was_training);
  if (parts.empty()) return {};
  const torch::Tensor s = torch::cat(parts).to(torch::kCPU).contiguous();
  return std::vector<double>(s.data_ptr<double>(), s.data_ptr<double>() + s.numel());
}

GraphResult graph_result(const GraphEntry& e, const std::vector<double>& scores) {
  GraphResult r;
  r.graph = file_stem(e.cache.source);
  r.ranking = rank_configs(e.cache.groups, e.eval_groups, scores);
  // metrics.configs counts the measured configs, which every metric is over.
  if (e.cache.has_runtime()) r.metrics = evaluate_ranking(r.ranking, e.cache.runtime, e.cache.groups);
  return r;
}

GraphResult evaluate_entry(models::RankModelImpl& model, const GraphEntry& e, const Normalizer& norm, int64_t chunk,
                           const torch::Device& device) {
  return graph_result(e, score_groups(model, e, e.eval_groups, norm, chunk, device));
}

std::optional<std::vector<GraphResult>> evaluate_entries(
    models::RankModelImpl& model, const std::vector<GraphEntry>& entries, const Normalizer& norm, int64_t chunk,
    const torch::Device& device, const std::function<bool(size_t, size_t, const std::string&)>& after_each) {
  std::vector<GraphResult> results;
  for (const GraphEntry& e : entries) {
    results.push_back(evaluate_entry(model, e, norm, chunk, device));
    if (after_each && !after_each(results.size(), entries.size(), e.cache.source)) return std::nullopt;
  }
  return results;
}

namespace {

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }
double number_or_nan(const nlohmann::json& j) { return j.is_null() ? std::nan("") : j.get<double>(); }

}  // namespace

nlohmann::json graph_result_json(const GraphResult& r, size_t index) {
  const GraphMetrics& m = r.metrics;
  return {{"index", index},
          {"graph", r.graph},
          {"ranking", r.ranking},
          {"metrics",
           {m.configs, number_or_null(m.kendall), number_or_null(m.opa), number_or_null(m.top1), number_or_null(m.top5),
            number_or_null(m.top10), number_or_null(m.tile_score)}}};
}

GraphResult graph_result_from_json(const nlohmann::json& j, size_t& index) {
  try {
    GraphResult r;
    index = j.at("index").get<size_t>();
    r.graph = j.at("graph").get<std::string>();
    r.ranking = j.at("ranking").get<std::vector<int64_t>>();
    const nlohmann::json& m = j.at("metrics");
    r.metrics.configs = m.at(0).get<int64_t>();
    r.metrics.kendall = number_or_nan(m.at(1));
    r.metrics.opa = number_or_nan(m.at(2));
    r.metrics.top1 = number_or_nan(m.at(3));
    r.metrics.top5 = number_or_nan(m.at(4));
    r.metrics.top10 = number_or_nan(m.at(5));
    r.metrics.tile_score = number_or_nan(m.at(6));
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("a validation result from another process is malformed: ") + e.what());
  }
}

double collection_score(GraphKind kind, const std::vector<GraphResult>& results) {
  std::vector<GraphMetrics> m;
  for (const GraphResult& r : results) m.push_back(r.metrics);
  const CollectionMetrics s = summarize(m);
  return kind == GraphKind::Tile ? s.tile_score : s.kendall;
}

SourceScores source_scores(GraphKind kind, const std::vector<GraphResult>& results, const std::vector<int>& source_of,
                           const std::vector<std::string>& labels) {
  SourceScores out;
  double sum = 0;
  int counted = 0;
  for (size_t s = 0; s < labels.size(); ++s) {
    std::vector<GraphResult> mine;
    for (size_t i = 0; i < results.size(); ++i)
      if (source_of.at(i) == static_cast<int>(s)) mine.push_back(results[i]);
    if (mine.empty()) continue;
    const double score = collection_score(kind, mine);
    std::vector<GraphMetrics> m;
    for (const GraphResult& r : mine) m.push_back(r.metrics);
    out.per_source[labels[s]] = {{"score", std::isnan(score) ? nlohmann::json(nullptr) : nlohmann::json(score)},
                                 {"graphs", mine.size()},
                                 {"mean", fastslow::metrics_json(summarize(m))}};
    if (std::isfinite(score)) {
      sum += score;
      ++counted;
    }
  }
  out.score = counted > 0 ? sum / counted : std::nan("");
  return out;
}

nlohmann::json results_json(const std::vector<GraphResult>& results, const std::string& split, double score) {
  nlohmann::json graphs = nlohmann::json::array();
  std::vector<GraphMetrics> all;
  for (const GraphResult& r : results) {
    all.push_back(r.metrics);
    nlohmann::json g = fastslow::metrics_json(r.metrics);
    g["graph"] = r.graph;
    g["configs"] = r.ranking.size();     // ranked
    g["measured"] = r.metrics.configs;  // of those, with a runtime: what the metrics are over
    graphs.push_back(std::move(g));
  }
  return {{"split", split},
          {"score", std::isnan(score) ? nlohmann::json(nullptr) : nlohmann::json(score)},
          {"mean", fastslow::metrics_json(summarize(all))},
          {"graphs", graphs}};
}

}  // namespace fastslow::train
