#include "fastslow/graph/validate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "graph_builders.h"
#include "test_support.h"

namespace fastslow {
namespace {

using test::GraphArrays;
using test::SmallLayout;
using test::SmallTile;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

std::string describe(const std::vector<Problem>& ps) {
  std::string s;
  for (const Problem& p : ps) s += std::string(severity_name(p.severity)) + " " + p.array + ": " + p.message + "\n";
  return s.empty() ? "(no problems)" : s;
}

// The single problem reported, which must have this severity and array.
Problem only_problem(const std::vector<Problem>& ps, Severity s, const std::string& array) {
  EXPECT_EQ(ps.size(), 1u) << describe(ps);
  if (ps.empty()) return {s, "", ""};
  EXPECT_EQ(ps[0].severity, s) << describe(ps);
  EXPECT_EQ(ps[0].array, array) << describe(ps);
  return ps[0];
}

bool mentions(const Problem& p, const std::string& text) { return p.message.find(text) != std::string::npos; }

LayoutGraph layout() { return load_layout_graph(SmallLayout::arrays().reader("layout.npz")); }
TileGraph tile() { return load_tile_graph(SmallTile::arrays().reader("tile.npz")); }

TEST(ValidateClean, HandMadeGraphsHaveNoProblems) {
  EXPECT_TRUE(validate(layout()).empty()) << describe(validate(layout()));
  EXPECT_TRUE(validate(tile()).empty()) << describe(validate(tile()));
  EXPECT_TRUE(validate(Graph(layout())).empty());
  EXPECT_NO_THROW(require_valid(Graph(tile())));
  EXPECT_STREQ(severity_name(Severity::Error), "error");
  EXPECT_STREQ(severity_name(Severity::Warning), "warning");
  EXPECT_STREQ(severity_name(Severity::Note), "note");
}

TEST(ValidateClean, RealSampleHasNoErrors) {
  const NpzReader npz = NpzReader::open(test::data_file("cleaned_alexnet.npz"));
  const Graph g = load_graph(npz);
  const std::vector<Problem> ps = validate(g);
  EXPECT_FALSE(has_errors(ps)) << describe(ps);
  EXPECT_TRUE(ps.empty()) << describe(ps);
  EXPECT_NO_THROW(require_valid(g));
}

// ---- Edges ----

TEST(ValidateEdges, OutOfRangeIsAnError) {
  LayoutGraph g = layout();
  g.edge_index[2 * 2] = 6;       // edge 2: [6, 1], past the last node
  g.edge_index[2 * 5 + 1] = -1;  // edge 5: [5, -1]
  const Problem p = only_problem(validate(g), Severity::Error, "edge_index");
  EXPECT_TRUE(mentions(p, "2 edges")) << p.message;
  EXPECT_TRUE(mentions(p, "0..5")) << p.message;
  EXPECT_TRUE(mentions(p, "edge 2 [6, 1]")) << p.message;
}

TEST(ValidateEdges, SelfLoopIsAWarning) {
  TileGraph g = tile();
  g.edge_index[2 * 3] = 2;  // edge 3: [2, 2]
  const Problem p = only_problem(validate(g), Severity::Warning, "edge_index");
  EXPECT_TRUE(mentions(p, "self-loop")) << p.message;
  EXPECT_TRUE(mentions(p, "edge 3 [2, 2]")) << p.message;
}

TEST(ValidateEdges, AgainstTopologicalOrderIsAWarning) {
  LayoutGraph g = layout();
  // Edge 4 becomes [1, 4]: node 1 consumes node 4, which comes after it.
  g.edge_index[2 * 4] = 1;
  g.edge_index[2 * 4 + 1] = 4;
  const Problem p = only_problem(validate(g), Severity::Warning, "edge_index");
  EXPECT_TRUE(mentions(p, "topological")) << p.message;
  EXPECT_TRUE(mentions(p, "edge 4 [1, 4]")) << p.message;
  EXPECT_FALSE(has_errors(validate(g)));
}

// ---- Node features and opcodes ----

TEST(ValidateNodes, NonFiniteFeatureIsAnErrorWithFirstLocation) {
  LayoutGraph g = layout();
  const int64_t w = SmallLayout::kNodeFeatWidth;
  g.node_feat[4 * w + 1] = kInf;
  g.node_feat[2 * w + 3] = kNaN;
  g.node_feat[5 * w + 6] = -kInf;
  const Problem p = only_problem(validate(g), Severity::Error, "node_feat");
  EXPECT_TRUE(mentions(p, "3 non-finite")) << p.message;
  EXPECT_TRUE(mentions(p, "[2, 3]")) << p.message;
}

TEST(ValidateNodes, UnknownOpcodeIsAWarning) {
  TileGraph g = tile();
  g.node_opcode[3] = 121;
  const Problem p = only_problem(validate(g), Severity::Warning, "node_opcode");
  EXPECT_TRUE(mentions(p, "node 3")) << p.message;
}

TEST(ValidateNodes, EmptyGraphIsAnError) {
  const std::vector<Problem> ps = validate(LayoutGraph{});
  EXPECT_TRUE(has_errors(ps));
}

// ---- Layout configs ----

TEST(ValidateLayout, ConfigIdsOutOfRangeAreAnError) {
  LayoutGraph g = layout();
  g.node_config_ids = {1, 3, 6};
  const Problem p = only_problem(validate(g), Severity::Error, "node_config_ids");
  EXPECT_TRUE(mentions(p, "entry 2")) << p.message;

  g.node_config_ids = {-1, 3, 4};
  const Problem q = only_problem(validate(g), Severity::Error, "node_config_ids");
  EXPECT_TRUE(mentions(q, "entry 0")) << q.message;
}

TEST(ValidateLayout, RepeatedConfigIdsAreAnError) {
  LayoutGraph g = layout();
  g.node_config_ids = {1, 3, 1};
  const std::vector<Problem> ps = validate(g);
  ASSERT_TRUE(has_errors(ps)) << describe(ps);
  bool found = false;
  for (const Problem& p : ps)
    if (p.severity == Severity::Error && p.array == "node_config_ids" && mentions(p, "repeated")) {
      found = true;
      EXPECT_TRUE(mentions(p, "entry 2")) << p.message;
    }
  EXPECT_TRUE(found) << describe(ps);
}

TEST(ValidateLayout, UnsortedConfigIdsAreAWarning) {
  LayoutGraph g = layout();
  g.node_config_ids = {4, 1, 3};
  only_problem(validate(g), Severity::Warning, "node_config_ids");
}

TEST(ValidateLayout, ValuesOutsideMinusOneToFiveAreAWarning) {
  LayoutGraph g = layout();
  const int64_t row = SmallLayout::kConfigurable * SmallLayout::kConfigFeatWidth;  // 12
  g.node_config_feat[3 * row + 5] = 6;
  g.node_config_feat[4 * row + 0] = -2;
  g.node_config_feat[1 * row + 7] = 2.5f;  // not an integer
  const Problem p = only_problem(validate(g), Severity::Warning, "node_config_feat");
  EXPECT_TRUE(mentions(p, "3 layout values")) << p.message;
  EXPECT_TRUE(mentions(p, "config 1, element 7 of its row: 2.5)")) << p.message;
}

TEST(ValidateLayout, NonFiniteConfigValueIsAnError) {
  LayoutGraph g = layout();
  const int64_t row = SmallLayout::kConfigurable * SmallLayout::kConfigFeatWidth;
  g.node_config_feat[2 * row + 11] = kNaN;
  const Problem p = only_problem(validate(g), Severity::Error, "node_config_feat");
  EXPECT_TRUE(mentions(p, "config 2, element 11 of its row)")) << p.message;
}

TEST(ValidateLayout, StreamedCheckMatchesWholeCheck) {
  std::vector<float> v = SmallLayout::config_feat();
  v[13] = 9;
  v[40] = kInf;
  v[41] = -3;
  const int64_t row = SmallLayout::kConfigurable * SmallLayout::kConfigFeatWidth;
  LayoutConfigCheck whole(row);
  whole.add(v.data(), static_cast<int64_t>(v.size()));
  std::vector<Problem> a;
  whole.report(&a);

  LayoutConfigCheck chunked(row);
  for (size_t at = 0; at < v.size(); at += row) chunked.add(v.data() + at, row);
  std::vector<Problem> b;
  chunked.report(&b);

  ASSERT_EQ(a.size(), 2u) << describe(a);
  ASSERT_EQ(b.size(), a.size()) << describe(b);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].severity, b[i].severity);
    EXPECT_EQ(a[i].array, b[i].array);
    EXPECT_EQ(a[i].message, b[i].message);
  }
  EXPECT_EQ(a[0].severity, Severity::Error);
  EXPECT_TRUE(mentions(a[0], "config 3, element 4 of its row)")) << a[0].message;
  EXPECT_EQ(a[1].severity, Severity::Warning);
  EXPECT_TRUE(mentions(a[1], "2 layout values")) << a[1].message;
  EXPECT_TRUE(mentions(a[1], "config 1, element 1 of its row: 9)")) << a[1].message;
}

TEST(ValidateLayout, WithoutConfigFeaturesValuesAreNotChecked) {
  GraphArrays arrays = SmallLayout::arrays();
  std::vector<float> v = SmallLayout::config_feat();
  v[0] = 42;
  arrays.set("node_config_feat", v, {SmallLayout::kConfigs, SmallLayout::kConfigurable, SmallLayout::kConfigFeatWidth});
  LoadOptions opt;
  opt.config_features = false;
  EXPECT_TRUE(validate(load_layout_graph(arrays.reader(), opt)).empty());
  only_problem(validate(load_layout_graph(arrays.reader())), Severity::Warning, "node_config_feat");
}

TEST(ValidateLayout, DecreasingNodeSplitsAreAWarning) {
  LayoutGraph g = layout();
  g.node_splits = {0, 4, 2};
  const Problem p = only_problem(validate(g), Severity::Warning, "node_splits");
  EXPECT_TRUE(mentions(p, "entry 2")) << p.message;

  g.node_splits = {0, 7};  // past the last node
  only_problem(validate(g), Severity::Warning, "node_splits");
  g.node_splits = {0, 6};  // the end of the graph is a valid bound
  EXPECT_TRUE(validate(g).empty()) << describe(validate(g));
}

TEST(ValidateLayout, NoConfigsIsAnError) {
  GraphArrays a = SmallLayout::arrays();
  a.set("node_config_feat", std::vector<float>{}, {0, SmallLayout::kConfigurable, SmallLayout::kConfigFeatWidth});
  a.set("config_runtime", std::vector<int64_t>{}, {0});
  const Problem p = only_problem(validate(load_layout_graph(a.reader())), Severity::Error, "node_config_feat");
  EXPECT_TRUE(mentions(p, "no configs")) << p.message;
}

// ---- Runtimes ----

TEST(ValidateRuntime, NegativeRuntimeIsAnError) {
  LayoutGraph g = layout();
  g.config_runtime[3] = -5;
  const Problem p = only_problem(validate(g), Severity::Error, "config_runtime");
  EXPECT_TRUE(mentions(p, "config 3")) << p.message;

  TileGraph t = tile();
  t.config_runtime[1] = -1;
  only_problem(validate(t), Severity::Error, "config_runtime");
}

TEST(ValidateRuntime, AllZeroRuntimesAreANote) {
  LayoutGraph g = layout();
  g.config_runtime.assign(g.config_runtime.size(), 0);
  const std::vector<Problem> ps = validate(g);
  only_problem(ps, Severity::Note, "config_runtime");
  EXPECT_FALSE(has_errors(ps));
  EXPECT_NO_THROW(require_valid(Graph(g)));
}

TEST(ValidateRuntime, SomeZeroRuntimesAreAWarning) {
  TileGraph g = tile();
  g.config_runtime[2] = 0;
  const Problem p = only_problem(validate(g), Severity::Warning, "config_runtime");
  EXPECT_TRUE(mentions(p, "1 config with runtime 0")) << p.message;
  EXPECT_TRUE(mentions(p, "never measured")) << p.message;
}

TEST(ValidateRuntime, NonPositiveNormalizerIsAnError) {
  TileGraph g = tile();
  g.config_runtime_normalizers[2] = 0;
  g.config_runtime_normalizers[3] = -7;
  const Problem p = only_problem(validate(g), Severity::Error, "config_runtime_normalizers");
  EXPECT_TRUE(mentions(p, "2 normalizers")) << p.message;
  EXPECT_TRUE(mentions(p, "config 2")) << p.message;
}

TEST(ValidateTile, NonFiniteConfigFeatIsAnError) {
  TileGraph g = tile();
  g.config_feat[2 * SmallTile::kConfigFeatWidth + 4] = kNaN;
  const Problem p = only_problem(validate(g), Severity::Error, "config_feat");
  EXPECT_TRUE(mentions(p, "[2, 4]")) << p.message;
}

// ---- require_valid ----

TEST(ValidateRequire, ThrowsWithFileAndArrayOfFirstError) {
  LayoutGraph g = layout();
  g.edge_index[0] = 99;
  g.config_runtime[0] = -1;
  try {
    require_valid(Graph(g));
    FAIL() << "no error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "layout.npz");
    EXPECT_EQ(e.array(), "edge_index");
    EXPECT_NE(std::string(e.what()).find("layout.npz"), std::string::npos) << e.what();
  }

  TileGraph t = tile();
  t.config_runtime_normalizers[0] = 0;
  try {
    require_valid(Graph(t));
    FAIL() << "no error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "tile.npz");
    EXPECT_EQ(e.array(), "config_runtime_normalizers");
  }
}

TEST(ValidateRequire, WarningsDoNotThrow) {
  LayoutGraph g = layout();
  g.node_splits = {3, 0};
  g.node_opcode[0] = 200;
  EXPECT_FALSE(validate(g).empty());
  EXPECT_FALSE(has_errors(validate(g)));
  EXPECT_NO_THROW(require_valid(Graph(g)));
}

}  // namespace
}  // namespace fastslow
