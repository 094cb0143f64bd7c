#include "fastslow/graph/node_effects.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/rng.h"
#include "test_support.h"

namespace fastslow {
namespace {

// The share straight from the definition: group the measured configs by the
// node's row (a std::map on the values), between-group over total sum of
// squares of log runtime.
double direct_share(const LayoutGraph& g, int64_t j) {
  const int64_t nc = g.num_configurable(), w = g.config_feat_width;
  std::map<std::vector<float>, std::vector<double>> groups;
  std::vector<double> all;
  for (int64_t c = 0; c < g.num_configs; ++c) {
    if (g.config_runtime[static_cast<size_t>(c)] <= 0) continue;
    const float* row = g.node_config_feat.data() + (c * nc + j) * w;
    const double y = std::log(static_cast<double>(g.config_runtime[static_cast<size_t>(c)]));
    groups[std::vector<float>(row, row + w)].push_back(y);
    all.push_back(y);
  }
  double mean = 0, total = 0, between = 0;
  for (double y : all) mean += y / static_cast<double>(all.size());
  for (double y : all) total += (y - mean) * (y - mean);
  for (const auto& [row, ys] : groups) {
    double m = 0;
    for (double y : ys) m += y / static_cast<double>(ys.size());
    between += static_cast<double>(ys.size()) * (m - mean) * (m - mean);
  }
  return between / total;
}

// Omega squared from its definition: (SSb - (k-1) MSw) / (SSt + MSw), 0 at least.
double direct_adjusted(const LayoutGraph& g, int64_t j) {
  const int64_t nc = g.num_configurable(), w = g.config_feat_width;
  std::map<std::vector<float>, int> rows;
  double n = 0, total = 0, mean = 0;
  for (int64_t c = 0; c < g.num_configs; ++c) {
    if (g.config_runtime[static_cast<size_t>(c)] <= 0) continue;
    const float* row = g.node_config_feat.data() + (c * nc + j) * w;
    rows[std::vector<float>(row, row + w)] = 1;
    mean += std::log(static_cast<double>(g.config_runtime[static_cast<size_t>(c)]));
    ++n;
  }
  mean /= n;
  for (int64_t c = 0; c < g.num_configs; ++c)
    if (g.config_runtime[static_cast<size_t>(c)] > 0) {
      const double d = std::log(static_cast<double>(g.config_runtime[static_cast<size_t>(c)])) - mean;
      total += d * d;
    }
  const double between = direct_share(g, j) * total, k = static_cast<double>(rows.size());
  const double within = (total - between) / (n - k);
  return std::max(0.0, (between - (k - 1) * within) / (total + within));
}

// Three configurable nodes, width 2: node 10 decides the runtime, node 11
// never changes, node 12 moves with node 10 (other values, same split).
LayoutGraph three_nodes() {
  LayoutGraph g;
  g.node_config_ids = {10, 11, 12};
  g.config_feat_width = 2;
  const std::vector<std::vector<float>> a = {{0, 1}, {1, 0}, {0, 1}, {1, 0}, {0, 1}, {-1, -1}};
  const std::vector<int64_t> rt = {100, 300, 100, 300, 100, 200};
  g.num_configs = static_cast<int64_t>(rt.size());
  for (size_t c = 0; c < rt.size(); ++c) {
    const std::vector<float> row = {a[c][0], a[c][1], 4, 4, a[c][1] + 2, a[c][0] + 2};
    g.node_config_feat.insert(g.node_config_feat.end(), row.begin(), row.end());
  }
  g.config_runtime = rt;
  return g;
}

TEST(NodeEffects, ANodeThatDecidesTheRuntimeExplainsAllOfItAndItsTwinJoinsIt) {
  const NodeEffects e = node_effects(three_nodes(), "three.npz");
  EXPECT_EQ(e.configs, 6);
  EXPECT_EQ(e.constant_nodes, 1);
  ASSERT_EQ(e.entries.size(), 1u);
  EXPECT_EQ(e.entries[0].nodes, (std::vector<int64_t>{10, 12}));
  EXPECT_EQ(e.entries[0].rows_node, 10);
  EXPECT_NEAR(e.entries[0].share, 1.0, 1e-12);
  ASSERT_EQ(e.entries[0].rows.size(), 3u);
  EXPECT_EQ(e.entries[0].rows[0].row, (std::vector<float>{0, 1}));
  EXPECT_EQ(e.entries[0].rows[0].configs, 3);
  EXPECT_DOUBLE_EQ(e.entries[0].rows[0].median_ratio, 1.0);
  EXPECT_DOUBLE_EQ(e.entries[0].rows[1].median_ratio, 2.0);
  EXPECT_DOUBLE_EQ(e.entries[0].rows[2].median_ratio, 3.0);
}

// Configurable ids out of order (a warning, not an error): the entry lists
// its nodes ascending, and its rows are still the first node's in the file,
// so a config is read at that node.
TEST(NodeEffects, TwinsOutOfOrderKeepTheirRowsOwner) {
  LayoutGraph g = three_nodes();
  g.node_config_ids = {12, 11, 10};
  const NodeEffects e = node_effects(g, "twins.npz");
  ASSERT_EQ(e.entries.size(), 1u);
  EXPECT_EQ(e.entries[0].nodes, (std::vector<int64_t>{10, 12}));
  EXPECT_EQ(e.entries[0].rows_node, 12);
  for (int64_t c = 0; c < 6; ++c) {
    const std::vector<float> row(g.node_config_feat.begin() + c * 6, g.node_config_feat.begin() + (c + 1) * 6);
    EXPECT_GE(config_row_effects(e, g.node_config_ids, row)[0].row, 0) << "config " << c;
  }
}

TEST(NodeEffects, UnmeasuredOrFlatRuntimesAreRefusedByName) {
  LayoutGraph g = three_nodes();
  std::fill(g.config_runtime.begin(), g.config_runtime.end(), 0);
  try {
    node_effects(g, "test_file.npz");
    FAIL() << "no runtimes, yet attributed";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("test_file.npz"), std::string::npos) << err.what();
  }
  std::fill(g.config_runtime.begin(), g.config_runtime.end(), 5);
  EXPECT_THROW(node_effects(g, "flat.npz"), Error);
  g = three_nodes();
  g.node_config_feat.clear();  // loaded without its config features
  EXPECT_THROW(node_effects(g, "bare.npz"), Error);
}

// Real unet3d: the weight gradient of the first 3-D convolution (node 1022)
// decides the file; its slowest row runs 3x the fastest.
TEST(NodeEffects, OneConvolutionDecidesRealUnet3d) {
  const std::string path = test::data_file("real/layout_xla_default_train_unet3d.npz");
  const LayoutGraph g = load_layout_graph(NpzReader::open(path));
  const NodeEffects e = node_effects(g, path);
  EXPECT_EQ(e.configs, g.num_configs);
  ASSERT_FALSE(e.entries.empty());
  const NodeEffect& top = e.entries[0];
  EXPECT_EQ(top.nodes, (std::vector<int64_t>{1022}));
  EXPECT_GT(top.share, 0.99);
  EXPECT_EQ(top.rows.size(), 8u);
  EXPECT_GT(top.rows.back().median_ratio, 3.0);
  EXPECT_LT(top.rows.front().median_ratio, 1.001);
  int64_t configs = 0;
  for (const RowEffect& r : top.rows) configs += r.configs;
  EXPECT_EQ(configs, g.num_configs);
  // Every entry's share against the definition; the forward selection's
  // picks first (#1022, then what little is left), then the rest by share.
  ASSERT_GE(e.entries.size(), 2u);
  EXPECT_NEAR(top.adds, top.adjusted, 1e-12);
  EXPECT_LT(e.entries[1].adds, 0.01);
  for (size_t i = 0; i < e.entries.size(); ++i) {
    const int64_t node = e.entries[i].nodes.front();
    const auto j = std::find(g.node_config_ids.begin(), g.node_config_ids.end(), node) - g.node_config_ids.begin();
    EXPECT_NEAR(e.entries[i].share, direct_share(g, j), 1e-9) << "node " << node;
    EXPECT_NEAR(e.entries[i].adjusted, direct_adjusted(g, j), 1e-9) << "node " << node;
    EXPECT_LE(e.entries[i].adjusted, e.entries[i].share);
    if (i > 0 && std::isnan(e.entries[i - 1].adds)) {
      EXPECT_TRUE(std::isnan(e.entries[i].adds));
      EXPECT_LE(e.entries[i].share, e.entries[i - 1].share);
    }
  }
}

// The archive streamed in chunks gives what the loaded graph gives, and a
// memory budget too small for the grouping is refused by the file's name.
TEST(NodeEffects, StreamedFromTheArchiveAsFromTheLoadedGraph) {
  // AlexNet's 47 MB of rows come in three 16 MB chunks.
  const std::string path = test::data_file("cleaned_alexnet.npz");
  const NpzReader npz = NpzReader::open(path);
  const NodeEffects a = node_effects(load_layout_graph(npz), path), b = node_effects(npz);
  EXPECT_EQ(a.configs, b.configs);
  EXPECT_EQ(a.constant_nodes, b.constant_nodes);
  ASSERT_EQ(a.entries.size(), b.entries.size());
  for (size_t i = 0; i < a.entries.size(); ++i) {
    EXPECT_EQ(a.entries[i].nodes, b.entries[i].nodes);
    EXPECT_DOUBLE_EQ(a.entries[i].share, b.entries[i].share);
    EXPECT_DOUBLE_EQ(a.entries[i].adjusted, b.entries[i].adjusted);
    EXPECT_EQ(std::isnan(a.entries[i].adds), std::isnan(b.entries[i].adds));
    if (!std::isnan(a.entries[i].adds)) {
      EXPECT_DOUBLE_EQ(a.entries[i].adds, b.entries[i].adds);
    }
    EXPECT_EQ(a.entries[i].rows_node, b.entries[i].rows_node);
    ASSERT_EQ(a.entries[i].rows.size(), b.entries[i].rows.size());
    for (size_t r = 0; r < a.entries[i].rows.size(); ++r) {
      EXPECT_EQ(a.entries[i].rows[r].row, b.entries[i].rows[r].row);
      EXPECT_EQ(a.entries[i].rows[r].configs, b.entries[i].rows[r].configs);
      EXPECT_DOUBLE_EQ(a.entries[i].rows[r].median_ratio, b.entries[i].rows[r].median_ratio);
    }
  }
  try {
    node_effects(npz, 1 << 20);
    FAIL() << "1 MB cannot group 47,712 configs by 26 nodes";
  } catch (const Error& err) {
    EXPECT_EQ(err.file(), path);
    EXPECT_NE(std::string(err.what()).find("MB"), std::string::npos) << err.what();
  }
}

// A config read against the effects: its row at node 10 (the twin 12
// shares the entry) and how much slower than the entry's fastest row.
TEST(NodeEffects, AConfigsRowsAreReadAgainstEachEntrysFastestRow) {
  const LayoutGraph g = three_nodes();
  const NodeEffects e = node_effects(g, "three.npz");
  auto config = [&](int64_t c) {
    return std::vector<float>(g.node_config_feat.begin() + c * 6, g.node_config_feat.begin() + (c + 1) * 6);
  };
  const std::vector<double> want = {1, 3, 1, 3, 1, 2};  // runtimes 100, 300, 100, 300, 100, 200
  for (int64_t c = 0; c < 6; ++c) {
    const std::vector<float> row = config(c);
    const std::vector<ConfigRowEffect> r = config_row_effects(e, g.node_config_ids, row);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].entry, 0u);
    EXPECT_DOUBLE_EQ(r[0].slower, want[static_cast<size_t>(c)]) << "config " << c;
    ASSERT_GE(r[0].row, 0);
    EXPECT_EQ(e.entries[0].rows[static_cast<size_t>(r[0].row)].row, std::vector<float>(row.begin(), row.begin() + 2));
  }
  // A row no measured config holds: -1, NaN.
  const std::vector<ConfigRowEffect> r = config_row_effects(e, g.node_config_ids, {5, 5, 4, 4, 7, 7});
  EXPECT_EQ(r[0].row, -1);
  EXPECT_TRUE(std::isnan(r[0].slower));
  EXPECT_THROW(config_row_effects(e, g.node_config_ids, {1, 2, 3}), Error);     // 3 nodes x 1, the rows are 2 wide
  EXPECT_THROW(config_row_effects(e, g.node_config_ids, {1, 2, 3, 4}), Error);  // not 3 nodes x anything
  EXPECT_THROW(config_row_effects(e, {11, 12, 99}, config(0)), Error);          // node 10 missing
}

// Sixteen configs with runtimes of pure noise and a node of 8 rows: its
// rows explain about 7/15 of the variance by chance; the adjusted share is
// 0 in about half the draws (no more than noise) and small on average.
TEST(NodeEffects, TheAdjustedShareTakesOutWhatNoiseExplainsAmongFewConfigs) {
  Rng rng(11);
  double raw = 0, adjusted = 0;
  int none = 0;  // draws whose adjusted share is 0: the rows explain less than noise would
  const int draws = 200;
  for (int d = 0; d < draws; ++d) {
    std::vector<double> rt;
    std::vector<float> rows;
    for (int c = 0; c < 16; ++c) {
      rows.push_back(static_cast<float>(c % 8));
      rt.push_back(1000.0 * std::exp(0.1 * (rng.uniform() - 0.5)));
    }
    NodeEffectsBuilder noisy({7}, 1, rt, "noise.npz");
    noisy.add(rows.data(), 16);
    const NodeEffects e = noisy.finish();
    ASSERT_EQ(e.entries.size(), 1u);
    raw += e.entries[0].share / draws;
    adjusted += e.entries[0].adjusted / draws;
    none += e.entries[0].adjusted == 0;
  }
  EXPECT_NEAR(raw, 7.0 / 15.0, 0.05);
  EXPECT_LT(adjusted, raw / 3);  // positive only where noise explains more than its share
  EXPECT_GT(none, draws * 2 / 5);
}

TEST(NodeEffects, RowsThatDoNotMatchTheRuntimesAreRefused) {
  const LayoutGraph g = three_nodes();
  std::vector<double> rt(g.config_runtime.begin(), g.config_runtime.end());
  NodeEffectsBuilder few(g.node_config_ids, 2, rt, "short.npz");
  few.add(g.node_config_feat.data(), 5);
  EXPECT_THROW(few.finish(), Error);
  NodeEffectsBuilder many(g.node_config_ids, 2, rt, "long.npz");
  many.add(g.node_config_feat.data(), 6);
  EXPECT_THROW(many.add(g.node_config_feat.data(), 1), Error);
  // Added in blocks of any size, the same effects.
  NodeEffectsBuilder blocks(g.node_config_ids, 2, rt, "three.npz");
  for (int64_t c = 0; c < 6; c += 4) blocks.add(g.node_config_feat.data() + c * 6, std::min<int64_t>(4, 6 - c));
  const NodeEffects e = blocks.finish();
  ASSERT_EQ(e.entries.size(), 1u);
  EXPECT_EQ(e.entries[0].nodes, (std::vector<int64_t>{10, 12}));
  EXPECT_NEAR(e.entries[0].share, 1.0, 1e-12);
}

}  // namespace
}  // namespace fastslow
