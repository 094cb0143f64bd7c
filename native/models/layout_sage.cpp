#include "models/layout_sage.h"

#include <string>

namespace fastslow::models {

LayoutSageImpl::LayoutSageImpl(const ModelOptions& options) : options_(options) {
  const int64_t H = options.hidden, Fc = options.config_feat_width;
  // One input layer over [opcode embedding, node features, config values]:
  // its three column blocks, the config block applied only where configs are.
  encoder = register_module("encoder", NodeEncoder(options.opcode_vocab, options.node_feat_width, H));
  if (Fc > 0) config_in = register_module("config_in", torch::nn::Linear(torch::nn::LinearOptions(Fc, H).bias(false)));
  for (int64_t i = 0; i < options.layers; ++i)
    layers.push_back(register_module("layer" + std::to_string(i), SageLayer(H, H)));
  head = register_module("head", ScoreHead(H, H));
}

torch::Tensor LayoutSageImpl::forward(const GraphTensors& g, const torch::Tensor& config_feat) {
  return readout(g, node_states(g, config_feat), config_feat);
}

torch::Tensor LayoutSageImpl::node_states(const GraphTensors& g, const torch::Tensor& config_feat) {
  check_graph("layout sage", g, options_);
  check_layout_configs("layout sage", g, config_feat, options_);
  const int64_t B = config_feat.size(0);
  auto node = encoder(g);
  auto h = config_in ? add_at_config_nodes(node, g, config_in(config_feat))
                     : node.unsqueeze(1).expand({node.size(0), B, node.size(1)});
  h = torch::relu(h);
  for (auto& layer : layers) h = layer->forward(g, h);
  return h;
}

torch::Tensor LayoutSageImpl::readout(const GraphTensors&, const torch::Tensor& h, const torch::Tensor&) {
  return head(mean_pool(h));
}

torch::Tensor LayoutSageImpl::segment_summary(const GraphTensors&, const torch::Tensor& h, const torch::Tensor&) {
  return h.sum(0);
}

torch::Tensor LayoutSageImpl::summary_readout(const GraphTensors& g, const torch::Tensor& summaries,
                                              const torch::Tensor& weights, const torch::Tensor&) {
  return head((summaries * weights.unsqueeze(-1)).sum(0) / static_cast<double>(std::max<int64_t>(1, g.num_nodes)));
}

}  // namespace fastslow::models
