#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "model_test_graphs.h"
#include "models/layout_attn.h"
#include "models/layout_focus.h"
#include "models/layout_tiling.h"
#include "fastslow/features/layout_context.h"
#include "models/model.h"
#include "models/registry.h"
#include "test_support.h"

namespace fastslow::models {
namespace {

using test::error_of;
using test::random_graph;
using test::random_layout_configs;

ModelOptions layout_options(const std::string& name, int64_t feat = 140, int64_t cfg = 18, int64_t hidden = 16) {
  ModelOptions o;
  o.kind = "layout";
  o.name = name;
  o.node_feat_width = feat;
  o.config_feat_width = cfg;
  o.hidden = hidden;
  o.layers = 3;
  return o;
}

const std::vector<std::string> kNames = {"sage", "attn", "focus"};

TEST(LayoutModels, Registry) {
  EXPECT_EQ(model_names("layout"), (std::vector<std::string>{"sage", "attn", "focus"}));
  EXPECT_EQ(default_model("layout"), "focus");
  EXPECT_EQ(baseline_model("layout"), "sage");
  const auto msg = error_of([] { make_model(layout_options("mlp")); });
  EXPECT_NE(msg.find("sage, attn, focus"), std::string::npos) << msg;
  auto o = layout_options("attn");
  o.hidden = 0;
  EXPECT_NE(error_of([&] { make_model(o); }).find("hidden"), std::string::npos);
}

TEST(LayoutModels, ShapesWidthsAndEdgeCases) {
  for (const auto& name : kNames) {
    for (auto widths : std::vector<std::pair<int64_t, int64_t>>{{140, 18}, {70, 10}}) {
      torch::manual_seed(0);
      auto model = make_model(layout_options(name, widths.first, widths.second));
      struct Case {
        int64_t n, nc;
        double edges;
      };
      for (auto c : std::vector<Case>{{40, 5, 1.5}, {1, 1, 1.5}, {15, 3, 0.0}, {10, 0, 1.5}}) {
        auto g = random_graph(c.n, widths.first, 3, c.nc, c.edges);
        for (int64_t B : {1, 7}) {
          auto s = model->forward(g, random_layout_configs(B, c.nc, widths.second));
          ASSERT_EQ(s.sizes(), (std::vector<int64_t>{B})) << name;
          EXPECT_TRUE(torch::isfinite(s).all().item<bool>()) << name << " n=" << c.n;
        }
      }
      // Values outside -1..5 (a rescaled or corrupt file) still score.
      auto g = random_graph(20, widths.first, 4, 4);
      auto s = model->forward(g, torch::randn({3, 4, widths.second}) * 100);
      EXPECT_TRUE(torch::isfinite(s).all().item<bool>()) << name;
      EXPECT_NE(error_of([&] { model->forward(g, random_layout_configs(3, 5, widths.second)); }).find("[3, 5, "),
                std::string::npos)
          << name;
      EXPECT_NE(error_of([&] { model->forward(g, torch::zeros({3, widths.second})); }), "") << name;
    }
  }
}

TEST(LayoutModels, GradientsReachEveryParameter) {
  for (const auto& name : kNames) {
    torch::manual_seed(1);
    auto model = make_model(layout_options(name));
    auto g = random_graph(40, 140, 5, 6);
    test::expect_all_grads_nonzero(*model, model->forward(g, random_layout_configs(6, 6, 18)), name);
  }
}

TEST(LayoutModels, ScoresDependOnConfigAndArePermutationEquivariant) {
  for (const auto& name : kNames) {
    torch::manual_seed(2);
    auto model = make_model(layout_options(name));
    auto g = random_graph(40, 140, 6, 6);
    auto c = random_layout_configs(9, 6, 18);
    auto s = model->forward(g, c);
    EXPECT_GT((s[0] - s[1]).abs().item<double>(), 1e-6) << name;
    auto perm = torch::randperm(9);
    auto sp = model->forward(g, c.index_select(0, perm));
    EXPECT_TRUE(torch::allclose(sp, s.index_select(0, perm), 1e-5, 1e-5)) << name;
  }
}

TEST(LayoutModels, SameSeedSameScores) {
  for (const auto& name : kNames) {
    auto g = random_graph(30, 140, 7, 4);
    auto c = random_layout_configs(5, 4, 18);
    torch::manual_seed(9);
    auto a = make_model(layout_options(name))->forward(g, c);
    torch::manual_seed(9);
    auto b = make_model(layout_options(name))->forward(g, c);
    EXPECT_TRUE(torch::equal(a, b)) << name;
  }
}

// The split forward (shared rows for nodes far from every configurable
// node) computes the dense forward's function: same scores, same gradients.
TEST(LayoutModels, AttnSplitMatchesDense) {
  struct Case {
    int64_t n, nc, B;
    double edges;
  };
  for (auto c : std::vector<Case>{{400, 6, 5, 1.5}, {60, 2, 3, 1.0}, {30, 0, 4, 1.5}, {1, 1, 2, 1.0},
                                  {50, 5, 1, 0.0}, {20, 20, 3, 1.5}}) {
    torch::manual_seed(11);
    LayoutAttn model(layout_options("attn"));
    auto g = random_graph(c.n, 140, 12, c.nc, c.edges);
    auto cfg = random_layout_configs(c.B, c.nc, 18);
    auto w = torch::randn({c.B});
    auto run = [&](bool split) {
      model->zero_grad();
      auto s = split ? model->forward_split(g, cfg) : model->forward_dense(g, cfg);
      (s * w).sum().backward();
      std::vector<torch::Tensor> grads;
      // Without configurable nodes the value embedding gets no gradient.
      for (const auto& p : model->parameters())
        grads.push_back(p.grad().defined() ? p.grad().clone() : torch::zeros_like(p));
      return std::make_pair(s.detach(), grads);
    };
    auto dense = run(false);
    auto split = run(true);
    EXPECT_TRUE(torch::allclose(split.first, dense.first, 1e-4, 1e-5)) << c.n << " " << split.first << dense.first;
    for (size_t i = 0; i < dense.second.size(); ++i)
      EXPECT_TRUE(torch::allclose(split.second[i], dense.second[i], 1e-3, 1e-5))
          << c.n << " parameter " << i << " max diff " << (split.second[i] - dense.second[i]).abs().max();
  }
}

// Ranking (no gradient) runs the focus model's stage 2 once per distinct
// (node, values, producers' layouts) and gathers; training runs it on every
// pair. Both must give the same scores, on configs that repeat most nodes'
// values (as a file's do), with producers read from the config, and with
// values a corrupt file might hold (fractions, out of range).
TEST(LayoutModels, FocusScoresDistinctPairsOnceAsTheDenseForwardDoes) {
  using C = LayoutContext;
  std::mt19937 rng(5);
  const int64_t n = 120, nc = 10, B = 24;
  torch::manual_seed(2);
  LayoutFocus model(layout_options("focus"));
  auto g = random_graph(n, 140, 9, nc);
  std::vector<float> ctx(static_cast<size_t>(nc * C::kWidth), -1.0f);
  for (int64_t i = 0; i < nc; ++i) {
    float* row = ctx.data() + i * C::kWidth;
    for (int t = 0; t < 3; ++t) {
      float* blk = row + t * C::kTensorWidth;
      const int r = 1 + static_cast<int>(rng() % 4);
      for (int s = 0; s < C::kSlots; ++s) {
        blk[C::kDims + s] = s < r ? static_cast<float>(1 + rng() % 300) : 0.0f;
        blk[C::kLayout + s] = s < r ? static_cast<float>(r - 1 - s) : -1.0f;
      }
      blk[C::kBits] = 32;
      blk[C::kPrefer0] = 0, blk[C::kPrefer1] = -1, blk[C::kAvoid] = -1;
    }
    row[C::kInProducer] = i > 0 && rng() % 2 ? static_cast<float>(rng() % i) : -1.0f;
    row[C::kKernelProducer] = i > 1 && rng() % 2 ? static_cast<float>(rng() % i) : -1.0f;
  }
  set_config_context(g, ctx, C::kWidth);
  auto cfg = random_layout_configs(1, nc, 18).repeat({B, 1, 1});
  for (int64_t b = 1; b < B; ++b)  // each config changes one or two nodes of the first
    for (int k = 0; k < 1 + b % 2; ++k) cfg[b][static_cast<int64_t>(rng() % nc)] = random_layout_configs(1, 1, 18)[0][0];
  cfg[B - 1][3][4] = 2.4f;  // rounds to 2
  cfg[B - 2][5][0] = 9.0f;  // clamps to 5
  cfg[B - 3] = cfg[0];      // a duplicate config
  model->eval();
  const torch::Tensor dense = model->forward(g, cfg).detach();
  torch::Tensor distinct;
  {
    torch::NoGradGuard no_grad;
    distinct = model->forward(g, cfg);
  }
  EXPECT_TRUE(torch::allclose(distinct, dense, 1e-5, 1e-6)) << (distinct - dense).abs().max();
  EXPECT_EQ(distinct[B - 3].item<float>(), distinct[0].item<float>());

  // The keys' distinct rows against a naive count over the key pairs.
  const auto keys = layout_stage_keys(cfg, layout_tiling_producers(cfg, torch::tensor(ctx).view({nc, C::kWidth})));
  const auto inverse = distinct_rows(keys);
  std::map<std::pair<int64_t, int64_t>, int64_t> seen;
  for (int64_t r = 0; r < keys.size(0); ++r) {
    const auto key = std::make_pair(keys[r][0].item<int64_t>(), keys[r][1].item<int64_t>());
    auto [it, fresh] = seen.emplace(key, inverse[r].item<int64_t>());
    EXPECT_EQ(it->second, inverse[r].item<int64_t>()) << "row " << r;
  }
  EXPECT_EQ(static_cast<int64_t>(seen.size()), inverse.max().item<int64_t>() + 1);
  EXPECT_LT(static_cast<int64_t>(seen.size()), B * nc / 2);
}

// The runtime depends on the layouts of a few nodes, one through a
// neighbour: each model must learn the order of the configs it trains on.
TEST(LayoutModels, OverfitTinyRankingProblem) {
  for (const auto& name : kNames) {
    torch::manual_seed(4);
    auto model = make_model(layout_options(name, 12, 18, 32));
    auto g = random_graph(30, 12, 8, 4);
    auto c = random_layout_configs(32, 4, 18);
    auto target = c.select(2, 0).eq(0).to(torch::kFloat32).matmul(torch::tensor({1.f, 2.f, -1.5f, 0.7f})) +
                  0.5 * c.select(2, 6).eq(1).to(torch::kFloat32).select(1, 1) -
                  0.8 * c.select(2, 12).select(1, 3).eq(c.select(2, 13).select(1, 3)).to(torch::kFloat32);
    torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-2));
    for (int step = 0; step < 150; ++step) {
      opt.zero_grad();
      test::pairwise_logistic(model->forward(g, c), target).backward();
      opt.step();
    }
    torch::NoGradGuard no_grad;
    const double tau = test::kendall_tau(model->forward(g, c), target);
    EXPECT_GT(tau, 0.85) << name;
  }
}

}  // namespace
}  // namespace fastslow::models
