// Small random graphs and checks shared by the model and graph-op suites.
#pragma once

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "models/model.h"
#include "models/graph_tensors.h"

namespace fastslow::test {

// A random DAG like an HLO graph: node i reads about edges_per_node earlier
// nodes (repeats allowed, as in real files), every `every`-th node is configurable.
inline models::GraphTensors random_graph(int64_t n, int64_t feat_width, uint32_t seed, int64_t num_config = 0,
                                        double edges_per_node = 1.5) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> feat(n * feat_width);
  for (auto& f : feat) f = normal(rng);
  std::vector<int32_t> op(n);
  for (auto& o : op) o = static_cast<int32_t>(rng() % 121);
  std::vector<int64_t> edges;
  std::uniform_real_distribution<double> unit(0, 1);
  for (int64_t u = 1; u < n; ++u) {
    const auto whole = static_cast<int>(edges_per_node);
    const int k = whole + (unit(rng) < edges_per_node - whole ? 1 : 0);
    for (int j = 0; j < k; ++j) {
      edges.push_back(u);
      edges.push_back(static_cast<int64_t>(rng() % u));
    }
  }
  std::vector<int64_t> config;
  std::set<int64_t> picked;
  while (static_cast<int64_t>(picked.size()) < std::min(num_config, n)) picked.insert(rng() % n);
  config.assign(picked.begin(), picked.end());
  return models::make_graph_tensors(n, feat_width, feat, op, edges, config);
}

// Layout values in -1..5 as floats: [B, nc, Fc].
inline torch::Tensor random_layout_configs(int64_t B, int64_t nc, int64_t width) {
  return torch::randint(-1, 6, {B, nc, width}, torch::kFloat32);
}

// Kendall-like agreement of scores a with targets b over the pairs with
// distinct targets: +1 per concordant pair, -1 otherwise (tied scores too).
inline double kendall_tau(const torch::Tensor& a, const torch::Tensor& b) {
  auto x = a.to(torch::kFloat64).contiguous(), y = b.to(torch::kFloat64).contiguous();
  const auto* p = x.data_ptr<double>();
  const auto* q = y.data_ptr<double>();
  const int64_t n = x.numel();
  int64_t concordant = 0, total = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      if (q[i] == q[j]) continue;
      ++total;
      concordant += ((p[i] - p[j]) * (q[i] - q[j]) > 0) ? 1 : -1;
    }
  return total ? static_cast<double>(concordant) / total : 1.0;
}

// Pairwise logistic ranking loss (lower score = lower target), so these
// tests do not depend on the trainer's losses.
inline torch::Tensor pairwise_logistic(const torch::Tensor& scores, const torch::Tensor& target) {
  auto ds = scores.unsqueeze(1) - scores.unsqueeze(0);      // s_i - s_j
  auto dt = (target.unsqueeze(1) - target.unsqueeze(0)).sign();  // sign(t_i - t_j)
  auto mask = dt.ne(0);
  return torch::nn::functional::softplus(-dt * ds).masked_select(mask).mean();
}

// Every parameter gets a nonzero gradient from a random weighting of the
// scores (a plain sum could hide parameters whose effects cancel).
inline void expect_all_grads_nonzero(models::RankModelImpl& model, const torch::Tensor& scores,
                                     const std::string& what) {
  model.zero_grad();
  auto w = torch::randn_like(scores);
  (scores * w).sum().backward();
  for (const auto& p : model.named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << what << ": no grad for " << p.key();
    EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0.0) << what << ": zero grad for " << p.key();
  }
}

}  // namespace fastslow::test
