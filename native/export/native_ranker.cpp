#include "export/native_ranker.h"

#include <torch/torch.h>

#include <chrono>
#include <numeric>

#include "fastslow/features/layout_context.h"
#include "fastslow/rank/rank_inputs.h"
#include "models/graph_tensors.h"

namespace fastslow::exporter {

void set_threads(int threads) { torch::set_num_threads(threads); }

FileRanking rank_file(const ExportedModel& model, const std::string& file, const std::string& cache_dir,
                      const std::function<void(int64_t, int64_t)>& progress) {
  const ModelCard& card = model.card;
  FileRanking r;
  r.graph = CachedGraph::open(file, {cache_dir, card.khop});
  const RankGraphInputs in = rank_graph_inputs(r.graph, card);
  const std::vector<int32_t> opcode(in.node_opcode.begin(), in.node_opcode.end());
  const torch::Device device = model.model->parameters().empty() ? torch::Device(torch::kCPU)
                                                                   : model.model->parameters().front().device();
  models::GraphTensors host =
      models::make_graph_tensors(in.num_nodes, in.node_feat_width, in.node_feat, opcode, in.edge_index, in.config_nodes);
  if (card.kind == GraphKind::Layout) models::set_config_context(host, in.config_context, LayoutContext::kWidth);
  const models::GraphTensors g = host.to(device);
  std::vector<int64_t> groups(static_cast<size_t>(r.graph.groups.num_groups()));
  std::iota(groups.begin(), groups.end(), 0);
  const int64_t chunks = rank_chunk_count(static_cast<int64_t>(groups.size()), card.chunk);
  const int64_t nc = static_cast<int64_t>(in.config_nodes.size());
  torch::NoGradGuard no_grad;
  r.group_scores.reserve(groups.size());
  if (progress) progress(0, chunks);
  for (int64_t c = 0; c < chunks; ++c) {
    const std::vector<int64_t> part = rank_chunk(groups, card.chunk, c);
    std::vector<float> rows = rank_config_batch(r.graph, part, card);
    const auto B = static_cast<int64_t>(part.size());
    const torch::Tensor feat =
        (card.kind == GraphKind::Tile
             ? torch::from_blob(rows.data(), {B, card.config_feat_width}, torch::kFloat32)
             : torch::from_blob(rows.data(), {B, nc, card.config_feat_width}, torch::kFloat32))
            .to(device);
    const auto t0 = std::chrono::steady_clock::now();
    const torch::Tensor s = model.model->forward(g, feat).to(torch::kCPU, torch::kFloat64).contiguous();
    r.score_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.group_scores.insert(r.group_scores.end(), s.data_ptr<double>(), s.data_ptr<double>() + s.numel());
    if (progress) progress(c + 1, chunks);
  }
  r.ranking = rank_configs(r.graph.groups, groups, r.group_scores);
  if (r.graph.has_runtime()) r.metrics = evaluate_ranking(r.ranking, r.graph.runtime);
  r.metrics.configs = static_cast<int64_t>(r.ranking.size());
  return r;
}

}  // namespace fastslow::exporter
