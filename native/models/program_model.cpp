#include "models/program_model.h"

namespace fastslow::models {

ProgramModelImpl::ProgramModelImpl(const ModelOptions& options, RankModel deep_model) : deep(std::move(deep_model)) {
  wide = register_module("wide", LayoutWide(options.wide_nodes, options.config_feat_width));
  // Fitted in closed form, never by the optimizer (trained_parameters()).
  for (auto& p : wide->parameters()) p.set_requires_grad(false);
  register_module("deep", deep);
  gate = register_parameter("gate", torch::zeros({1}));
  scale = register_buffer("scale", torch::ones({1}));
}

torch::Tensor ProgramModelImpl::forward(const GraphTensors& g, const torch::Tensor& config_feat) {
  return wide(config_feat) + scale * gate * deep->forward(g, config_feat);
}

std::vector<torch::Tensor> ProgramModelImpl::trained_parameters() {
  std::vector<torch::Tensor> out = deep->parameters();
  out.push_back(gate);
  return out;
}

}  // namespace fastslow::models
