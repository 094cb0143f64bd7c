// The model table (models/registry.h): what the trainer, --help and the
// exporter read.
#include "models/registry.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>

#include "model_test_graphs.h"
#include "test_support.h"

namespace fastslow::models {
namespace {

ModelOptions options_for(const ModelEntry& e, int64_t layers) {
  ModelOptions o;
  o.kind = e.kind;
  o.name = e.name;
  o.node_feat_width = 140;
  o.config_feat_width = e.kind == "tile" ? 24 : 18;
  o.hidden = 16;
  o.layers = layers;
  return o;
}

TEST(Registry, EachKindHasOneDefaultAndOneBaselineAndUniqueNames) {
  for (const char* kind : {"tile", "layout"}) {
    int defaults = 0, baselines = 0;
    std::set<std::string> names;
    for (const ModelEntry& e : model_registry()) {
      if (e.kind != kind) continue;
      defaults += (e.role & kDefault) != 0;
      baselines += (e.role & kBaseline) != 0;
      EXPECT_TRUE(names.insert(e.name).second) << kind << " " << e.name << " twice";
      EXPECT_GT(e.lr, 0) << e.name;
      EXPECT_GE(e.eval_chunk, 1) << e.name;
      EXPECT_EQ(&model_entry(kind, e.name), &e);
    }
    EXPECT_EQ(defaults, 1) << kind;
    EXPECT_EQ(baselines, 1) << kind;
    EXPECT_EQ(model_names(kind).size(), names.size()) << kind;
  }
  const std::string msg = test::error_of([] { model_entry("layout", "transformer"); });
  EXPECT_NE(msg.find("sage, attn, focus"), std::string::npos) << msg;
}

TEST(Registry, HelpListsEveryModelAndTheDefaultsByValue) {
  const std::string help = models_help();
  for (const ModelEntry& e : model_registry()) EXPECT_NE(help.find(e.name), std::string::npos) << e.name;
  EXPECT_NE(help.find("(default focus)"), std::string::npos) << help;
  const std::string chunks = model_defaults_help([](const ModelEntry& e) { return std::to_string(e.eval_chunk); });
  EXPECT_NE(chunks.find("64 (layout attn)"), std::string::npos) << chunks;
}

// Every row builds through make_model and scores a batch, with the default
// 3 graph layers and with none (an explicit --layers 0 is honoured).
TEST(Registry, EveryModelBuildsAndScoresWithAndWithoutGraphLayers) {
  const GraphTensors g = test::random_graph(40, 140, 3, 6);
  for (const ModelEntry& e : model_registry())
    for (int64_t layers : {3, 0}) {
      torch::manual_seed(0);
      RankModel m = make_model(options_for(e, layers));
      const torch::Tensor feat = e.kind == "tile" ? torch::randn({5, 24}) : test::random_layout_configs(5, 6, 18);
      const torch::Tensor s = m->forward(g, feat);
      EXPECT_EQ(s.sizes(), (std::vector<int64_t>{5})) << e.kind << " " << e.name << " layers " << layers;
      EXPECT_TRUE(torch::isfinite(s).all().item<bool>()) << e.kind << " " << e.name << " layers " << layers;
    }
}

}  // namespace
}  // namespace fastslow::models
