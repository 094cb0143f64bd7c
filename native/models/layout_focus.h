// The default layout model. Two stages, so that the work per config is
// spent only where configs differ:
//  1. graph (once per graph, config-free): opcode embedding plus
//     standardised features, residual SAGE blocks over both edge directions
//     with LayerNorm -> an embedding of every configurable node's
//     neighbourhood;
//  2. configs (per config, configurable nodes only): that embedding plus
//     small embeddings of the layout values plus the tiling features of the
//     choice (layout_tiling.h), residual MLP blocks, a few log-costs per
//     node, pooled as log-sum-exp: a graph's runtime is a sum of costs that
//     span orders of magnitude, and LSE of log-costs is the log of that sum.
//     A learned scale multiplies the LSE: the ranking losses reward wide
//     score gaps, and without a scale outside they widen the terms inside,
//     which turns the sum into a max (generated layout:xla:random small,
//     valid Kendall 0.66 without the scale, 0.83 with it).
// No attention across the configs of a batch: measured on generated
// layout:xla:random it cost 0.1 Kendall, and without it a config's score
// does not depend on which configs share its batch.
//
// Per config this costs nc x H^2 per block instead of nodes x H^2 per SAGE
// block (attn), 10-20x less on real graph sizes: what lets the page rank
// 1,000 configs in seconds.
#pragma once

#include <algorithm>
#include <vector>

#include "models/blocks.h"
#include "models/layout_attn.h"

namespace fastslow::models {

// The key of each (config, node) pair's stage-2 input: the node, its 18
// layout values and its producers' 12 ([B, nc, 12], layout_tiling.h),
// packed exactly into two int64 columns, [B nc, 2]: equal keys, equal
// inputs. The ONNX export builds the same keys.
torch::Tensor layout_stage_keys(const torch::Tensor& config_feat, const torch::Tensor& producers);
// Each row's index among the distinct rows of such keys (0..U-1, every one used).
torch::Tensor distinct_rows(const torch::Tensor& keys);

// Pre-norm residual MLP on the last dim: x + W2 relu(W1 LN(x)). ReLU, not
// GELU: this block runs once per config and configurable node, and exact
// GELU was 15 % of the page's ranking time.
class ResMlpBlockImpl : public torch::nn::Module {
 public:
  explicit ResMlpBlockImpl(int64_t hidden);
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::LayerNorm norm{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(ResMlpBlock);

// Whether a model of these options reads the layout context (an extra
// input, LayoutContext::kWidth values per configurable node): focus models
// over the published 18 layout values per node.
bool uses_layout_context(const ModelOptions& o);

class LayoutFocusImpl : public RankModelImpl, public SegmentableModel {
 public:
  static constexpr int64_t kNodeBlocks = 2;
  // Log-costs per node: its output's, input's and kernel's relayouts and
  // tile padding, and its compute, are separate terms of a sum.
  static constexpr int64_t kCostTerms = 4;
  // Stage 2 runs nc x B times per batch, stage 1 once: stage 2 is half as
  // wide as the graph stage.
  static int64_t config_width(int64_t hidden) { return std::max<int64_t>(8, hidden / 2); }
  explicit LayoutFocusImpl(const ModelOptions& options);
  torch::Tensor forward(const GraphTensors& g, const torch::Tensor& config_feat) override;
  // Stage 1: [nc, config_width(H)], the configurable nodes' config-free embeddings.
  torch::Tensor encode_graph(const GraphTensors& g);
  // Stage 2: scores [B] from stage 1's output.
  torch::Tensor score_configs(const GraphTensors& g, const torch::Tensor& node, const torch::Tensor& config_feat);
  // Stage 2 before its log-sum-exp: [B, nc * kCostTerms] cost terms.
  torch::Tensor cost_terms(const GraphTensors& g, const torch::Tensor& node, const torch::Tensor& config_feat);
  // Stage 2's residual blocks and cost head on its input x [.., C], with the
  // tiling features' direct term when there are any: [.., kCostTerms].
  torch::Tensor node_costs(torch::Tensor x, const torch::Tensor& tiling_feat);
  // Graph segment training (segmentable.h): stage 1's per-node states
  // [n, H] (config-free, before the configurable nodes are picked out); the
  // readout picks them and runs stage 2. A segment's share is the
  // log-sum-exp over its configurable nodes' cost terms [B, 1] (-inf for a
  // segment without any): shares add up as exp().
  FASTSLOW_SEGMENTABLE_OVERRIDES

  NodeEncoder encoder{nullptr};
  std::vector<ResSageBlock> blocks;
  torch::nn::LayerNorm graph_norm{nullptr};
  torch::nn::Linear node_in{nullptr};  // graph width -> stage-2 width
  LayoutValueEmbedding values{nullptr};
  torch::nn::Linear tiling{nullptr};
  std::vector<ResMlpBlock> node_blocks;
  torch::nn::LayerNorm node_norm{nullptr};
  torch::nn::Linear cost_fc1{nullptr}, cost_fc2{nullptr}, cost_direct{nullptr};
  torch::Tensor log_scale;

 private:
  ModelOptions options_;
};
TORCH_MODULE(LayoutFocus);

}  // namespace fastslow::models
