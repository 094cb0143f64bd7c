#include "train/dataset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "fastslow/error.h"
#include "fastslow/synth/dataset.h"
#include "fastslow/features/tile_features.h"
#include "graph_builders.h"
#include "test_support.h"

namespace fastslow::train {
namespace {

using test::SmallLayout;
using test::SmallTile;

CachedGraph cached(const test::TempDir& dir, const std::string& name, const test::GraphArrays& a) {
  const std::string src = dir.file(name);
  test::write_bytes(src, a.bytes());
  return CachedGraph::open(src, {dir.file("cache"), 1});
}

TEST(Dataset, NormalizerRoundTripsThroughJson) {
  test::TempDir dir;
  const CachedGraph t = cached(dir, "t.npz", SmallTile::arrays());
  const Normalizer n = fit_normalizer(GraphKind::Tile, {&t}, false);
  EXPECT_EQ(n.node.width(), SmallTile::kNodeFeatWidth);
  EXPECT_EQ(n.config.width(), SmallTile::kConfigFeatWidth);
  const Normalizer back = Normalizer::from_json(n.to_json(), "stats.json");
  EXPECT_EQ(back.node.mean, n.node.mean);
  EXPECT_EQ(back.config.stddev, n.config.stddev);
  EXPECT_THROW(Normalizer::from_json(nlohmann::json::object(), "stats.json"), Error);
}

TEST(Dataset, LayoutBatchHoldsRawConfigValuesAndStandardisedTargets) {
  test::TempDir dir;
  CachedGraph c = cached(dir, "l.npz", SmallLayout::arrays());
  const Normalizer n = fit_normalizer(GraphKind::Layout, {&c}, false);
  GraphEntry e = make_entry(std::move(c), n, torch::kCPU);
  set_targets(&e);
  // Groups: {0,3} best 400, {1,4} best 700, {2} 300.
  ASSERT_EQ(e.group_target.size(), 3u);
  double mean = 0;
  for (float t : e.group_target) mean += t;
  EXPECT_NEAR(mean / 3, 0.0, 1e-6);
  EXPECT_LT(e.group_target[2], e.group_target[0]);
  EXPECT_LT(e.group_target[0], e.group_target[1]);

  const Batch b = make_batch(e, {2, 0}, n, torch::kCPU);
  ASSERT_EQ(b.config_feat.sizes(), (std::vector<int64_t>{2, 3, SmallLayout::kConfigFeatWidth}));
  const std::vector<float> all = SmallLayout::config_feat();
  EXPECT_EQ(b.config_feat[0][0][0].item<float>(), all[2 * 12]);  // config 2, node 1, column 0
  EXPECT_FLOAT_EQ(b.target[1].item<float>(), e.group_target[0]);
  // Node features are standardised: every column has mean ~0 over the kept nodes.
  const torch::Tensor col_mean = e.tensors.node_feat.mean(0);
  EXPECT_LT(col_mean.abs().max().item<float>(), 1e-4);
}

TEST(Dataset, TileBatchIsNormalised) {
  test::TempDir dir;
  CachedGraph c = cached(dir, "t.npz", SmallTile::arrays());
  const Normalizer n = fit_normalizer(GraphKind::Tile, {&c}, false);
  const GraphEntry e = make_entry(std::move(c), n, torch::kCPU);
  const Batch b = make_batch(e, {0, 1, 2}, n, torch::kCPU);
  ASSERT_EQ(b.config_feat.sizes(), (std::vector<int64_t>{3, SmallTile::kConfigFeatWidth}));
  // All three unique rows: each column standardised to mean 0.
  EXPECT_LT(b.config_feat.mean(0).abs().max().item<float>(), 1e-4);
}

TEST(Dataset, TileBatchAppendsTheCoresTilingFeatures) {
  test::TempDir dir;
  const std::vector<synth::SynthItem> plan = synth::synth_plan(synth::SynthScale::Tiny, 7);
  const auto item = std::find_if(plan.begin(), plan.end(), [](const synth::SynthItem& i) { return i.tile(); });
  ASSERT_NE(item, plan.end());
  synth::synth_write(dir.path(), *item);
  CachedGraph c = CachedGraph::open(dir.file(item->path), {dir.file("cache"), 1});
  const Normalizer n = fit_normalizer(GraphKind::Tile, {&c}, true);
  ASSERT_TRUE(n.tile_features);
  ASSERT_EQ(n.config.width(), kTileConfigColumns + kTileDerived);
  EXPECT_TRUE(Normalizer::from_json(n.to_json(), "stats.json").tile_features);

  const std::vector<int64_t> groups = {2, 0, 1};
  std::vector<float> want =
      with_tile_features(tile_context(c.pruned.num_nodes(), c.node_feat_width, c.node_feat), c.config_rows(groups), 3);
  n.config.apply(want.data(), 3);
  const GraphEntry e = make_entry(std::move(c), n, torch::kCPU);
  const Batch b = make_batch(e, groups, n, torch::kCPU);
  ASSERT_EQ(b.config_feat.sizes(), (std::vector<int64_t>{3, kTileConfigColumns + kTileDerived}));
  const torch::Tensor expect = torch::from_blob(want.data(), {3, kTileConfigColumns + kTileDerived}, torch::kFloat32);
  EXPECT_TRUE(torch::equal(b.config_feat, expect));
  // Some derived column varies across configs (the features are not all zero).
  EXPECT_GT(b.config_feat.slice(1, kTileConfigColumns).std(0).max().item<float>(), 0.1f);

  // Hand-made files without the 24 published columns train on their own.
  test::TempDir other;
  const CachedGraph t = cached(other, "t.npz", SmallTile::arrays());
  EXPECT_FALSE(fit_normalizer(GraphKind::Tile, {&t}, true).tile_features);
}

TEST(Dataset, RefusesGraphsOfOtherWidths) {
  test::TempDir dir;
  CachedGraph c = cached(dir, "l.npz", SmallLayout::arrays());
  Normalizer n = fit_normalizer(GraphKind::Layout, {&c}, false);
  n.node.mean.push_back(0);
  n.node.stddev.push_back(1);
  n.node.log_scale.push_back(0);
  const std::string msg = test::error_of([&] { make_entry(std::move(c), n, torch::kCPU); });
  EXPECT_NE(msg.find("l.npz"), std::string::npos) << msg;
  EXPECT_NE(msg.find("trained on 8"), std::string::npos) << msg;
}

}  // namespace
}  // namespace fastslow::train
