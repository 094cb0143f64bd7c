// Several ranking models of one kind, over graphs prepared alike, scored as
// one model: score = sum over members of weight * member score / scale.
// Scores of different models live on different scales; a fixed per-member
// scale (train/ensemble_spec.h) stands in for standardising each member's
// scores per graph, which a model scoring one chunk of configs at a time
// cannot do. What `fastslow rank` scores an exported ensemble with; the ONNX
// graph (export_onnx.cpp) computes the same sum in the same order.
#pragma once

#include <vector>

#include "models/model.h"

namespace fastslow::models {

struct EnsembleMember {
  ModelOptions options;  // the member's own model (type, sizes, join)
  RankModel model;
  double weight = 0;  // >= 0, summing to 1 over the members
  double scale = 1;   // > 0
};

class EnsembleModelImpl : public RankModelImpl {
 public:
  // Throws Error on no members, a negative weight or a scale that is not positive.
  explicit EnsembleModelImpl(std::vector<EnsembleMember> members);
  torch::Tensor forward(const GraphTensors& g, const torch::Tensor& config_feat) override;

  const std::vector<EnsembleMember>& members() const { return members_; }
  // weight / scale as float32: the factor each member's scores are multiplied by.
  float coefficient(size_t member) const;

 private:
  std::vector<EnsembleMember> members_;
};
TORCH_MODULE(EnsembleModel);

}  // namespace fastslow::models
