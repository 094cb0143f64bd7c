#include "fastslow/synth/hlo.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/synth/features.h"

namespace fastslow::synth {
namespace {

using Dims = std::vector<int64_t>;
constexpr auto F32 = ElementType::F32;

float feat(const std::vector<float>& f, int node, const char* name) {
  return f[static_cast<size_t>(node) * node_feature_names().size() + require_node_feature(name)];
}

TEST(SynthHlo, ConvolutionShapes) {
  HloBuilder b;
  const int x = b.parameter(F32, {8, 224, 224, 3});
  const int k = b.parameter(F32, {7, 7, 3, 64});
  Window w = Window::of({7, 7});
  w.stride = {2, 2};
  w.pad_low = {3, 3};
  w.pad_high = {3, 3};
  const int c = b.convolution(x, k, w, ConvDimensionNumbers::nhwc(2));
  EXPECT_EQ(b.dims(c), (Dims{8, 112, 112, 64}));

  // Valid padding, dilation 2: span 5 over 10 -> 6.
  const int y = b.parameter(F32, {1, 10, 10, 4});
  const int k3 = b.parameter(F32, {3, 3, 4, 2});
  Window d = Window::of({3, 3});
  d.window_dilation = {2, 2};
  EXPECT_EQ(b.dims(b.convolution(y, k3, d, ConvDimensionNumbers::nhwc(2))), (Dims{1, 6, 6, 2}));

  // Depthwise: 4 groups of 1 input feature each.
  const int kd = b.parameter(F32, {3, 3, 1, 4});
  EXPECT_EQ(b.dims(b.convolution(y, kd, Window::of({3, 3}), ConvDimensionNumbers::nhwc(2), 4)), (Dims{1, 8, 8, 4}));

  // Feature mismatch is refused.
  EXPECT_THROW(b.convolution(x, k3, Window::of({3, 3}), ConvDimensionNumbers::nhwc(2)), Error);
}

TEST(SynthHlo, DotShapes) {
  HloBuilder b;
  const int a = b.parameter(F32, {4, 16, 32});
  const int c = b.parameter(F32, {4, 32, 8});
  EXPECT_EQ(b.dims(b.matmul(a, c)), (Dims{4, 16, 8}));
  const int q = b.parameter(F32, {2, 3, 5, 7});
  DotDimensionNumbers qk{{0, 1}, {3}, {0, 1}, {3}};
  EXPECT_EQ(b.dims(b.dot(q, q, qk)), (Dims{2, 3, 5, 5}));
  EXPECT_THROW(b.matmul(a, a), Error);
}

TEST(SynthHlo, ReduceReshapeTransposePadSliceShapes) {
  HloBuilder b;
  const int x = b.parameter(F32, {2, 3, 4, 5});
  const int zero = b.constant(F32, {});
  EXPECT_EQ(b.dims(b.reduce(x, zero, {3, 1})), (Dims{2, 4}));
  EXPECT_EQ(b.dims(b.reshape(x, {6, 20})), (Dims{6, 20}));
  EXPECT_THROW(b.reshape(x, {7, 20}), Error);
  EXPECT_EQ(b.dims(b.transpose(x, {3, 0, 2, 1})), (Dims{5, 2, 4, 3}));
  EXPECT_THROW(b.transpose(x, {0, 0, 1, 2}), Error);
  // 4 + 1 + 2 + 3 interior gaps of 1 -> 10.
  EXPECT_EQ(b.dims(b.pad(x, zero, {0, 1, 0, 0}, {0, 2, 0, 0}, {0, 1, 0, 0})), (Dims{2, 8, 4, 5}));
  EXPECT_EQ(b.dims(b.slice(x, {0, 1, 0, 0}, {2, 3, 4, 5}, {1, 1, 3, 2})), (Dims{2, 2, 2, 3}));
  EXPECT_THROW(b.slice(x, {0, 0, 0, 0}, {2, 4, 4, 5}), Error);
  EXPECT_EQ(b.dims(b.broadcast(b.reduce(x, zero, {0, 1, 2}), {7, 5}, {1})), (Dims{7, 5}));
  EXPECT_EQ(b.dims(b.concatenate({x, x}, 2)), (Dims{2, 3, 8, 5}));
  Window pool = Window::of({1, 2, 2, 1});
  pool.stride = {1, 2, 2, 1};
  EXPECT_EQ(b.dims(b.reduce_window(x, zero, pool)), (Dims{2, 1, 2, 5}));
  const int i = b.constant(ElementType::S32, {});
  EXPECT_EQ(b.dims(b.dynamic_slice(x, {i, i, i, i}, {1, 3, 2, 5})), (Dims{1, 3, 2, 5}));
}

TEST(SynthHlo, TuplesAndComputations) {
  HloBuilder b;
  const int x = b.parameter(F32, {4});
  const int y = b.parameter(ElementType::S32, {});
  const int t = b.tuple({x, y});
  EXPECT_EQ(b.node(t).type, ElementType::Tuple);
  EXPECT_EQ(b.dims(b.get_tuple_element(t, 1)), Dims{});
  const int called = b.call({x}, [](HloBuilder& c, const std::vector<int>& p) {
    return c.unary("exponential", p[0]);
  });
  const HloGraph g = b.build(b.tuple({called, b.get_tuple_element(t, 0)}));
  check_graph(g);
  // The callee (parameter, exponential) comes first, the entry after it.
  ASSERT_EQ(g.node_splits, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(g.nodes[0].computation, 0);
  EXPECT_EQ(g.nodes[0].opcode, opcode_id("parameter"));
  EXPECT_TRUE(g.nodes[1].is_root);
  EXPECT_TRUE(g.nodes.back().is_root);
  for (const auto& n : g.nodes)
    if (n.opcode == opcode_id("call")) {
      EXPECT_EQ(n.operands.back(), 1);
    }
}

TEST(SynthHlo, WhileLoopAndOperandsFromOtherComputationsRefused) {
  HloBuilder b;
  const int x = b.parameter(F32, {3});
  const int state = b.tuple({b.constant(ElementType::S32, {}), x});
  const int w = b.while_loop(
      state,
      [](HloBuilder& c, const std::vector<int>& p) {
        return c.compare(c.get_tuple_element(p[0], 0), c.constant(ElementType::S32, {}));
      },
      [x](HloBuilder& c, const std::vector<int>& p) {
        EXPECT_THROW(c.unary("negate", x), Error);  // x is the caller's
        const int i = c.get_tuple_element(p[0], 0);
        return c.tuple({c.binary("add", i, c.constant(ElementType::S32, {})), c.get_tuple_element(p[0], 1)});
      });
  const HloGraph g = b.build(b.get_tuple_element(w, 1));
  check_graph(g);
  EXPECT_EQ(g.node_splits.size(), 3u);
}

TEST(SynthHlo, TopologicalOrderAndEdges) {
  HloBuilder b;
  const int x = b.parameter(F32, {2, 2});
  const int sq = b.binary("multiply", x, x);
  const HloGraph g = b.build(b.binary("add", sq, x));
  for (size_t u = 0; u < g.nodes.size(); ++u)
    for (int v : g.nodes[u].operands) EXPECT_LT(v, static_cast<int>(u));
  // multiply(x, x) gives one edge.
  EXPECT_EQ(g.edges(), (std::vector<int64_t>{1, 0, 2, 1, 2, 0}));
  const auto e = g.edges();
  for (size_t i = 0; i < e.size(); i += 2) EXPECT_LT(e[i + 1], e[i]);
}

TEST(SynthHlo, FeatureColumns) {
  HloBuilder b;
  const int x = b.parameter(ElementType::BF16, {8, 32, 32, 16});
  const int k = b.parameter(ElementType::BF16, {3, 3, 16, 32});
  Window w = Window::of({3, 3});
  w.stride = {2, 2};
  w.pad_low = {0, 0};
  w.pad_high = {1, 1};
  const int c = b.convolution(x, k, w, ConvDimensionNumbers::nhwc(2));
  const int s = b.slice(c, {0, 1, 2, 0}, {8, 5, 6, 32}, {1, 2, 1, 1});
  const int zero = b.constant(ElementType::BF16, {});
  const int p = b.pad(s, zero, {1, 2, 0, 0}, {3, 4, 0, 0});
  const int r = b.reduce(p, zero, {1, 2});
  b.set_layout(r, {0, 1});
  const HloGraph g = b.build(b.tuple({r}));
  const auto f = node_features(g);
  ASSERT_EQ(f.size(), g.nodes.size() * 140);
  for (float v : f) ASSERT_TRUE(v == v);

  // The input parameter: dims, sum, product, one-hot, layout, zeros past rank 4.
  EXPECT_EQ(feat(f, x, "shape_element_type_is_bf16"), 1);
  EXPECT_EQ(feat(f, x, "shape_element_type_is_f32"), 0);
  EXPECT_EQ(feat(f, x, "element_size_in_bits"), 0);  // as in every published file
  EXPECT_EQ(feat(f, x, "shape_dimensions_0"), 8);
  EXPECT_EQ(feat(f, x, "shape_dimensions_3"), 16);
  EXPECT_EQ(feat(f, x, "shape_dimensions_4"), 0);
  EXPECT_EQ(feat(f, x, "shape_dimensions_5"), 0);
  EXPECT_EQ(feat(f, x, "shape_dimensions_sum"), 8 + 32 + 32 + 16);
  EXPECT_EQ(feat(f, x, "shape_dimensions_product"), 8 * 32 * 32 * 16);
  EXPECT_EQ(feat(f, x, "layout_minor_to_major_0"), 3);
  EXPECT_EQ(feat(f, x, "layout_minor_to_major_3"), 0);
  EXPECT_EQ(feat(f, k, "parameter_number"), 1);
  EXPECT_EQ(feat(f, x, "window_size_0"), 0);
  // Products of fields a node lacks are the empty product, as published.
  EXPECT_EQ(feat(f, x, "window_size_product"), 1);
  EXPECT_EQ(feat(f, x, "slice_dims_limit_product"), 1);
  EXPECT_EQ(feat(f, x, "padding_config_edge_padding_low_product"), 1);
  EXPECT_EQ(feat(f, x, "window_size_sum"), 0);

  // The convolution: window and dimension numbers.
  EXPECT_EQ(feat(f, c, "shape_dimensions_1"), 16);
  EXPECT_EQ(feat(f, c, "window_size_0"), 3);
  EXPECT_EQ(feat(f, c, "window_size_2"), 0);
  EXPECT_EQ(feat(f, c, "window_size_product"), 9);
  EXPECT_EQ(feat(f, c, "window_stride_sum"), 4);
  EXPECT_EQ(feat(f, c, "window_padding_high_1"), 1);
  EXPECT_EQ(feat(f, c, "window_padding_low_product"), 0);
  EXPECT_EQ(feat(f, c, "window_window_dilation_product"), 1);
  EXPECT_EQ(feat(f, c, "window_window_reversal_false_count"), 2);
  EXPECT_EQ(feat(f, c, "convolution_dim_numbers_input_feature_dim"), 3);
  EXPECT_EQ(feat(f, c, "convolution_dim_numbers_input_spatial_dims_1"), 2);
  EXPECT_EQ(feat(f, c, "convolution_dim_numbers_input_spatial_dims_2"), 0);
  EXPECT_EQ(feat(f, c, "convolution_dim_numbers_kernel_output_feature_dim"), 3);
  EXPECT_EQ(feat(f, c, "convolution_dim_numbers_kernel_spatial_dims_1"), 1);
  EXPECT_EQ(feat(f, c, "convolution_dim_numbers_output_feature_dim"), 3);
  EXPECT_EQ(feat(f, c, "feature_group_count"), 1);
  EXPECT_EQ(feat(f, c, "batch_group_count"), 1);
  EXPECT_EQ(feat(f, s, "feature_group_count"), 0);

  // Slice and pad: two named dims, sum and product over all.
  EXPECT_EQ(feat(f, s, "slice_dims_start_1"), 1);
  EXPECT_EQ(feat(f, s, "slice_dims_start_sum"), 3);
  EXPECT_EQ(feat(f, s, "slice_dims_limit_product"), 8 * 5 * 6 * 32);
  EXPECT_EQ(feat(f, s, "slice_dims_stride_1"), 2);
  EXPECT_EQ(feat(f, p, "padding_config_edge_padding_low_1"), 2);
  EXPECT_EQ(feat(f, p, "padding_config_edge_padding_high_sum"), 7);
  EXPECT_EQ(feat(f, p, "padding_config_edge_padding_high_product"), 0);

  // Reduce: dimensions, custom layout; the tuple root.
  EXPECT_EQ(feat(f, r, "dimensions_0"), 1);
  EXPECT_EQ(feat(f, r, "dimensions_1"), 2);
  EXPECT_EQ(feat(f, r, "dimensions_2"), 0);
  EXPECT_EQ(feat(f, r, "layout_minor_to_major_0"), 0);
  EXPECT_EQ(feat(f, r, "layout_minor_to_major_1"), 1);
  const int root = static_cast<int>(g.nodes.size()) - 1;
  EXPECT_EQ(feat(f, root, "is_root"), 1);
  EXPECT_EQ(feat(f, r, "is_root"), 0);
  EXPECT_EQ(feat(f, root, "shape_element_type_is_tuple"), 1);
  EXPECT_EQ(feat(f, root, "shape_tuple_shapes_size"), 1);
  EXPECT_EQ(feat(f, root, "shape_dimensions_product"), 1);
  // A scalar holds one element.
  EXPECT_EQ(feat(f, zero, "shape_dimensions_product"), 1);
  EXPECT_EQ(feat(f, zero, "shape_dimensions_sum"), 0);
}

TEST(SynthHlo, LayoutConfigurableNodes) {
  HloBuilder b;
  const int x = b.parameter(F32, {4, 8});
  const int y = b.reshape(b.matmul(x, b.parameter(F32, {8, 2})), {8});
  const HloGraph g = b.build(b.unary("negate", y));
  EXPECT_EQ(g.layout_configurable_nodes(), (std::vector<int64_t>{2, 3}));
}

}  // namespace
}  // namespace fastslow::synth
