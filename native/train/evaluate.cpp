#include "train/evaluate.h"

#include <algorithm>
#include <numeric>

#include "fastslow/data/collection.h"

namespace fastslow::train {

std::vector<double> score_groups(models::RankModelImpl& model, const GraphEntry& e, const std::vector<int64_t>& groups,
                                 const Normalizer& norm, int64_t chunk, const torch::Device& device) {
  torch::NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  std::vector<double> out;
  out.reserve(groups.size());
  const int64_t chunks = rank_chunk_count(static_cast<int64_t>(groups.size()), chunk);
  for (int64_t c = 0; c < chunks; ++c) {
    const std::vector<int64_t> part = rank_chunk(groups, chunk, c);
    const Batch b = make_batch(e, part, norm, device);
    const torch::Tensor s = model.forward(e.tensors, b.config_feat).to(torch::kCPU, torch::kFloat64).contiguous();
    out.insert(out.end(), s.data_ptr<double>(), s.data_ptr<double>() + s.numel());
  }
  model.train(was_training);
  return out;
}

GraphResult evaluate_entry(models::RankModelImpl& model, const GraphEntry& e, const Normalizer& norm, int64_t chunk,
                           const torch::Device& device) {
  GraphResult r;
  r.graph = file_stem(e.cache.source);
  const std::vector<double> scores = score_groups(model, e, e.eval_groups, norm, chunk, device);
  r.ranking = rank_configs(e.cache.groups, e.eval_groups, scores);
  if (e.cache.has_runtime()) r.metrics = evaluate_ranking(r.ranking, e.cache.runtime);
  r.metrics.configs = static_cast<int64_t>(r.ranking.size());
  return r;
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

double collection_score(GraphKind kind, const std::vector<GraphResult>& results) {
  std::vector<GraphMetrics> m;
  for (const GraphResult& r : results) m.push_back(r.metrics);
  const CollectionMetrics s = summarize(m);
  return kind == GraphKind::Tile ? s.tile_score : s.kendall;
}

nlohmann::json metrics_json(const std::vector<GraphResult>& results, const std::string& split, double score) {
  auto num = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
  nlohmann::json graphs = nlohmann::json::array();
  std::vector<GraphMetrics> all;
  for (const GraphResult& r : results) {
    const GraphMetrics& m = r.metrics;
    all.push_back(m);
    graphs.push_back({{"graph", r.graph}, {"configs", m.configs}, {"kendall", num(m.kendall)}, {"opa", num(m.opa)},
                      {"top1_error", num(m.top1)}, {"top5_error", num(m.top5)}, {"top10_error", num(m.top10)},
                      {"tile_score", num(m.tile_score)}});
  }
  const CollectionMetrics s = summarize(all);
  return {{"split", split},
          {"score", num(score)},
          {"mean", {{"kendall", num(s.kendall)}, {"opa", num(s.opa)}, {"top1_error", num(s.top1)},
                    {"top5_error", num(s.top5)}, {"top10_error", num(s.top10)}, {"tile_score", num(s.tile_score)}}},
          {"graphs", graphs}};
}

}  // namespace fastslow::train
