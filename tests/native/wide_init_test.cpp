#include "train/wide_init.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "baselines/ridge.h"
#include "fastslow/data/holdout.h"
#include "fastslow/rank/metrics.h"
#include "graph_builders.h"
#include "test_support.h"

namespace fastslow::train {
namespace {

// SmallLayout's graph with 400 configs of its 3 configurable nodes x 4
// columns. Runtime = exp(additive effects of single values + an interaction:
// node 0 is slow only when its columns 0 and 1 are both 1), the shape of the
// effect that makes real unet3d configs 3x slower.
struct Interacting {
  static constexpr int64_t kConfigs = 400, kNodes = 3, kWidth = 4;
  std::vector<float> feat;
  std::vector<int64_t> runtime;
  explicit Interacting(bool interaction = true) {
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> bit(0, 1), val(-1, 3);
    for (int64_t c = 0; c < kConfigs; ++c) {
      double log_t = 10.0;
      for (int64_t j = 0; j < kNodes; ++j) {
        const float a = static_cast<float>(bit(rng)), b = static_cast<float>(bit(rng)), x = static_cast<float>(val(rng));
        feat.insert(feat.end(), {a, b, x, -1.0f});
        log_t += 0.05 * static_cast<double>(j + 1) * x;        // additive
        if (interaction && j == 0 && a == 1 && b == 1) log_t += 0.8;
      }
      runtime.push_back(static_cast<int64_t>(std::exp(log_t) * 1000.0));
    }
  }
  test::GraphArrays arrays() const {
    test::GraphArrays a = test::SmallLayout::arrays();
    a.set("node_config_feat", feat, {kConfigs, kNodes, kWidth});
    a.set("config_runtime", runtime, {kConfigs});
    return a;
  }
};

struct Split {
  GraphEntry fit, valid, held;
  Normalizer norm;
};

Split entries(const test::TempDir& dir, bool interaction = true) {
  const std::string src = dir.file("program.npz");
  test::write_bytes(src, Interacting(interaction).arrays().bytes());
  CachedGraph c = CachedGraph::open(src, {dir.file("cache"), 1});
  Split s;
  s.norm = fit_normalizer(GraphKind::Layout, {&c}, false);
  const HoldoutSplit h = split_program(c.groups.num_groups(), 0.2, 0.2, 3);
  s.fit = make_entry(CachedGraph::open(src, {dir.file("cache"), 1}), s.norm, torch::kCPU);
  s.fit.train_groups = h.train;
  s.fit.eval_groups = h.train;
  set_targets(&s.fit);
  s.valid = s.fit;
  s.valid.eval_groups = h.valid;
  s.held = s.fit;
  s.held.eval_groups = h.holdout;
  return s;
}

std::vector<double> table_scores(models::LayoutWideImpl& w, const GraphEntry& e) {
  const Batch b = make_batch(e, e.eval_groups, Normalizer{}, torch::kCPU);
  torch::NoGradGuard no_grad;
  const torch::Tensor s = w.forward(b.config_feat).to(torch::kFloat64).contiguous();
  return std::vector<double>(s.data_ptr<double>(), s.data_ptr<double>() + s.numel());
}

std::vector<double> best(const GraphEntry& e) {
  std::vector<double> out;
  for (int64_t g : e.eval_groups) out.push_back(e.cache.groups.best_runtime[static_cast<size_t>(g)]);
  return out;
}

TEST(WideInit, TheTableLearnsAnInteractionWithinANodeThatValuesAloneMiss) {
  test::TempDir dir;
  const Split s = entries(dir);
  models::LayoutWide w(Interacting::kNodes, Interacting::kWidth);
  const WideFit f = fit_wide_table(*w, s.fit, s.valid, 0);
  EXPECT_TRUE(f.rows);
  EXPECT_GT(f.valid_kendall, 0.95);
  EXPECT_EQ(f.rows_used, static_cast<int64_t>(s.fit.train_groups.size()));
  EXPECT_GT(f.features, 0);
  const double table = kendall_tau(table_scores(*w, s.held), best(s.held));
  // Ridge on single values, the baseline, cannot express it.
  baselines::OneHotRidge values;
  std::vector<double> y;
  for (int64_t g : s.fit.train_groups) y.push_back(std::log(s.fit.cache.groups.best_runtime[static_cast<size_t>(g)]));
  values.fit(s.fit.cache.config_rows(s.fit.train_groups), s.fit.cache.config_row_elems, y, 1e-3);
  const double alone = kendall_tau(values.predict(s.held.cache.config_rows(s.held.eval_groups)), best(s.held));
  std::printf("held-out Kendall: wide table %.4f, ridge on values %.4f\n", table, alone);
  EXPECT_GT(table, 0.95);
  EXPECT_GT(table, alone + 0.05);
}

TEST(WideInit, TheTableScoresWhatRidgeOnItsDesignPredicts) {
  // Reference: the same ridge fitted directly on the design the table
  // stands for (values, then each node's row index), at the chosen penalty.
  test::TempDir dir;
  const Split s = entries(dir);
  models::LayoutWide w(Interacting::kNodes, Interacting::kWidth);
  const WideFit f = fit_wide_table(*w, s.fit, s.valid, 0);
  const int64_t nc = Interacting::kNodes, width = Interacting::kWidth;
  auto design = [&](const GraphEntry& e, const std::vector<int64_t>& groups) {
    const std::vector<float> rows = e.cache.config_rows(groups);
    std::vector<float> out;
    for (size_t r = 0; r < groups.size(); ++r) {
      const float* in = rows.data() + r * static_cast<size_t>(nc * width);
      out.insert(out.end(), in, in + nc * width);
      for (int64_t j = 0; j < nc; ++j) {
        int64_t code = 0, p = 1;
        for (int64_t k = 0; k < width; ++k, p *= 7) code += (static_cast<int64_t>(in[j * width + k]) + 1) * p;
        float index = -1;
        for (int64_t slot = 0; slot < models::LayoutWideImpl::kRowSlots; ++slot)
          if (w->rows[j][slot].item<int64_t>() == code) index = static_cast<float>(slot);
        out.push_back(index);
      }
    }
    return out;
  };
  std::vector<double> y;
  for (int64_t g : s.fit.train_groups) y.push_back(s.fit.group_target[static_cast<size_t>(g)]);
  baselines::OneHotRidge ref;
  ref.fit(design(s.fit, s.fit.train_groups), nc * width + nc, y, f.lambda);
  const std::vector<double> want = ref.predict(design(s.held, s.held.eval_groups));
  const std::vector<double> got = table_scores(*w, s.held);
  ASSERT_EQ(want.size(), got.size());
  // Equal up to one constant (the intercept and the "other rows" shifts).
  const double shift = want[0] - got[0];
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(want[i] - got[i], shift, 1e-4) << i;
}

// Without the interaction whole rows only memorise configs: with 80 valid
// configs they must beat the values alone by Kendall's noise over them, so
// the values are kept, and the table scores what ridge on the values
// alone predicts at the chosen penalty.
TEST(WideInit, RowsThatDoNotBeatTheValuesByTheNoiseAreLeftOut) {
  test::TempDir dir;
  const Split s = entries(dir, false);
  ASSERT_GE(static_cast<int64_t>(s.valid.eval_groups.size()), kFewValid);
  models::LayoutWide w(Interacting::kNodes, Interacting::kWidth);
  const WideFit f = fit_wide_table(*w, s.fit, s.valid, 0);
  EXPECT_FALSE(f.rows);
  EXPECT_FALSE(f.fitted_valid);
  EXPECT_EQ(w->row_weight.abs().sum().item<double>(), 0.0);
  std::vector<double> y;
  for (int64_t g : s.fit.train_groups) y.push_back(s.fit.group_target[static_cast<size_t>(g)]);
  baselines::OneHotRidge ref;
  ref.fit(s.fit.cache.config_rows(s.fit.train_groups), s.fit.cache.config_row_elems, y, f.lambda);
  EXPECT_EQ(f.features, ref.num_features());
  const std::vector<double> want = ref.predict(s.held.cache.config_rows(s.held.eval_groups));
  const std::vector<double> got = table_scores(*w, s.held);
  ASSERT_EQ(want.size(), got.size());
  const double shift = want[0] - got[0];
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(want[i] - got[i], shift, 1e-4) << i;
  EXPECT_NEAR(f.valid_kendall, kendall_tau(ref.predict(s.valid.cache.config_rows(s.valid.eval_groups)), best(s.valid)), 1e-9);
}

}  // namespace
}  // namespace fastslow::train
