// The default layout model, after the 1st/2nd place solutions: opcode and
// layout-value embeddings, residual SAGE blocks over both edge directions,
// pooling over all nodes and over the configurable nodes, attention across
// the configs of the batch (each config is scored next to the others), MLP.
// Node-major [n, B, H] tensors; nodes more than l hops from every
// configurable node are computed once per batch, not once per config.
#pragma once

#include <utility>
#include <vector>

#include "models/blocks.h"

namespace fastslow::models {

// Pre-norm residual block: h + gelu(W [u, mean_in(u), mean_out(u)]), u = LN(h).
class ResSageBlockImpl : public torch::nn::Module {
 public:
  explicit ResSageBlockImpl(int64_t hidden);
  torch::Tensor forward(const GraphTensors& g, const torch::Tensor& h);
  // The same block on values split into shared [n, H] and varying
  // [m_in, B, H] (see HopPlan): returns both parts, varying now covering
  // the first m_out nodes of plan.order.
  std::pair<torch::Tensor, torch::Tensor> forward_split(const GraphTensors& g, const HopPlan& plan,
                                                        const torch::Tensor& shared, const torch::Tensor& varying,
                                                        int64_t m_out);
  torch::nn::LayerNorm norm{nullptr};
  torch::nn::Linear lin{nullptr};
};
TORCH_MODULE(ResSageBlock);

// Single-head self-attention over the B configs, pre-norm residual:
// z + o(softmax(q k^T / sqrt(H)) v). Equivariant to permuting the configs.
class ConfigAttentionImpl : public torch::nn::Module {
 public:
  explicit ConfigAttentionImpl(int64_t hidden);
  torch::Tensor forward(const torch::Tensor& z);  // [B, H] -> [B, H]
  torch::nn::LayerNorm norm{nullptr};
  torch::nn::Linear q{nullptr}, k{nullptr}, v{nullptr}, o{nullptr};
};
TORCH_MODULE(ConfigAttention);

class LayoutAttnImpl : public RankModelImpl, public SegmentableModel {
 public:
  explicit LayoutAttnImpl(const ModelOptions& options);
  // Picks forward_split where it saves work, else forward_dense (same
  // function, same parameters; they agree to rounding).
  torch::Tensor forward(const GraphTensors& g, const torch::Tensor& config_feat) override;
  // Every node x every config: [n, B, H] through all blocks.
  torch::Tensor forward_dense(const GraphTensors& g, const torch::Tensor& config_feat);
  // Only the nodes within l hops of a configurable node get per-config rows
  // after block l; all others are computed once for the batch.
  torch::Tensor forward_split(const GraphTensors& g, const torch::Tensor& config_feat);
  // Graph segment training (segmentable.h): forward_dense in its two
  // halves; a segment's share is the two mean pools' sums over its nodes
  // and over its configurable nodes [B, 2H].
  FASTSLOW_SEGMENTABLE_OVERRIDES

  NodeEncoder encoder{nullptr};
  LayoutValueEmbedding values{nullptr};
  std::vector<ResSageBlock> blocks;
  torch::nn::LayerNorm out_norm{nullptr};
  torch::nn::Linear pool{nullptr};
  ConfigAttention attn{nullptr};
  torch::nn::LayerNorm head_norm{nullptr};
  ScoreHead head{nullptr};

 private:
  torch::Tensor run_split(const GraphTensors& g, const torch::Tensor& config_feat, const HopPlan& plan);
  ModelOptions options_;
};
TORCH_MODULE(LayoutAttn);

}  // namespace fastslow::models
