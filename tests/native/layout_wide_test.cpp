#include "models/layout_wide.h"
#include "models/registry.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <string>

#include "fastslow/error.h"
#include "model_test_graphs.h"
#include "models/program_model.h"
#include "test_support.h"

namespace fastslow::models {
namespace {

// The table read one config, node and column at a time.
double naive_score(LayoutWideImpl& w, const torch::Tensor& config, int64_t b) {
  const int64_t nc = w.config_nodes(), width = w.config_width();
  const auto c = config.contiguous();
  double s = 0;
  for (int64_t j = 0; j < nc; ++j) {
    int64_t code = 0, p = 1;
    for (int64_t k = 0; k < width; ++k, p *= 7) {
      float v = c[b][j][k].item<float>();
      const int64_t idx = static_cast<int64_t>(std::min(5.0f, std::max(-1.0f, std::round(v)))) + 1;
      s += w.value_weight[(j * width + k) * 7 + idx].item<double>();
      code += idx * p;
    }
    if (!w.uses_rows()) continue;
    for (int64_t r = 0; r < LayoutWideImpl::kRowSlots; ++r)
      if (w.rows[j][r].item<int64_t>() == code) s += w.row_weight[j][r].item<double>();
  }
  return s;
}

TEST(LayoutWide, ScoresAreTableLookups) {
  torch::manual_seed(3);
  LayoutWide w(5, 18);
  torch::NoGradGuard no_grad;
  w->value_weight.normal_();
  w->row_weight.normal_();
  const torch::Tensor config = test::random_layout_configs(12, 5, 18);
  // Keep the rows of configs 0 and 3 (node by node) so some match.
  const torch::Tensor codes = LayoutWideImpl::row_codes(config);
  w->rows.select(1, 0).copy_(codes[0]);
  w->rows.select(1, 1).copy_(codes[3]);
  const torch::Tensor s = w(config);
  ASSERT_EQ(s.sizes(), torch::IntArrayRef({12}));
  for (int64_t b = 0; b < 12; ++b) EXPECT_NEAR(s[b].item<double>(), naive_score(*w, config, b), 1e-4) << b;
  // A row kept for a node adds its weight: config 0 gets node 0's first row weight.
  torch::Tensor no_rows = w->rows.clone();
  w->rows.fill_(-1);
  const torch::Tensor without = w(config);
  w->rows.copy_(no_rows);
  EXPECT_NEAR(s[0].item<double>() - without[0].item<double>(), w->row_weight.select(1, 0).sum().item<double>(), 1e-4);
}

TEST(LayoutWide, RowCodesAreExactAndValuesRoundIntoRange) {
  // (v + 1) * 7^column: 18 columns of 5 (index 6) is 6 * (7^18 - 1) / 6 = 7^18 - 1.
  const torch::Tensor all_five = torch::full({1, 1, 18}, 5.0f);
  EXPECT_EQ(LayoutWideImpl::row_codes(all_five).item<int64_t>(), 1628413597910448ll);  // 7^18 - 1
  const torch::Tensor odd = torch::tensor({-3.0f, 9.0f, 1.4f, 1.6f}).view({1, 1, 4});
  // -3 -> -1 (index 0), 9 -> 5 (6), 1.4 -> 1 (2), 1.6 -> 2 (3)
  EXPECT_EQ(LayoutWideImpl::row_codes(odd).item<int64_t>(), 0 + 6 * 7 + 2 * 49 + 3 * 343);
}

TEST(LayoutWide, WideConfigsUseTheValueTableOnly) {
  LayoutWide w(2, 23);  // 7^23 overflows int64
  EXPECT_FALSE(w->uses_rows());
  torch::NoGradGuard no_grad;
  w->value_weight.fill_(0.5);
  EXPECT_NEAR(w(test::random_layout_configs(3, 2, 23))[0].item<double>(), 0.5 * 2 * 23, 1e-4);
}

TEST(LayoutWide, AnotherGraphsConfigsAreRefusedByShape) {
  LayoutWide w(4, 18);
  const std::string e = test::error_of([&] { w(test::random_layout_configs(2, 5, 18)); });
  EXPECT_NE(e.find("4 configurable nodes"), std::string::npos) << e;
  EXPECT_NE(e.find("one program"), std::string::npos) << e;
  EXPECT_NE(test::error_of([] { LayoutWide(0, 18); }).find("configurable nodes"), std::string::npos);
}

TEST(ProgramModel, StartsAsTheTableAndTrainsOnlyTheDeepPart) {
  torch::manual_seed(1);
  ModelOptions o;
  o.name = "focus";
  o.node_feat_width = 8;
  o.config_feat_width = 18;
  o.hidden = 16;
  o.layers = 1;
  o.wide_nodes = 6;
  const RankModel m = make_model(o);
  auto* p = dynamic_cast<ProgramModelImpl*>(m.get());
  ASSERT_NE(p, nullptr);
  const models::GraphTensors g = test::random_graph(40, 8, 2, 6);
  const torch::Tensor config = test::random_layout_configs(7, 6, 18);
  {
    torch::NoGradGuard no_grad;
    p->wide->value_weight.normal_();
  }
  // Gate 0: the model is its table.
  EXPECT_TRUE(torch::allclose(m->forward(g, config), p->wide(config)));
  // The table is fitted, not trained: the optimizer's list leaves it out.
  for (const auto& t : p->trained_parameters()) {
    EXPECT_FALSE(t.is_same(p->wide->value_weight));
    EXPECT_FALSE(t.is_same(p->wide->row_weight));
  }
  EXPECT_FALSE(p->wide->value_weight.requires_grad());
  {
    torch::NoGradGuard no_grad;
    p->gate.fill_(0.7);
    p->scale.fill_(0.01);
  }
  const torch::Tensor deep = p->deep->forward(g, config);
  EXPECT_TRUE(torch::allclose(m->forward(g, config), p->wide(config) + 0.007 * deep, 1e-5, 1e-6));
  // A wide table is for layout graphs only.
  o.kind = "tile";
  o.name = "mlp";
  EXPECT_NE(test::error_of([&] { make_model(o); }).find("layout"), std::string::npos);
}

}  // namespace
}  // namespace fastslow::models
