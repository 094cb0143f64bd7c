#include "fastslow/graph/hlo_tables.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "test_support.h"

namespace fastslow {
namespace {

// Rows of a TSV, header dropped, fields split on tabs.
std::vector<std::vector<std::string>> read_tsv(const std::string& name) {
  std::ifstream in(test::data_file(name));
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> fields;
    std::stringstream ss(line);
    std::string f;
    while (std::getline(ss, f, '\t')) fields.push_back(f);
    rows.push_back(fields);
  }
  return rows;
}

TEST(HloTables, OpcodesMatchTheTsv) {
  const auto rows = read_tsv("hlo_opcodes.tsv");
  ASSERT_EQ(rows.size(), 120u);
  EXPECT_EQ(opcode_count(), 120);
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 3u);
    const int id = std::stoi(r[0]);
    EXPECT_STREQ(opcode_name(id), r[1].c_str());
    EXPECT_EQ(opcode_id(r[1]), id);
    EXPECT_EQ(opcode_removed(id), r[2] == "removed") << r[1];
  }
}

TEST(HloTables, KnownOpcodesAndUnknowns) {
  EXPECT_EQ(opcode_id("convolution"), 26);
  EXPECT_EQ(opcode_id("dot"), 34);
  EXPECT_EQ(opcode_id("reshape"), 75);
  EXPECT_TRUE(opcode_removed(97));
  EXPECT_TRUE(opcode_removed(101));
  EXPECT_FALSE(opcode_removed(2));
  EXPECT_FALSE(opcode_removed(0));
  EXPECT_STREQ(opcode_name(0), "");
  EXPECT_STREQ(opcode_name(121), "");
  EXPECT_STREQ(opcode_name(-3), "");
  EXPECT_EQ(opcode_id("no-such-op"), -1);
  EXPECT_EQ(require_opcode("while"), 102);
  EXPECT_THROW(require_opcode("no-such-op"), Error);
}

TEST(HloTables, FeatureNamesMatchTheTsv) {
  const auto rows = read_tsv("feature_names.tsv");
  std::vector<std::string> node, tile, layout;
  for (const auto& r : rows) {
    ASSERT_EQ(r.size(), 3u);
    auto& group = r[0] == "node" ? node : r[0] == "tile_config" ? tile : layout;
    ASSERT_EQ(std::stoi(r[1]), static_cast<int>(group.size())) << "TSV rows out of order";
    group.push_back(r[2]);
  }
  EXPECT_EQ(node.size(), 140u);
  EXPECT_EQ(tile.size(), 24u);
  EXPECT_EQ(layout.size(), 18u);
  EXPECT_EQ(node_feature_names(), node);
  EXPECT_EQ(config_feature_names(GraphKind::Tile), tile);
  EXPECT_EQ(config_feature_names(GraphKind::Layout), layout);
}

TEST(HloTables, NodeFeatureLookup) {
  EXPECT_EQ(node_feature_index("is_root"), 0);
  EXPECT_EQ(node_feature_index("shape_dimensions_product"), 28);
  EXPECT_EQ(node_feature_index("layout_minor_to_major_5"), 139);
  EXPECT_EQ(node_feature_index("nope"), -1);
  EXPECT_THROW(require_node_feature("nope"), Error);
}

}  // namespace
}  // namespace fastslow
