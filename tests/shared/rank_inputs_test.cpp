#include "fastslow/rank/rank_inputs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

#include "fastslow/error.h"
#include "fastslow/data/graph_cache.h"
#include "fastslow/features/feature_stats.h"
#include "fastslow/io/npz_reader.h"
#include "graph_builders.h"
#include "test_support.h"

namespace fastslow {
namespace {

using test::SmallLayout;
using test::SmallTile;

// A card whose statistics are fitted on the graph itself.
ModelCard card_for(const CachedGraph& g, int64_t chunk) {
  ModelCard c;
  c.kind = g.kind;
  c.model = "attn";
  c.node_feat_width = g.node_feat_width;
  c.config_feat_width = g.kind == GraphKind::Tile ? g.config_row_elems : g.config_feat_width;
  FeatureStatsBuilder node(g.node_feat_width);
  node.add(g.node_feat.data(), g.pruned.num_nodes());
  c.node_stats = node.finish();
  if (g.kind == GraphKind::Tile) {
    FeatureStatsBuilder cfg(g.config_row_elems);
    std::vector<int64_t> all(static_cast<size_t>(g.groups.num_groups()));
    std::iota(all.begin(), all.end(), 0);
    const std::vector<float> rows = g.config_rows(all);
    cfg.add(rows.data(), g.groups.num_groups());
    c.config_stats = cfg.finish();
  }
  c.khop = 1;
  c.chunk = chunk;
  return c;
}

TEST(RankInputs, LayoutGraphInputsArePrunedAndNormalised) {
  test::TempDir dir;
  const std::string src = dir.file("l.npz");
  test::write_bytes(src, SmallLayout::arrays().bytes());
  const CachedGraph g = CachedGraph::open(src, {dir.file("cache"), 1});
  const ModelCard card = card_for(g, 2);
  const RankGraphInputs in = rank_graph_inputs(g, card);
  EXPECT_EQ(in.num_nodes, g.pruned.num_nodes());
  EXPECT_EQ(in.edge_index, g.pruned.edge_index);
  EXPECT_EQ(in.config_nodes, g.pruned.config_positions);
  ASSERT_EQ(in.node_opcode.size(), g.node_opcode.size());
  for (size_t i = 0; i < in.node_opcode.size(); ++i) EXPECT_EQ(in.node_opcode[i], g.node_opcode[i]);
  // Standardised against the card: each column now has mean 0.
  for (int64_t col = 0; col < in.node_feat_width; ++col) {
    double sum = 0;
    for (int64_t r = 0; r < in.num_nodes; ++r) sum += in.node_feat[r * in.node_feat_width + col];
    EXPECT_NEAR(sum / static_cast<double>(in.num_nodes), 0.0, 1e-5) << col;
  }
  // Layout config rows go to the model raw.
  EXPECT_EQ(rank_config_batch(g, {2, 0}, card), g.config_rows({2, 0}));
}

TEST(RankInputs, TileConfigRowsAreStandardisedWithTheCard) {
  test::TempDir dir;
  const std::string src = dir.file("t.npz");
  test::write_bytes(src, SmallTile::arrays().bytes());
  const CachedGraph g = CachedGraph::open(src, {dir.file("cache"), 1});
  const ModelCard card = card_for(g, 3);
  EXPECT_TRUE(rank_graph_inputs(g, card).config_nodes.empty());
  const std::vector<float> raw = g.config_rows({1});
  const std::vector<float> got = rank_config_batch(g, {1}, card);
  ASSERT_EQ(got.size(), raw.size());
  for (size_t k = 0; k < raw.size(); ++k) {
    const double x = card.config_stats.log_scale[k] ? std::log1p(std::max<double>(raw[k], 0)) : raw[k];
    EXPECT_NEAR(got[k], (x - card.config_stats.mean[k]) / card.config_stats.stddev[k], 1e-6) << k;
  }
}

TEST(RankInputs, ACardThatDoesNotFitIsRefusedBeforeAnythingIsPrepared) {
  test::TempDir dir;
  const std::string src = dir.file("l.npz");
  test::write_bytes(src, SmallLayout::arrays().bytes());
  const CachedGraph g = CachedGraph::open(src, {dir.file("cache"), 1});
  ModelCard card = card_for(g, 2);
  card.node_feat_width = 140;
  const std::string msg = test::error_of([&] { rank_graph_inputs(g, card); });
  EXPECT_NE(msg.find("l.npz"), std::string::npos) << msg;
  EXPECT_NE(msg.find("trained on 140"), std::string::npos) << msg;
}

TEST(RankInputs, ChunksCoverTheGroupsInOrder) {
  std::vector<int64_t> groups(10);
  std::iota(groups.begin(), groups.end(), 100);
  EXPECT_EQ(rank_chunk_count(10, 4), 3);
  EXPECT_EQ(rank_chunk_count(8, 4), 2);
  EXPECT_EQ(rank_chunk_count(0, 4), 0);
  EXPECT_EQ(rank_chunk(groups, 4, 0), (std::vector<int64_t>{100, 101, 102, 103}));
  EXPECT_EQ(rank_chunk(groups, 4, 2), (std::vector<int64_t>{108, 109}));
  EXPECT_THROW(rank_chunk(groups, 4, 3), Error);
  EXPECT_THROW(rank_chunk_count(10, 0), Error);
}

TEST(RankInputs, RankingExpandsGroupsRepresentativeFirst) {
  // Configs 0..5; groups {0, 3}, {1, 4, 5}, {2}; representatives 3, 1, 2.
  ConfigGroups cg;
  cg.group_of = {0, 1, 2, 0, 1, 1};
  cg.representative = {3, 1, 2};
  cg.best_runtime = {1, 2, 3};
  cg.group_size = {2, 3, 1};
  const std::vector<int64_t> all = {0, 1, 2};
  EXPECT_EQ(rank_configs(cg, all, {0.5, -1.0, 0.7}), (std::vector<int64_t>{1, 4, 5, 3, 0, 2}));
  // A subset of groups ranks only their members.
  EXPECT_EQ(rank_configs(cg, {2, 0}, {0.1, 0.2}), (std::vector<int64_t>{2, 3, 0}));
  EXPECT_THROW(rank_configs(cg, all, {0.1}), Error);
  // Metrics of the ranking: the best config first gives zero top-1 error.
  const std::vector<double> runtime = {5, 1, 9, 4, 2, 3};
  const GraphMetrics m = evaluate_ranking(rank_configs(cg, all, {0.5, -1.0, 0.7}), runtime, cg);
  EXPECT_DOUBLE_EQ(m.top1, 0.0);
  EXPECT_EQ(m.configs, 6);
  EXPECT_FALSE(std::isnan(m.kendall));
}

// The real rnn file holds one config measured 20 times: its order in any
// ranking is index order against noise, so Kendall and OPA are undefined
// (they read 0.28 before); the best is still found, so top-k errors are 0.
TEST(RankInputs, OneDistinctConfigHasNoKendall) {
  const CachedGraph g = CachedGraph::in_memory(
      NpzReader::open(test::data_file("real/layout_xla_random_train_openai_v0_rnn_optimized.npz")), 1);
  ASSERT_EQ(g.groups.num_groups(), 1);
  ASSERT_EQ(g.num_configs, 20);
  const GraphMetrics m = evaluate_ranking(rank_configs(g.groups, {0}, {0.5}), g.runtime, g.groups);
  EXPECT_EQ(m.configs, 20);
  EXPECT_TRUE(std::isnan(m.kendall));
  EXPECT_TRUE(std::isnan(m.opa));
  EXPECT_DOUBLE_EQ(m.top1, 0.0);
  // Two of its duplicates with two made-up distinct groups: defined again.
  ConfigGroups two;
  two.group_of = {0, 1};
  EXPECT_FALSE(std::isnan(evaluate_ranking({0, 1}, {1.0, 2.0}, two).kendall));
}

}  // namespace
}  // namespace fastslow
