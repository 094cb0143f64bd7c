#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "fastslow/error.h"
#include "model_test_graphs.h"
#include "models/model.h"
#include "models/registry.h"
#include "test_support.h"

namespace fastslow::models {
namespace {

using test::error_of;
using test::random_graph;

struct Variant {
  std::string name, join;
};

std::vector<Variant> tile_variants() {
  return {{"mlp", "early"}, {"sage", "early"}, {"sage", "late"}, {"gcn", "early"}, {"gcn", "late"}};
}

ModelOptions tile_options(const Variant& v, int64_t feat = 140, int64_t cfg = 24, int64_t hidden = 16) {
  ModelOptions o;
  o.kind = "tile";
  o.name = v.name;
  o.join = v.join;
  o.node_feat_width = feat;
  o.config_feat_width = cfg;
  o.hidden = hidden;
  o.layers = 2;
  return o;
}

std::string label(const Variant& v) { return "tile " + v.name + " " + v.join; }

TEST(TileModels, Registry) {
  EXPECT_EQ(model_names("tile"), (std::vector<std::string>{"mlp", "sage", "gcn"}));
  EXPECT_EQ(default_model("tile"), "mlp");  // with the tiling features and mse+hinge (options.cpp)
  EXPECT_EQ(baseline_model("tile"), "mlp");
  auto o = tile_options({"transformer", "early"});
  const auto msg = error_of([&] { make_model(o); });
  EXPECT_NE(msg.find("transformer"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mlp, sage, gcn"), std::string::npos) << msg;
  o = tile_options({"sage", "middle"});
  EXPECT_NE(error_of([&] { make_model(o); }).find("early, late"), std::string::npos);
  o.kind = "tiles";
  EXPECT_NE(error_of([&] { make_model(o); }).find("tile, layout"), std::string::npos);
  EXPECT_NE(error_of([] { model_names("graph"); }), "");
}

TEST(TileModels, ShapesWidthsAndEdgeCases) {
  for (const auto& v : tile_variants()) {
    for (auto widths : std::vector<std::pair<int64_t, int64_t>>{{140, 24}, {70, 10}, {0, 3}}) {
      torch::manual_seed(0);
      auto model = make_model(tile_options(v, widths.first, widths.second));
      for (auto [n, edges] : std::vector<std::pair<int64_t, double>>{{20, 1.5}, {1, 1.5}, {12, 0.0}}) {
        auto g = random_graph(n, widths.first, 3, 0, edges);
        for (int64_t B : {1, 5}) {
          auto s = model->forward(g, torch::randn({B, widths.second}));
          ASSERT_EQ(s.sizes(), (std::vector<int64_t>{B})) << label(v);
          EXPECT_TRUE(torch::isfinite(s).all().item<bool>()) << label(v) << " n=" << n;
        }
      }
      auto g = random_graph(5, widths.first, 3);
      EXPECT_NE(error_of([&] { model->forward(g, torch::randn({4, widths.second + 1})); }), "") << label(v);
      EXPECT_NE(error_of([&] { model->forward(g, torch::randn({0, widths.second})); }), "") << label(v);
    }
  }
}

TEST(TileModels, GradientsReachEveryParameter) {
  for (const auto& v : tile_variants()) {
    torch::manual_seed(1);
    auto model = make_model(tile_options(v));
    auto g = random_graph(30, 140, 4);
    test::expect_all_grads_nonzero(*model, model->forward(g, torch::randn({6, 24})), label(v));
  }
}

TEST(TileModels, ScoresDependOnConfigAndArePermutationEquivariant) {
  for (const auto& v : tile_variants()) {
    torch::manual_seed(2);
    auto model = make_model(tile_options(v));
    auto g = random_graph(25, 140, 5);
    auto c = torch::randn({8, 24});
    auto s = model->forward(g, c);
    EXPECT_GT((s[0] - s[1]).abs().item<double>(), 1e-6) << label(v);
    auto perm = torch::randperm(8);
    auto sp = model->forward(g, c.index_select(0, perm));
    EXPECT_TRUE(torch::allclose(sp, s.index_select(0, perm), 1e-5, 1e-5)) << label(v);
  }
}

TEST(TileModels, SameSeedSameModel) {
  for (const auto& v : tile_variants()) {
    torch::manual_seed(7);
    auto a = make_model(tile_options(v));
    torch::manual_seed(7);
    auto b = make_model(tile_options(v));
    auto pa = a->parameters(), pb = b->parameters();
    ASSERT_EQ(pa.size(), pb.size());
    for (size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(torch::equal(pa[i], pb[i])) << label(v);
  }
}

// A tiny ranking problem: the runtime is a fixed nonlinear function of the
// config features of one kernel; every model must learn its order.
TEST(TileModels, OverfitTinyRankingProblem) {
  for (const auto& v : tile_variants()) {
    torch::manual_seed(3);
    auto model = make_model(tile_options(v, 8, 6, 32));
    auto g = random_graph(12, 8, 6);
    auto c = torch::randn({24, 6});
    auto target = (c.select(1, 0) * c.select(1, 1) + c.select(1, 2).abs() - 0.5 * c.select(1, 3));
    torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(1e-2));
    for (int step = 0; step < 150; ++step) {
      opt.zero_grad();
      test::pairwise_logistic(model->forward(g, c), target).backward();
      opt.step();
    }
    torch::NoGradGuard no_grad;
    const double tau = test::kendall_tau(model->forward(g, c), target);
    EXPECT_GT(tau, 0.85) << label(v);
  }
}

}  // namespace
}  // namespace fastslow::models
