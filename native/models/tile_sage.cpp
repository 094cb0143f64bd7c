#include "models/tile_sage.h"

#include <string>

namespace fastslow::models {

TileSageImpl::TileSageImpl(const ModelOptions& options) : options_(options), early_(options.join == "early") {
  const int64_t H = options.hidden, Fc = options.config_feat_width;
  encoder = register_module("encoder", NodeEncoder(options.opcode_vocab, options.node_feat_width, H));
  if (early_ && Fc > 0) config_in = register_module("config_in", torch::nn::Linear(torch::nn::LinearOptions(Fc, H).bias(false)));
  for (int64_t i = 0; i < options.layers; ++i)
    layers.push_back(register_module("layer" + std::to_string(i), SageLayer(H, H)));
  if (!early_) join = register_module("join", torch::nn::Linear(H + Fc, H));
  head = register_module("head", ScoreHead(H, H));
}

torch::Tensor TileSageImpl::forward(const GraphTensors& g, const torch::Tensor& config_feat) {
  check_graph("tile sage", g, options_);
  check_tile_configs("tile sage", config_feat, options_);
  return tile_graph_scores(g, config_feat, encoder, config_in, layers, join, head);
}

}  // namespace fastslow::models
