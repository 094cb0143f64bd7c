#include "models/tile_gcn.h"

#include <string>

namespace fastslow::models {

GcnLayerImpl::GcnLayerImpl(int64_t hidden) {
  lin = register_module("lin", torch::nn::Linear(hidden, hidden));
  norm = register_module("norm", layer_norm(hidden));
}

torch::Tensor GcnLayerImpl::forward(const GraphTensors& g, const torch::Tensor& h) {
  // Mean over the closed neighbourhood from the two directed means:
  // (h + d_in * mean_in + d_out * mean_out) / (1 + d_in + d_out).
  const int64_t n = g.num_nodes;
  auto d_in = (g.in_ptr.slice(0, 1) - g.in_ptr.slice(0, 0, n)).to(h.scalar_type()).view({n, 1, 1});
  auto d_out = (g.out_ptr.slice(0, 1) - g.out_ptr.slice(0, 0, n)).to(h.scalar_type()).view({n, 1, 1});
  auto a = (h + d_in * mean_in(g, h) + d_out * mean_out(g, h)) / (1 + d_in + d_out);
  return h + torch::relu(norm(linear(lin, a)));
}

TileGcnImpl::TileGcnImpl(const ModelOptions& options) : options_(options), early_(options.join == "early") {
  const int64_t H = options.hidden, Fc = options.config_feat_width;
  encoder = register_module("encoder", NodeEncoder(options.opcode_vocab, options.node_feat_width, H));
  if (early_ && Fc > 0) config_in = register_module("config_in", torch::nn::Linear(torch::nn::LinearOptions(Fc, H).bias(false)));
  for (int64_t i = 0; i < options.layers; ++i)
    layers.push_back(register_module("layer" + std::to_string(i), GcnLayer(H)));
  if (!early_) join = register_module("join", torch::nn::Linear(H + Fc, H));
  head = register_module("head", ScoreHead(H, H));
}

torch::Tensor TileGcnImpl::forward(const GraphTensors& g, const torch::Tensor& config_feat) {
  check_graph("tile gcn", g, options_);
  check_tile_configs("tile gcn", config_feat, options_);
  return tile_graph_scores(g, config_feat, encoder, config_in, layers, join, head);
}

}  // namespace fastslow::models
