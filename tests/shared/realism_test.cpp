#include "fastslow/analysis/realism.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/io/npz_reader.h"
#include "graph_builders.h"
#include "test_support.h"

namespace fastslow {
namespace {

using test::SmallLayout;

TEST(Realism, RuntimeStatisticsAreOverUniqueConfigsAtTheirBestRuntime) {
  // Runtimes {500, 700, 300, 400, 700}; configs 0 = 3 and 1 = 4: unique
  // configs at their best {400, 700, 300}.
  const FileRealism r = file_realism(SmallLayout::arrays().reader("l.npz"));
  EXPECT_EQ(r.configs, 5);
  EXPECT_EQ(r.unique_configs, 3);
  EXPECT_EQ(r.configurable, 3);
  EXPECT_DOUBLE_EQ(r.within1, 1.0 / 3);
  EXPECT_DOUBLE_EQ(r.within5, 1.0 / 3);
  EXPECT_DOUBLE_EQ(r.max_over_min, 700.0 / 300.0);
  const double m = (std::log(400.0) + std::log(700.0) + std::log(300.0)) / 3;
  const double sd = std::sqrt((std::pow(std::log(400.0) - m, 2) + std::pow(std::log(700.0) - m, 2) +
                               std::pow(std::log(300.0) - m, 2)) / 3);
  EXPECT_NEAR(r.log_sd, sd, 1e-12);
  // Two configs measured twice: 500 then 400 (25 %), 700 then 700 (0 %).
  EXPECT_DOUBLE_EQ(r.dup_median, 0.125);
  EXPECT_DOUBLE_EQ(r.dup_max, 0.25);
}

TEST(Realism, StructureStatistics) {
  const FileRealism r = file_realism(SmallLayout::arrays().reader("l.npz"));
  EXPECT_EQ(r.nodes, SmallLayout::kNodes);
  EXPECT_EQ(r.edges, SmallLayout::kEdges);
  double total = 0;
  for (double s : r.family_share) total += s;
  EXPECT_NEAR(total, 1.0, 1e-12);
  for (int64_t op : SmallLayout::opcodes()) EXPECT_GE(r.family_share[static_cast<size_t>(op_family(static_cast<int>(op)))], 1.0 / 6 - 1e-12);
  // Users per node: 0 -> {1, 2}, 1 -> {2, 5}, 2, 3, 4 -> one each, 5 -> none.
  EXPECT_EQ(r.max_fanout, 2);
  EXPECT_DOUBLE_EQ(r.fanout_p99, 2.0);
}

TEST(Realism, TheRealUnet3dAgainstNumpy) {
  // Reference figures from numpy over the same file: 992 of 2,774 nodes
  // and 53 of 56 configurable ones hold 5-D tensors (shape_dimensions_4 >
  // 0); of 681 unique configs at their best runtime, 324 lie within 0.1 %
  // of the best and 395 within 1 %; 682 nodes are get-tuple-element.
  const std::string file = test::data_file("real/layout_xla_default_train_unet3d.npz");
  const FileRealism r = file_realism(NpzReader::open(file));
  EXPECT_EQ(r.unique_configs, 681);
  EXPECT_DOUBLE_EQ(r.rank5_share, 992.0 / 2774.0);
  EXPECT_DOUBLE_EQ(r.config_rank5_share, 53.0 / 56.0);
  EXPECT_DOUBLE_EQ(r.within01, 324.0 / 681.0);
  EXPECT_DOUBLE_EQ(r.within1, 395.0 / 681.0);
  EXPECT_EQ(r.opcode_counts.at(opcode_id("get-tuple-element")), 682);
  int64_t total = 0;
  for (const auto& [op, n] : r.opcode_counts) total += n;
  EXPECT_EQ(total, r.nodes);
  // The table names the commonest opcodes with their shares.
  const std::string t = realism_table({{"unet3d", {r}}});
  EXPECT_NE(t.find("get-tuple-element 25%, multiply 18%"), std::string::npos) << t;
}

TEST(Realism, TestFilesHaveNoRuntimeStatisticsAndTileFilesAreRefused) {
  test::GraphArrays a = SmallLayout::arrays();
  a.set("config_runtime", std::vector<int64_t>(SmallLayout::kConfigs, 0), {SmallLayout::kConfigs});
  const FileRealism r = file_realism(a.reader("test.npz"));
  EXPECT_TRUE(std::isnan(r.within1));
  EXPECT_TRUE(std::isnan(r.max_over_min));
  EXPECT_TRUE(std::isnan(r.dup_median));
  EXPECT_EQ(r.nodes, SmallLayout::kNodes);
  const std::string e = test::error_of([] { file_realism(test::SmallTile::arrays().reader("k.npz")); });
  EXPECT_NE(e.find("k.npz"), std::string::npos) << e;
  EXPECT_NE(e.find("tile"), std::string::npos) << e;
}

TEST(Realism, GroupsSummariseTheirFiles) {
  RealismGroup g{"two", {}};
  FileRealism a, b;
  a.within1 = 0.2;
  b.within1 = 0.6;
  a.max_over_min = 1.5;  // b has no runtimes
  g.files = {a, b};
  EXPECT_DOUBLE_EQ(realism_median(g, &FileRealism::within1), 0.4);
  EXPECT_DOUBLE_EQ(realism_median(g, &FileRealism::max_over_min), 1.5);
  EXPECT_DOUBLE_EQ(realism_min(g, &FileRealism::within1), 0.2);
  EXPECT_DOUBLE_EQ(realism_max(g, &FileRealism::within1), 0.6);
  const std::string table = realism_table({g});
  EXPECT_NE(table.find("40% [20%-60%]"), std::string::npos) << table;
  EXPECT_NE(realism_json({g}).find("\"within1\": 0.4"), std::string::npos);
}

// What a model trained on the dataset rows never saw: the share of a real
// file's nodes whose opcode no dataset row holds.
TEST(Realism, UnseenOpsAreCountedAgainstTheDatasetRows) {
  const int add = opcode_id("add"), dot = opcode_id("dot"), rng = opcode_id("rng");
  RealismGroup generated{"gen layout:xla:random", {}, true};
  FileRealism g1;
  g1.opcode_counts = {{add, 10}, {dot, 5}};
  generated.files = {g1};
  RealismGroup real{"real", {}, false};
  FileRealism r;
  r.opcode_counts = {{add, 6}, {rng, 4}};
  real.files = {r};
  EXPECT_DOUBLE_EQ(unseen_op_share(real, {generated, real}), 0.4);
  EXPECT_TRUE(std::isnan(unseen_op_share(generated, {generated, real})));
  EXPECT_TRUE(std::isnan(unseen_op_share(real, {real})));  // nothing to compare with
  const std::string table = realism_table({generated, real});
  const size_t row = table.rfind("\nreal ");
  ASSERT_NE(row, std::string::npos) << table;
  EXPECT_NE(table.find("40%", row), std::string::npos) << table;
  EXPECT_NE(realism_json({generated, real}).find("\"unseen_op_share\": 0.4"), std::string::npos);
}

}  // namespace
}  // namespace fastslow
