#include "models/tile_mlp.h"

namespace fastslow::models {

TileMlpImpl::TileMlpImpl(const ModelOptions& options) : options_(options) {
  const int64_t H = options.hidden;
  encoder = register_module("encoder", NodeEncoder(options.opcode_vocab, options.node_feat_width, H));
  node_fc = register_module("node_fc", torch::nn::Linear(H, H));
  // A sum over nodes grows with the graph; normalising keeps kernels of a
  // few nodes and of thousands on one scale.
  graph_norm = register_module("graph_norm", layer_norm(H));
  fc1 = register_module("fc1", torch::nn::Linear(H + options.config_feat_width, H));
  head = register_module("head", ScoreHead(H, H));
}

torch::Tensor TileMlpImpl::forward(const GraphTensors& g, const torch::Tensor& config_feat) {
  check_graph("tile mlp", g, options_);
  check_tile_configs("tile mlp", config_feat, options_);
  const int64_t B = config_feat.size(0);
  auto h = torch::relu(node_fc(torch::relu(encoder(g))));
  auto graph = graph_norm(h.sum(0));
  auto x = torch::cat({graph.unsqueeze(0).expand({B, graph.size(0)}), config_feat}, 1);
  return head(torch::relu(fc1(x)));
}

}  // namespace fastslow::models
