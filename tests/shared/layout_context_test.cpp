#include "fastslow/features/layout_context.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "fastslow/data/graph_cache.h"
#include "fastslow/graph/hlo_tables.h"
#include "test_support.h"

namespace fastslow {
namespace {

using C = LayoutContext;

// A node row in the published 140-column layout.
struct Row {
  std::vector<float> dims, layout;
  float bits = 32;
  std::vector<std::pair<std::string, float>> named = {};  // other columns by name
};

std::vector<float> published_rows(const std::vector<Row>& rows) {
  const int width = static_cast<int>(node_feature_names().size());
  const int dims = require_node_feature("shape_dimensions_0"), layout = require_node_feature("layout_minor_to_major_0"),
            bits = require_node_feature("element_size_in_bits");
  std::vector<float> out(rows.size() * static_cast<size_t>(width), 0.0f);
  for (size_t r = 0; r < rows.size(); ++r) {
    float* row = out.data() + r * static_cast<size_t>(width);
    for (size_t i = 0; i < rows[r].dims.size(); ++i) row[dims + static_cast<int>(i)] = rows[r].dims[i];
    for (size_t i = 0; i < rows[r].layout.size(); ++i) row[layout + static_cast<int>(i)] = rows[r].layout[i];
    row[bits] = rows[r].bits;
    for (const auto& [name, v] : rows[r].named) row[require_node_feature(name)] = v;
  }
  return out;
}

std::vector<float> block(const LayoutContext& ctx, int64_t node, int tensor) {
  const auto at = ctx.values.begin() + node * C::kWidth + tensor;
  return {at, at + C::kTensorWidth};
}

std::vector<int32_t> opcodes(const std::vector<const char*>& names) {
  std::vector<int32_t> out;
  for (const char* n : names) out.push_back(require_opcode(n));
  return out;
}

// 0: parameter [8, 256] row-major; 1: constant [3, 3, 4, 2] bf16 with a
// permuted layout; 2: configurable convolution (0, 1); 3: configurable
// reshape of 2 (one operand); 4: a scalar.
TEST(LayoutContext, GathersShapesLayoutsAndConfigurableProducers) {
  const std::vector<std::pair<std::string, float>> conv_dims = {
      {"convolution_dim_numbers_output_feature_dim", 1}, {"convolution_dim_numbers_input_feature_dim", 1},
      {"convolution_dim_numbers_input_batch_dim", 0},    {"convolution_dim_numbers_kernel_output_feature_dim", 3},
      {"convolution_dim_numbers_kernel_input_feature_dim", 2}};
  const auto feat = published_rows({{{8, 256}, {1, 0}},
                                    {{3, 3, 4, 2}, {2, 3, 1, 0}, 16},
                                    {{8, 254}, {1, 0}, 32, conv_dims},
                                    {{2032}, {0}},
                                    {{}, {}}});
  const auto ops = opcodes({"parameter", "constant", "convolution", "reshape", "constant"});
  // Rows [u, v]: u consumes v, in operand order.
  const std::vector<int64_t> edges = {2, 0, 2, 1, 3, 2, 4, 4};
  const LayoutContext ctx = layout_context(5, 140, feat, ops, edges, {2, 3});
  ASSERT_TRUE(ctx.known);
  ASSERT_EQ(ctx.values.size(), 2u * C::kWidth);
  EXPECT_EQ(block(ctx, 0, C::kOutput), (std::vector<float>{8, 254, 0, 0, 0, 0, 1, 0, -1, -1, -1, -1, 32, 1, -1, -1}));
  // The convolution wants its input's feature dim minor-most, its batch dim
  // out of the minor two, the kernel's output then input features.
  EXPECT_EQ(block(ctx, 0, C::kInput), (std::vector<float>{8, 256, 0, 0, 0, 0, 1, 0, -1, -1, -1, -1, 32, 1, -1, 0}));
  EXPECT_EQ(block(ctx, 0, C::kKernel), (std::vector<float>{3, 3, 4, 2, 0, 0, 2, 3, 1, 0, -1, -1, 16, 3, 2, -1}));
  EXPECT_EQ(ctx.values[C::kInProducer], -1);  // a parameter
  EXPECT_EQ(ctx.values[C::kKernelProducer], -1);
  // The reshape reads node 2, configurable node 0; it has no operand 1.
  EXPECT_EQ(block(ctx, 1, C::kOutput), (std::vector<float>{2032, 0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, 32, -1, -1, -1}));
  // It reads the convolution's output; preferences are the reader's (none).
  EXPECT_EQ(block(ctx, 1, C::kInput), (std::vector<float>{8, 254, 0, 0, 0, 0, 1, 0, -1, -1, -1, -1, 32, -1, -1, -1}));
  EXPECT_EQ(block(ctx, 1, C::kKernel), (std::vector<float>{0, 0, 0, 0, 0, 0, -1, -1, -1, -1, -1, -1, 0, -1, -1, -1}));
  EXPECT_EQ(ctx.values[C::kWidth + C::kInProducer], 0);
  EXPECT_EQ(ctx.values[C::kWidth + C::kKernelProducer], -1);
}

// Published layouts are 0-padded: a 0 past the rank is not "dim 0". Bad
// values (NaN, out of range) read as unknown, never as a wrong dim.
TEST(LayoutContext, PaddingAndBadValuesReadAsUnknown) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto feat = published_rows({{{5, 7, 0, 0}, {0, 1, 0, 0, 0, 0}}, {{4, nan, 6}, {9, nan, 0}, nan}});
  const LayoutContext ctx = layout_context(2, 140, feat, opcodes({"dot", "reshape"}), {}, {0, 1});
  EXPECT_EQ(block(ctx, 0, C::kOutput), (std::vector<float>{5, 7, 0, 0, 0, 0, 0, 1, -1, -1, -1, -1, 32, 1, -1, -1}));
  EXPECT_EQ(block(ctx, 1, C::kOutput), (std::vector<float>{4, 0, 6, 0, 0, 0, -1, -1, 0, -1, -1, -1, 0, -1, -1, -1}));
}

// No published file fills element_size_in_bits: a tensor's bits come from
// its element type's one-hot column there.
TEST(LayoutContext, ElementBitsFromTheTypeWhereTheFileLeavesThemZero) {
  const auto typed = [](const char* type) {
    return Row{{4, 8}, {1, 0}, 0, {{std::string("shape_element_type_is_") + type, 1}}};
  };
  const auto feat = published_rows({typed("bf16"), typed("f32"), typed("pred"), typed("c128"), typed("tuple"),
                                    Row{{4, 8}, {1, 0}, 0}, Row{{4, 8}, {1, 0}, 4, {{"shape_element_type_is_f32", 1}}}});
  const LayoutContext ctx =
      layout_context(7, 140, feat, opcodes({"dot", "dot", "dot", "dot", "dot", "dot", "dot"}), {}, {0, 1, 2, 3, 4, 5, 6});
  std::vector<float> bits;
  for (int64_t i = 0; i < 7; ++i) bits.push_back(block(ctx, i, C::kOutput)[C::kBits]);
  // Where the column is filled (the last row: 4) it wins.
  EXPECT_EQ(bits, (std::vector<float>{16, 32, 8, 128, 0, 0, 4}));
}

// On a real file every configurable node's output has a size in bits, the
// one its type's column name spells (bf16 -> 16, f32 -> 32, pred -> 8).
TEST(LayoutContext, EveryRealConfigurableOutputHasItsTypesBits) {
  test::TempDir dir;
  const CachedGraph g = CachedGraph::open(test::data_file("real/layout_xla_default_train_unet3d.npz"), {dir.file("cache"), 1});
  const LayoutContext ctx = layout_context(g.pruned.num_nodes(), g.node_feat_width, g.node_feat, g.node_opcode,
                                           g.pruned.edge_index, g.pruned.config_positions);
  ASSERT_TRUE(ctx.known);
  const auto& names = node_feature_names();
  const std::string prefix = "shape_element_type_is_";
  std::map<float, int> seen;
  for (int64_t i = 0; i < ctx.num_config_nodes; ++i) {
    const float* row = g.node_feat.data() + g.pruned.config_positions[static_cast<size_t>(i)] * g.node_feat_width;
    std::string type;
    for (size_t c = 0; c < names.size(); ++c)
      if (names[c].rfind(prefix, 0) == 0 && row[c] > 0.5f) type = names[c].substr(prefix.size());
    ASSERT_FALSE(type.empty()) << "configurable node " << i;
    const size_t digits = type.find_first_of("0123456789");
    const float want = type == "pred" ? 8.0f : std::stof(type.substr(digits));
    EXPECT_EQ(block(ctx, i, C::kOutput)[C::kBits], want) << "configurable node " << i << " (" << type << ")";
    ++seen[want];
  }
  // unet3d trains in bf16 with f32 weights: both sizes occur.
  EXPECT_GT(seen[16], 0);
  EXPECT_GT(seen[32], 0);
}

TEST(LayoutContext, UnknownWithoutThePublishedColumns) {
  const LayoutContext ctx =
      layout_context(3, 70, std::vector<float>(210, 3.0f), opcodes({"dot", "dot", "dot"}), {1, 0, 2, 1}, {1, 2});
  EXPECT_FALSE(ctx.known);
  const LayoutContext unknown = unknown_layout_context(2);
  EXPECT_EQ(ctx.values, unknown.values);
  for (int t : {C::kOutput, C::kInput, C::kKernel}) {
    EXPECT_EQ(unknown.values[t + C::kDims], 0);
    EXPECT_EQ(unknown.values[t + C::kLayout], -1);
  }
  EXPECT_EQ(unknown.values[C::kWidth + C::kInProducer], -1);
}

TEST(LayoutContext, BadInputNamesTheArray) {
  const auto feat = published_rows({{{2, 2}, {1, 0}}, {{2, 2}, {1, 0}}});
  const auto ops = opcodes({"dot", "dot"});
  EXPECT_NE(test::error_of([&] { layout_context(2, 140, feat, ops, {0, 5}, {0}); }).find("edge_index"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { layout_context(2, 140, feat, ops, {}, {2}); }).find("node_config_ids"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { layout_context(3, 140, feat, opcodes({"dot", "dot", "dot"}), {}, {0}); })
                .find("node_feat"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { layout_context(2, 140, feat, opcodes({"dot"}), {}, {0}); }).find("node_opcode"),
            std::string::npos);
}

}  // namespace
}  // namespace fastslow
