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

torch::Tensor TileSageImpl::forward(const train::GraphTensors& g, const torch::Tensor& config_feat) {
  check_graph("tile sage", g, options_);
  check_tile_configs("tile sage", config_feat, options_);
  const int64_t B = config_feat.size(0);
  // Early: [n, B, H], one row of configs per node; late: [n, 1, H], the
  // graph is encoded once for all configs.
  auto node = encoder(g).unsqueeze(1);
  auto h = torch::relu(config_in ? node + config_in(config_feat).unsqueeze(0) : node);
  for (auto& layer : layers) h = layer->forward(g, h);
  auto pooled = mean_pool(h).expand({B, h.size(2)});
  if (join) pooled = torch::relu(join(torch::cat({pooled, config_feat}, 1)));
  return head(pooled);
}

}  // namespace fastslow::models
