// Training options (train/options.h): what is left out gets the kind's and
// the model's default; what is given is honoured or refused, never replaced.
#include "train/options.h"

#include <gtest/gtest.h>

#include "models/registry.h"
#include "test_support.h"

namespace fastslow::train {
namespace {

TrainOptions layout_collection() {
  TrainOptions o;
  o.kind = "layout";
  o.collection = "layout:xla:random";
  return o;
}

TEST(Options, LeftOutTakesTheKindsAndTheModelsDefaults) {
  TrainOptions o = layout_collection();
  o.apply_defaults();
  EXPECT_EQ(o.model, "focus");
  EXPECT_EQ(*o.lr, models::model_entry("layout", "focus").lr);
  EXPECT_EQ(*o.eval_chunk, models::model_entry("layout", "focus").eval_chunk);
  EXPECT_EQ(*o.weight_decay, 1e-4);
  EXPECT_EQ(*o.hidden, 64);
  EXPECT_EQ(*o.layers, 3);
  EXPECT_EQ(*o.epochs, 30);
  EXPECT_FALSE(o.steps_per_epoch.has_value());  // decided from the data
  TrainOptions attn = layout_collection();
  attn.model = "attn";
  attn.apply_defaults();
  EXPECT_EQ(*attn.eval_chunk, 64);
  EXPECT_EQ(*attn.lr, 1e-3);
}

// The bug: 0 meant "default", so --weight-decay 0 trained with 1e-4 and
// --layers 0 with 3 layers.
TEST(Options, AnExplicitZeroIsHonoured) {
  TrainOptions o = layout_collection();
  o.weight_decay = 0.0;
  o.layers = 0;
  o.patience = 0;
  o.apply_defaults();
  EXPECT_EQ(*o.weight_decay, 0.0);
  EXPECT_EQ(*o.layers, 0);
  EXPECT_EQ(*o.patience, 0);
  TrainOptions program;
  program.kind = "layout";
  program.graph = "g.npz";
  program.valid_share = 0.0;  // validate on the held-out share
  program.apply_defaults();
  EXPECT_EQ(*program.valid_share, 0.0);
}

TEST(Options, AZeroThatMakesNoSenseIsRefusedNamingTheOption) {
  struct Case {
    const char* flag;
    void (*set)(TrainOptions&);
  };
  const Case cases[] = {
      {"--lr", [](TrainOptions& o) { o.lr = 0.0; }},
      {"--hidden", [](TrainOptions& o) { o.hidden = 0; }},
      {"--epochs", [](TrainOptions& o) { o.epochs = 0; }},
      {"--configs-per-graph", [](TrainOptions& o) { o.configs_per_graph = 0; }},
      {"--steps-per-epoch", [](TrainOptions& o) { o.steps_per_epoch = 0; }},
      {"--eval-chunk", [](TrainOptions& o) { o.eval_chunk = 0; }},
      {"--weight-decay", [](TrainOptions& o) { o.weight_decay = -1.0; }},
      {"--layers", [](TrainOptions& o) { o.layers = -1; }},
      {"--valid-share", [](TrainOptions& o) { o.valid_share = 1.0; }},
  };
  for (const Case& c : cases) {
    TrainOptions o = layout_collection();
    c.set(o);
    const std::string msg = test::error_of([&] { o.apply_defaults(); });
    EXPECT_EQ(msg.rfind(c.flag, 0), 0u) << c.flag << ": " << msg;
  }
}

TEST(Options, JsonRoundTripKeepsLeftOutAndOldRunsRead) {
  TrainOptions o = layout_collection();
  o.weight_decay = 0.0;
  o.apply_defaults();
  const nlohmann::json j = o.to_json();
  EXPECT_TRUE(j.at("steps_per_epoch").is_null());
  EXPECT_EQ(j.at("weight_decay"), 0.0);
  const TrainOptions back = TrainOptions::from_json(j, "config.json");
  EXPECT_EQ(back.to_json(), j);
  EXPECT_NO_THROW(back.require_resolved("config.json"));
  // Runs written when 0 meant "left out" for the steps, before the tiling
  // features, the wide table and the valid share existed.
  const TrainOptions old = TrainOptions::from_json({{"steps_per_epoch", 0}, {"kind", "tile"}}, "config.json");
  EXPECT_FALSE(old.steps_per_epoch.has_value());
  EXPECT_EQ(*old.tile_features, 0);
  EXPECT_EQ(*old.wide, 0);
  EXPECT_EQ(*old.valid_share, 0.0);
  EXPECT_NE(test::error_of([&] { old.require_resolved("run/config.json"); }).find("run/config.json"),
            std::string::npos);
  EXPECT_NE(test::error_of([] { TrainOptions::from_json({{"lr", "fast"}}, "c.json"); }).find("c.json"),
            std::string::npos);
}

}  // namespace
}  // namespace fastslow::train
