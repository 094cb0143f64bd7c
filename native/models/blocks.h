// Pieces the graph models share: input checks, the node encoder, the layer
// kinds, the layout-value embedding. Header-only: the models' library is
// listed file by file, and these are small.
#pragma once

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "fastslow/error.h"
#include "models/graph_ops.h"
#include "models/model.h"
#include "models/graph_tensors.h"

namespace fastslow::models {

inline std::string shape_str(const torch::Tensor& t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
  return s + "]";
}

inline void check_graph(const std::string& model, const GraphTensors& g, const ModelOptions& o) {
  if (g.num_nodes < 1 || !g.node_feat.defined() || g.node_feat.dim() != 2 || g.node_feat.size(0) != g.num_nodes ||
      g.node_feat.size(1) != o.node_feat_width)
    throw Error(model + ": node features " + (g.node_feat.defined() ? shape_str(g.node_feat) : "(none)") +
                ", expected [" + std::to_string(g.num_nodes) + ", " + std::to_string(o.node_feat_width) + "]");
}

// Tile: [B, Fc] with B >= 1.
inline void check_tile_configs(const std::string& model, const torch::Tensor& c, const ModelOptions& o) {
  if (c.dim() != 2 || c.size(0) < 1 || c.size(1) != o.config_feat_width)
    throw Error(model + ": config features " + shape_str(c) + ", expected [B >= 1, " +
                std::to_string(o.config_feat_width) + "]");
}

// Layout: [B, nc, Fc] with B >= 1 and nc = the graph's configurable nodes.
inline void check_layout_configs(const std::string& model, const GraphTensors& g, const torch::Tensor& c,
                                 const ModelOptions& o) {
  const int64_t nc = g.config_nodes.defined() ? g.config_nodes.numel() : 0;
  if (c.dim() != 3 || c.size(0) < 1 || c.size(1) != nc || c.size(2) != o.config_feat_width)
    throw Error(model + ": config features " + shape_str(c) + ", expected [B >= 1, " + std::to_string(nc) + ", " +
                std::to_string(o.config_feat_width) + "]");
}

inline torch::nn::LayerNorm layer_norm(int64_t width) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({width}));
}

// ATen's linear: for a contiguous [n, B, K] input it runs one addmm, where
// torch::nn::Linear's C++ forward runs matmul and then adds the bias in a
// second pass over the output.
inline torch::Tensor linear(const torch::nn::Linear& l, const torch::Tensor& x) {
  return torch::linear(x, l->weight, l->bias);
}

// Opcode embedding plus a linear map of the node features: [n, H].
class NodeEncoderImpl : public torch::nn::Module {
 public:
  NodeEncoderImpl(int64_t vocab, int64_t feat_width, int64_t hidden) : vocab_(vocab) {
    opcode = register_module("opcode", torch::nn::Embedding(vocab, hidden));
    // A zero-width Linear cannot be initialised (its bias bound is 1/sqrt(0)).
    if (feat_width > 0) feat = register_module("feat", torch::nn::Linear(feat_width, hidden));
  }
  torch::Tensor forward(const GraphTensors& g) {
    // Defensive: an id outside the table reads its nearest row instead of
    // reading out of bounds.
    auto h = opcode(g.opcode.clamp(0, vocab_ - 1));
    if (feat) h = h + feat(g.node_feat);
    return h;
  }
  torch::nn::Embedding opcode{nullptr};
  torch::nn::Linear feat{nullptr};

 private:
  int64_t vocab_;
};
TORCH_MODULE(NodeEncoder);

// Broadcasts node vectors [n, H] to [n, B, H] and adds per-config vectors
// add [B, nc, H] at the configurable nodes.
inline torch::Tensor add_at_config_nodes(const torch::Tensor& node, const GraphTensors& g,
                                         const torch::Tensor& add) {
  const int64_t n = node.size(0), B = add.size(0), H = node.size(1);
  auto h = node.unsqueeze(1).expand({n, B, H}).contiguous();
  if (add.size(1) == 0) return h;
  return h.index_add(0, g.config_nodes, add.transpose(0, 1));
}

// Layout values v in -1..5 at column p -> row p*7 + v+1 of a table; summed
// over the columns of each configurable node: [B, nc, Fc] -> [B, nc, H].
// A one-hot product rather than an embedding lookup: one small matmul each
// way instead of a [B, nc, Fc, H] intermediate and its scatter backward.
class LayoutValueEmbeddingImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kValues = 7;
  LayoutValueEmbeddingImpl(int64_t config_width, int64_t hidden) : width_(config_width) {
    // Each node sums config_width rows: 1/sqrt(width) keeps that sum near
    // unit scale, like the opcode embedding it is added to.
    table = register_parameter("weight", torch::randn({config_width * kValues, hidden}) /
                                             std::sqrt(static_cast<double>(std::max<int64_t>(config_width, 1))));
  }
  torch::Tensor forward(const torch::Tensor& config_feat) {
    const int64_t B = config_feat.size(0), nc = config_feat.size(1);
    // Round and clamp: anything outside -1..5 (corrupt or rescaled input)
    // still lands in this column's rows.
    auto v = config_feat.round().clamp(-1, kValues - 2).to(torch::kInt64) + 1;
    auto col = torch::arange(width_, v.options()) * kValues;
    auto idx = (v + col).reshape({B * nc, width_});
    auto onehot = torch::zeros({B * nc, width_ * kValues}, config_feat.options());
    onehot.scatter_(1, idx, 1.0);
    return onehot.matmul(table).view({B, nc, table.size(1)});
  }
  torch::Tensor table;

 private:
  int64_t width_;
};
TORCH_MODULE(LayoutValueEmbedding);

// GraphSAGE over both edge directions (Hamilton et al.): relu of a linear map
// of [self, mean of operands, mean of users], L2-normalised per node.
class SageLayerImpl : public torch::nn::Module {
 public:
  SageLayerImpl(int64_t in, int64_t out) { lin = register_module("lin", torch::nn::Linear(3 * in, out)); }
  torch::Tensor forward(const GraphTensors& g, const torch::Tensor& h) {
    auto y = torch::relu(linear(lin, sage_concat(g, h)));
    return torch::nn::functional::normalize(y, torch::nn::functional::NormalizeFuncOptions().dim(-1).eps(1e-6));
  }
  torch::nn::Linear lin{nullptr};
};
TORCH_MODULE(SageLayer);

// A two-layer MLP to one output: [..., in] -> [...].
class ScoreHeadImpl : public torch::nn::Module {
 public:
  ScoreHeadImpl(int64_t in, int64_t hidden) {
    fc1 = register_module("fc1", torch::nn::Linear(in, hidden));
    fc2 = register_module("fc2", torch::nn::Linear(hidden, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::relu(fc1(x))).squeeze(-1); }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(ScoreHead);

// The tile graph models (sage, gcn) differ only in their layer kind.
// Early join: [n, B, H], one row of configs per node; late join: [n, 1, H],
// the graph encoded once for all configs and joined after pooling.
template <class Layers>
torch::Tensor tile_graph_scores(const GraphTensors& g, const torch::Tensor& config_feat, NodeEncoder& encoder,
                                torch::nn::Linear& config_in, Layers& layers, torch::nn::Linear& join,
                                ScoreHead& head) {
  const int64_t B = config_feat.size(0);
  auto node = encoder(g).unsqueeze(1);
  auto h = torch::relu(config_in ? node + config_in(config_feat).unsqueeze(0) : node);
  for (auto& layer : layers) h = layer->forward(g, h);
  auto pooled = mean_pool(h).expand({B, h.size(2)});
  if (join) pooled = torch::relu(join(torch::cat({pooled, config_feat}, 1)));
  return head(pooled);
}

}  // namespace fastslow::models
