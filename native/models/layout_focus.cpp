#include "models/layout_focus.h"

#include <limits>
#include <string>

#include "fastslow/features/layout_context.h"
#include "models/layout_tiling.h"

namespace fastslow::models {

ResMlpBlockImpl::ResMlpBlockImpl(int64_t hidden) {
  norm = register_module("norm", layer_norm(hidden));
  fc1 = register_module("fc1", torch::nn::Linear(hidden, hidden));
  fc2 = register_module("fc2", torch::nn::Linear(hidden, hidden));
}

torch::Tensor ResMlpBlockImpl::forward(const torch::Tensor& x) {
  return x + linear(fc2, torch::relu(linear(fc1, norm(x))));
}

bool uses_layout_context(const ModelOptions& o) {
  return model_reads_layout_context(o.kind == "layout", o.name, o.config_feat_width);
}

LayoutFocusImpl::LayoutFocusImpl(const ModelOptions& options) : options_(options) {
  const int64_t H = options.hidden, Fc = options.config_feat_width;
  encoder = register_module("encoder", NodeEncoder(options.opcode_vocab, options.node_feat_width, H));
  for (int64_t i = 0; i < options.layers; ++i)
    blocks.push_back(register_module("block" + std::to_string(i), ResSageBlock(H)));
  graph_norm = register_module("graph_norm", layer_norm(H));
  const int64_t C = config_width(H);
  node_in = register_module("node_in", torch::nn::Linear(H, C));
  if (Fc > 0) values = register_module("values", LayoutValueEmbedding(Fc, C));
  if (uses_layout_context(options)) tiling = register_module("tiling", torch::nn::Linear(kTilingFeatures, C));
  for (int64_t i = 0; i < kNodeBlocks; ++i)
    node_blocks.push_back(register_module("node_block" + std::to_string(i), ResMlpBlock(C)));
  node_norm = register_module("node_norm", layer_norm(C));
  cost_fc1 = register_module("cost_fc1", torch::nn::Linear(C, C));
  cost_fc2 = register_module("cost_fc2", torch::nn::Linear(C, kCostTerms));
  if (tiling) cost_direct = register_module("cost_direct", torch::nn::Linear(kTilingFeatures, kCostTerms));
  log_scale = register_parameter("log_scale", torch::zeros({1}));
}

torch::Tensor LayoutFocusImpl::encode_graph(const GraphTensors& g) {
  auto h = encoder(g);
  for (auto& block : blocks) h = block->forward(g, h);
  return linear(node_in, graph_norm(h).index_select(0, g.config_nodes));
}

torch::Tensor LayoutFocusImpl::node_states(const GraphTensors& g, const torch::Tensor& config_feat) {
  check_graph("layout focus", g, options_);
  check_layout_configs("layout focus", g, config_feat, options_);
  auto h = encoder(g);
  for (auto& block : blocks) h = block->forward(g, h);
  return graph_norm(h);
}

torch::Tensor LayoutFocusImpl::readout(const GraphTensors& g, const torch::Tensor& states,
                                       const torch::Tensor& config_feat) {
  return score_configs(g, linear(node_in, states.index_select(0, g.config_nodes)), config_feat);
}

torch::Tensor LayoutFocusImpl::score_configs(const GraphTensors& g, const torch::Tensor& node,
                                             const torch::Tensor& config_feat) {
  if (config_feat.size(1) == 0) return torch::zeros({config_feat.size(0)}, node.options());
  // The ranking losses reward wide score gaps; a scale outside the LSE
  // gives them that without turning the sum inside it into a max.
  return torch::logsumexp(cost_terms(g, node, config_feat), 1) * log_scale.exp();
}

torch::Tensor layout_stage_keys(const torch::Tensor& config_feat, const torch::Tensor& producers) {
  const int64_t B = config_feat.size(0), nc = config_feat.size(1);
  // Values -1..5 as base-8 digits: the node and 12 values in one int64, the
  // other 6 values and the producers' 12 in another (54 bits each).
  const auto digits =
      (torch::cat({config_feat.round().clamp(-1, 5), producers}, 2).reshape({B * nc, 30}) + 1).to(torch::kInt64);
  const auto powers = torch::pow(torch::full({18}, 8, digits.options()), torch::arange(18, digits.options()));
  const auto node = torch::arange(nc, digits.options()).repeat({B});
  const auto a = node * (int64_t{1} << 36) + (digits.narrow(1, 0, 12) * powers.narrow(0, 0, 12)).sum(1);
  const auto b = (digits.narrow(1, 12, 18) * powers).sum(1);
  return torch::stack({a, b}, 1);
}

torch::Tensor distinct_rows(const torch::Tensor& keys) {
  const auto inverse_of = [](const torch::Tensor& k) {
    return std::get<1>(at::_unique2(k, /*sorted=*/false, /*return_inverse=*/true, /*return_counts=*/false));
  };
  const int64_t n = keys.size(0);
  return inverse_of(inverse_of(keys.select(1, 0)) * n + inverse_of(keys.select(1, 1)));
}

torch::Tensor LayoutFocusImpl::node_costs(torch::Tensor x, const torch::Tensor& tiling_feat) {
  for (auto& block : node_blocks) x = block->forward(x);
  auto terms = linear(cost_fc2, torch::relu(linear(cost_fc1, node_norm(x))));
  // Byte counts reach the costs unnormalised too: LayerNorm keeps their
  // direction but not the log-linear scale that a copy's cost has in them.
  if (tiling_feat.defined()) terms = terms + linear(cost_direct, tiling_feat);
  return terms;
}

torch::Tensor LayoutFocusImpl::cost_terms(const GraphTensors& g, const torch::Tensor& node,
                                          const torch::Tensor& config_feat) {
  const int64_t B = config_feat.size(0), nc = config_feat.size(1), H = node.size(1);
  torch::Tensor context;
  if (tiling) {
    context = g.config_context;
    if (!context.defined())
      context = torch::tensor(unknown_layout_context(nc).values, config_feat.options()).view({nc, LayoutContext::kWidth});
  }
  // Training takes every pair (fixed shapes, which CUDA graphs replay);
  // ranking takes the distinct ones below.
  if (!tiling || torch::GradMode::is_enabled()) {
    auto x = node.unsqueeze(0).expand({B, nc, H});
    if (values) x = x + values(config_feat);
    torch::Tensor tiling_feat;
    if (tiling) {
      tiling_feat = layout_tiling_features(config_feat, context);
      x = x + linear(tiling, tiling_feat);
    }
    return node_costs(x, tiling_feat).reshape({B, nc * kCostTerms});
  }
  // A node's terms read its own values and its producers' layouts only, and
  // the configs of a file repeat them (a default collection changes a few
  // nodes per config: under 1 % of (config, node) pairs are distinct on the
  // real nlp and generated 5,000-node graphs). Stage 2 runs once per
  // distinct pair and its terms are gathered back.
  const torch::Tensor producers = layout_tiling_producers(config_feat, context);  // [B, nc, 12]
  const torch::Tensor inverse = distinct_rows(layout_stage_keys(config_feat, producers));
  const int64_t rows = B * nc;
  const int64_t U = inverse.numel() == 0 ? 0 : inverse.max().item<int64_t>() + 1;
  // One row of each distinct pair stands for it: any one, as the pairs'
  // values agree once rounded and clamped, which is all stage 2 reads.
  const auto member = torch::zeros({U}, inverse.options()).index_put_({inverse}, torch::arange(rows, inverse.options()));
  const auto at_node = member.remainder(nc);
  const auto cfg = config_feat.reshape({rows, config_feat.size(2)}).index_select(0, member).unsqueeze(0);  // [1, U, 18]
  const auto prod = producers.reshape({rows, producers.size(2)}).index_select(0, member).unsqueeze(0);     // [1, U, 12]
  auto x = node.index_select(0, at_node).unsqueeze(0);                                  // [1, U, C]
  if (values) x = x + values(cfg);
  const torch::Tensor tiling_feat = layout_tiling_from(cfg, prod, context.index_select(0, at_node));
  x = x + linear(tiling, tiling_feat);
  return node_costs(x, tiling_feat).squeeze(0).index_select(0, inverse).reshape({B, nc * kCostTerms});
}

torch::Tensor LayoutFocusImpl::segment_summary(const GraphTensors& segment, const torch::Tensor& states,
                                               const torch::Tensor& config_feat) {
  const int64_t B = config_feat.size(0);
  if (config_feat.size(1) == 0) return torch::full({B, 1}, -std::numeric_limits<float>::infinity(), states.options());
  const auto node = linear(node_in, states.index_select(0, segment.config_nodes));
  return torch::logsumexp(cost_terms(segment, node, config_feat), 1, /*keepdim=*/true);
}

torch::Tensor LayoutFocusImpl::summary_readout(const GraphTensors& g, const torch::Tensor& summaries,
                                               const torch::Tensor& weights, const torch::Tensor& config_feat) {
  if (g.config_nodes.numel() == 0) return torch::zeros({config_feat.size(0)}, summaries.options());
  // log(sum_s w_s exp(l_s)). A segment without configurable nodes (-inf)
  // and a dropped one (w = 0) add nothing; the floor keeps a batch whose
  // every share is missing finite (no gradient then, not NaN).
  const auto terms = (summaries.squeeze(-1) + weights.log()).clamp_min(-1e4);
  return torch::logsumexp(terms, 0) * log_scale.exp();
}

torch::Tensor LayoutFocusImpl::forward(const GraphTensors& g, const torch::Tensor& config_feat) {
  check_graph("layout focus", g, options_);
  check_layout_configs("layout focus", g, config_feat, options_);
  return score_configs(g, encode_graph(g), config_feat);
}

}  // namespace fastslow::models
