#include "models/ensemble_model.h"

#include <cmath>

#include "fastslow/error.h"

namespace fastslow::models {

EnsembleModelImpl::EnsembleModelImpl(std::vector<EnsembleMember> members) : members_(std::move(members)) {
  if (members_.empty()) throw Error("an ensemble needs at least one member");
  for (size_t i = 0; i < members_.size(); ++i) {
    const EnsembleMember& m = members_[i];
    if (!(m.weight >= 0) || !std::isfinite(m.weight))
      throw Error("ensemble member " + std::to_string(i) + " (" + m.options.name + "): weight must be >= 0");
    if (!(m.scale > 0) || !std::isfinite(m.scale))
      throw Error("ensemble member " + std::to_string(i) + " (" + m.options.name + "): scale must be > 0");
    register_module("member" + std::to_string(i), m.model);
  }
}

float EnsembleModelImpl::coefficient(size_t member) const {
  const EnsembleMember& m = members_.at(member);
  return static_cast<float>(m.weight / m.scale);
}

torch::Tensor EnsembleModelImpl::forward(const GraphTensors& g, const torch::Tensor& config_feat) {
  torch::Tensor sum;
  for (size_t i = 0; i < members_.size(); ++i) {
    const torch::Tensor s = members_[i].model->forward(g, config_feat) * coefficient(i);
    sum = sum.defined() ? sum + s : s;
  }
  return sum;
}

}  // namespace fastslow::models
