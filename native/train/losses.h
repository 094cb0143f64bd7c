// Training losses over the B sampled configs of one graph. Scores read
// "lower = faster"; targets are the graph's normalised log runtimes
// (standardised per graph), so lower target = faster too.
#pragma once

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace fastslow::train {

// Mean squared error between scores and targets (the paper's baseline).
torch::Tensor mse_loss(const torch::Tensor& scores, const torch::Tensor& target);
// Mean over pairs (i, j) with target_i < target_j (ties skipped) of
// max(0, margin - (score_j - score_i)). 0 when no pair has distinct targets.
torch::Tensor pairwise_hinge_loss(const torch::Tensor& scores, const torch::Tensor& target, double margin = 0.1);
// ListMLE (Xia et al. 2008) on utilities u = -scores with the true order by
// ascending target (ties broken by index): sum_i [logsumexp(u_pi(i..B)) - u_pi(i)], divided by B.
torch::Tensor listmle_loss(const torch::Tensor& scores, const torch::Tensor& target);

// Listwise distillation (Hinton et al. 2015, over one graph's configs as
// the classes): the teacher's softmax over -teacher / T against the
// student's over -scores / T, KL(teacher || student) times T^2 (so the
// gradient's scale does not shrink as T grows). Lower scores are faster,
// so the fastest configs carry the probability mass. 0 when the student's
// scores equal the teacher's up to a constant.
torch::Tensor listwise_distill_loss(const torch::Tensor& scores, const torch::Tensor& teacher, double temperature);

// "listmle", "hinge:0.5,listmle:1", ...: weighted sum of named losses.
struct LossSpec {
  std::vector<std::pair<std::string, double>> terms;  // name, weight
  // Throws fastslow::Error on unknown names, bad or negative weights, or an empty spec.
  static LossSpec parse(const std::string& text);
  std::string str() const;
  torch::Tensor operator()(const torch::Tensor& scores, const torch::Tensor& target) const;
};

}  // namespace fastslow::train
