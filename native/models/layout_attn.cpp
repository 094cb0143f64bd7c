#include "models/layout_attn.h"

#include <cmath>
#include <string>
#include <tuple>

namespace fastslow::models {

ResSageBlockImpl::ResSageBlockImpl(int64_t hidden) {
  norm = register_module("norm", layer_norm(hidden));
  lin = register_module("lin", torch::nn::Linear(3 * hidden, hidden));
}

torch::Tensor ResSageBlockImpl::forward(const GraphTensors& g, const torch::Tensor& h) {
  auto u = norm(h);
  return h + torch::gelu(linear(lin, sage_concat(g, u)));
}

std::pair<torch::Tensor, torch::Tensor> ResSageBlockImpl::forward_split(const GraphTensors& g,
                                                                         const HopPlan& plan,
                                                                         const torch::Tensor& shared,
                                                                         const torch::Tensor& varying, int64_t m_out) {
  const int64_t m_in = varying.size(0), B = varying.size(1), H = varying.size(2);
  auto us = norm(shared);
  auto uv = norm(varying);
  auto ys = torch::gelu(linear(lin, sage_concat(g, us)));
  auto yv = torch::gelu(linear(lin, sage_concat_split(g, plan, us, uv, m_out)));
  // Nodes entering the varying set carry their shared value into the residual.
  auto entering = shared.index_select(0, plan.order.slice(0, m_in, m_out)).unsqueeze(1).expand({m_out - m_in, B, H});
  return {shared + ys, torch::cat({varying, entering}, 0) + yv};
}

ConfigAttentionImpl::ConfigAttentionImpl(int64_t hidden) {
  norm = register_module("norm", layer_norm(hidden));
  q = register_module("q", torch::nn::Linear(hidden, hidden));
  k = register_module("k", torch::nn::Linear(hidden, hidden));
  v = register_module("v", torch::nn::Linear(hidden, hidden));
  o = register_module("o", torch::nn::Linear(hidden, hidden));
}

torch::Tensor ConfigAttentionImpl::forward(const torch::Tensor& z) {
  auto u = norm(z);
  const double scale = 1.0 / std::sqrt(static_cast<double>(z.size(1)));
  auto a = torch::softmax(q(u).matmul(k(u).t()) * scale, -1);
  return z + o(a.matmul(v(u)));
}

LayoutAttnImpl::LayoutAttnImpl(const ModelOptions& options) : options_(options) {
  const int64_t H = options.hidden, Fc = options.config_feat_width;
  encoder = register_module("encoder", NodeEncoder(options.opcode_vocab, options.node_feat_width, H));
  if (Fc > 0) values = register_module("values", LayoutValueEmbedding(Fc, H));
  for (int64_t i = 0; i < options.layers; ++i)
    blocks.push_back(register_module("block" + std::to_string(i), ResSageBlock(H)));
  out_norm = register_module("out_norm", layer_norm(H));
  pool = register_module("pool", torch::nn::Linear(2 * H, H));
  attn = register_module("attn", ConfigAttention(H));
  head_norm = register_module("head_norm", layer_norm(H));
  head = register_module("head", ScoreHead(H, H));
}

torch::Tensor LayoutAttnImpl::forward(const GraphTensors& g, const torch::Tensor& config_feat) {
  check_graph("layout attn", g, options_);
  check_layout_configs("layout attn", g, config_feat, options_);
  if (!config_feat.device().is_cpu() || blocks.empty()) return forward_dense(g, config_feat);
  // Row-layers of work: split runs n shared rows and count[l] * B varying
  // rows per block; dense n * B. Splitting pays when the hops leave
  // enough nodes out.
  const auto plan = hop_plan(g, static_cast<int64_t>(blocks.size()));
  const int64_t B = config_feat.size(0), n = g.num_nodes;
  int64_t split = 0;
  for (size_t l = 1; l < plan.count.size(); ++l) split += n + plan.count[l] * B;
  const int64_t dense = static_cast<int64_t>(blocks.size()) * n * B;
  return 10 * split < 9 * dense ? run_split(g, config_feat, plan) : forward_dense(g, config_feat);
}

torch::Tensor LayoutAttnImpl::forward_dense(const GraphTensors& g, const torch::Tensor& config_feat) {
  return readout(g, node_states(g, config_feat), config_feat);
}

torch::Tensor LayoutAttnImpl::node_states(const GraphTensors& g, const torch::Tensor& config_feat) {
  check_graph("layout attn", g, options_);
  check_layout_configs("layout attn", g, config_feat, options_);
  const int64_t B = config_feat.size(0);
  auto node = encoder(g);
  auto h = values ? add_at_config_nodes(node, g, values(config_feat))
                  : node.unsqueeze(1).expand({node.size(0), B, node.size(1)}).contiguous();
  for (auto& block : blocks) h = block->forward(g, h);
  return out_norm(h);
}

torch::Tensor LayoutAttnImpl::readout(const GraphTensors& g, const torch::Tensor& h, const torch::Tensor&) {
  // The mean over all nodes is dominated by the nodes no config touches;
  // the mean over the configurable nodes carries most of the differences.
  auto z = pool(torch::cat({mean_pool(h), mean_pool_at(h, g.config_nodes)}, -1));
  return head(head_norm(attn(z)));
}

torch::Tensor LayoutAttnImpl::segment_summary(const GraphTensors& segment, const torch::Tensor& h,
                                              const torch::Tensor&) {
  return torch::cat({h.sum(0), h.index_select(0, segment.config_nodes).sum(0)}, -1);
}

torch::Tensor LayoutAttnImpl::summary_readout(const GraphTensors& g, const torch::Tensor& summaries,
                                              const torch::Tensor& weights, const torch::Tensor&) {
  const auto sums = (summaries * weights.unsqueeze(-1)).sum(0);  // [B, 2H]
  const int64_t H = sums.size(1) / 2, nc = g.config_nodes.numel();
  auto all = sums.narrow(1, 0, H) / static_cast<double>(std::max<int64_t>(1, g.num_nodes));
  auto at_config = sums.narrow(1, H, H) / static_cast<double>(std::max<int64_t>(1, nc));  // mean_pool_at: zeros when nc is 0
  return head(head_norm(attn(pool(torch::cat({all, at_config}, -1)))));
}

torch::Tensor LayoutAttnImpl::forward_split(const GraphTensors& g, const torch::Tensor& config_feat) {
  check_graph("layout attn", g, options_);
  check_layout_configs("layout attn", g, config_feat, options_);
  return run_split(g, config_feat, hop_plan(g, static_cast<int64_t>(blocks.size())));
}

torch::Tensor LayoutAttnImpl::run_split(const GraphTensors& g, const torch::Tensor& config_feat,
                                        const HopPlan& plan) {
  const int64_t B = config_feat.size(0), n = g.num_nodes;
  auto shared = encoder(g);
  const int64_t H = shared.size(1), m0 = plan.count[0];
  auto varying = shared.index_select(0, plan.order.slice(0, 0, m0)).unsqueeze(1).expand({m0, B, H}).contiguous();
  if (values && config_feat.size(1) > 0)
    varying = varying.index_add(0, plan.config_rows, values(config_feat).transpose(0, 1));
  for (size_t l = 0; l < blocks.size(); ++l)
    std::tie(shared, varying) = blocks[l]->forward_split(g, plan, shared, varying, plan.count[l + 1]);
  shared = out_norm(shared);
  varying = out_norm(varying);
  auto all = (varying.sum(0) + shared.index_select(0, plan.outside).sum(0)) / static_cast<double>(n);
  auto at_config = config_feat.size(1) > 0 ? varying.index_select(0, plan.config_rows).mean(0)
                                           : torch::zeros({B, H}, shared.options());
  auto z = pool(torch::cat({all, at_config}, -1));
  return head(head_norm(attn(z)));
}

}  // namespace fastslow::models
