#include "export/native_ranker.h"

#include <torch/torch.h>

#include <chrono>
#include <numeric>

#include "fastslow/features/layout_context.h"
#include "fastslow/io/npz_writer.h"
#include "fastslow/rank/rank_inputs.h"
#include "models/graph_tensors.h"

namespace fastslow::exporter {

struct PreparedRanking {
  CachedGraph graph;
  RankGraphInputs inputs;
  models::GraphTensors tensors;       // on the host
  std::vector<int64_t> groups;        // every group, in order
  std::vector<torch::Tensor> chunks;  // config_feat per model call, on the host
};

void set_threads(int threads) { torch::set_num_threads(threads); }

namespace {

torch::Device device_of(const ExportedModel& model) {
  const auto params = model.model->parameters();
  return params.empty() ? torch::Device(torch::kCPU) : params.front().device();
}

models::GraphTensors host_tensors(const RankGraphInputs& in, GraphKind kind) {
  const std::vector<int32_t> opcode(in.node_opcode.begin(), in.node_opcode.end());
  models::GraphTensors g =
      models::make_graph_tensors(in.num_nodes, in.node_feat_width, in.node_feat, opcode, in.edge_index, in.config_nodes);
  if (kind == GraphKind::Layout) models::set_config_context(g, in.config_context, LayoutContext::kWidth);
  return g;
}

}  // namespace

std::shared_ptr<PreparedRanking> prepare_ranking(const ModelCard& card, const std::string& file,
                                                 const std::string& cache_dir) {
  auto p = std::make_shared<PreparedRanking>();
  p->graph = CachedGraph::open(file, {cache_dir, card.khop});
  p->inputs = rank_graph_inputs(p->graph, card);
  const RankGraphInputs& in = p->inputs;
  p->tensors = host_tensors(in, card.kind);
  p->groups.resize(static_cast<size_t>(p->graph.groups.num_groups()));
  std::iota(p->groups.begin(), p->groups.end(), 0);
  const int64_t chunks = rank_chunk_count(static_cast<int64_t>(p->groups.size()), card.chunk);
  const int64_t nc = static_cast<int64_t>(in.config_nodes.size());
  for (int64_t c = 0; c < chunks; ++c) {
    const std::vector<int64_t> part = rank_chunk(p->groups, card.chunk, c);
    std::vector<float> rows = rank_config_batch(p->graph, part, card);
    const auto B = static_cast<int64_t>(part.size());
    const std::vector<int64_t> shape = card.kind == GraphKind::Tile ? std::vector<int64_t>{B, card.config_feat_width}
                                                                      : std::vector<int64_t>{B, nc, card.config_feat_width};
    p->chunks.push_back(torch::from_blob(rows.data(), shape, torch::kFloat32).clone());
  }
  return p;
}

FileRanking score(const ExportedModel& model, const std::shared_ptr<PreparedRanking>& prepared,
                  const std::function<void(int64_t, int64_t)>& progress) {
  const torch::Device device = device_of(model);
  const auto chunks = static_cast<int64_t>(prepared->chunks.size());
  torch::NoGradGuard no_grad;
  FileRanking r;
  if (progress) progress(0, chunks);
  const auto t0 = std::chrono::steady_clock::now();
  const models::GraphTensors g = prepared->tensors.to(device);
  std::vector<torch::Tensor> scores;
  for (int64_t c = 0; c < chunks; ++c) {
    torch::Tensor feat = prepared->chunks[static_cast<size_t>(c)];
    if (device.is_cuda()) feat = feat.pin_memory().to(device, /*non_blocking=*/true);
    // On a GPU nothing waits here: every batch is queued, then read back once.
    scores.push_back(model.model->forward(g, feat).to(torch::kFloat64));
    if (progress) progress(c + 1, chunks);
  }
  const torch::Tensor all =
      (scores.empty() ? torch::zeros({0}, torch::kFloat64) : torch::cat(scores)).to(torch::kCPU).contiguous();
  r.score_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.group_scores.assign(all.data_ptr<double>(), all.data_ptr<double>() + all.numel());
  r.graph = prepared->graph;
  r.ranking = rank_configs(r.graph.groups, prepared->groups, r.group_scores);
  if (r.graph.has_runtime()) r.metrics = evaluate_ranking(r.ranking, r.graph.runtime, r.graph.groups);
  return r;
}

void write_model_inputs(const ModelCard& card, const std::shared_ptr<PreparedRanking>& prepared,
                        const std::string& path) {
  const RankGraphInputs& in = prepared->inputs;
  NpzWriter w(path, Compression::Deflate);
  w.add("node_feat", in.node_feat, {in.num_nodes, in.node_feat_width});
  w.add("node_opcode", in.node_opcode, {in.num_nodes});
  w.add("edge_index", in.edge_index, {in.num_edges(), 2});
  if (card.kind == GraphKind::Layout) {
    const auto nc = static_cast<int64_t>(in.config_nodes.size());
    w.add("config_nodes", in.config_nodes, {nc});
    w.add("config_context", in.config_context, {nc, static_cast<int64_t>(LayoutContext::kWidth)});
  }
  const torch::Tensor all = prepared->chunks.empty() ? torch::zeros({0}) : torch::cat(prepared->chunks).contiguous();
  std::vector<int64_t> shape = all.sizes().vec();
  w.add("config_feat", std::vector<float>(all.data_ptr<float>(), all.data_ptr<float>() + all.numel()), shape);
  w.add("chunk", std::vector<int64_t>{card.chunk}, {1});
  w.close();
}

FileRanking rank_file(const ExportedModel& model, const std::string& file, const std::string& cache_dir,
                      const std::function<void(int64_t, int64_t)>& progress) {
  return score(model, prepare_ranking(model.card, file, cache_dir), progress);
}

void warm_up(const ExportedModel& model) {
  const ModelCard& card = model.card;
  const torch::Device device = device_of(model);
  // Three nodes in a chain, the last two configurable (layout).
  RankGraphInputs in;
  in.num_nodes = 3;
  in.node_feat_width = card.node_feat_width;
  in.node_feat.assign(static_cast<size_t>(3 * card.node_feat_width), 0.0f);
  in.node_opcode = {1, 2, 3};
  in.edge_index = {1, 0, 2, 1};
  const int64_t nc = card.kind == GraphKind::Layout ? 2 : 0;
  if (nc > 0) {
    in.config_nodes = {1, 2};
    in.config_context = unknown_layout_context(nc).values;
  }
  try {
    torch::NoGradGuard no_grad;
    const models::GraphTensors g = host_tensors(in, card.kind).to(device);
    const torch::Tensor feat = card.kind == GraphKind::Tile
                                   ? torch::zeros({4, card.config_feat_width})
                                   : torch::zeros({4, nc, card.config_feat_width});
    model.model->forward(g, feat.to(device)).to(torch::kCPU);
  } catch (const std::exception&) {
    // Only a warm-up: the real call reports what is wrong.
  }
}

}  // namespace fastslow::exporter
