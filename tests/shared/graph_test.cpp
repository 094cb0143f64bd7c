#include "fastslow/graph/graph.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <variant>
#include <vector>

#include "fastslow/error.h"
#include "graph_builders.h"
#include "test_support.h"

namespace fastslow {
namespace {

using test::Dtypes;
using test::GraphArrays;
using test::SmallLayout;
using test::SmallTile;

// Runs `fn`, expects a fastslow::Error naming `file` and `array`, and returns
// its message for further checks.
template <class Fn>
std::string expect_error(Fn fn, const std::string& file, const std::string& array) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), file) << e.what();
    EXPECT_EQ(e.array(), array) << e.what();
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(array), std::string::npos) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no fastslow::Error thrown (expected one for " << array << ")";
  return "";
}

void expect_small_nodes(const GraphNodes& g, const std::string& file) {
  EXPECT_EQ(g.file, file);
  EXPECT_EQ(g.num_nodes, SmallLayout::kNodes);
  EXPECT_EQ(g.node_feat_width, SmallLayout::kNodeFeatWidth);
  EXPECT_EQ(g.node_feat, SmallLayout::node_feat());
  EXPECT_EQ(g.node_opcode, std::vector<int32_t>({25, 63, 26, 13, 34, 96}));
  EXPECT_EQ(g.num_edges(), SmallLayout::kEdges);
  EXPECT_EQ(g.edge_index, SmallLayout::edges());
}

class GraphDtypes : public ::testing::TestWithParam<Dtypes> {};

TEST_P(GraphDtypes, LayoutLoadsWithWidthsFromTheFile) {
  const NpzReader npz = SmallLayout::arrays(GetParam()).reader("layout.npz");
  const LayoutGraph g = load_layout_graph(npz);
  expect_small_nodes(g, "layout.npz");
  EXPECT_EQ(g.num_configs, SmallLayout::kConfigs);
  EXPECT_EQ(g.config_feat_width, SmallLayout::kConfigFeatWidth);
  EXPECT_EQ(g.num_configurable(), SmallLayout::kConfigurable);
  EXPECT_EQ(g.node_config_ids, SmallLayout::config_ids());
  EXPECT_EQ(g.node_config_feat, SmallLayout::config_feat());
  EXPECT_EQ(g.config_runtime, SmallLayout::runtime());
  EXPECT_EQ(g.node_splits, SmallLayout::splits());
  EXPECT_EQ(g.target(), std::vector<double>({500, 700, 300, 400, 700}));
}

TEST_P(GraphDtypes, TileLoadsWithWidthsFromTheFile) {
  const NpzReader npz = SmallTile::arrays(GetParam()).reader("tile.npz", Compression::Deflate);
  const TileGraph g = load_tile_graph(npz);
  expect_small_nodes(g, "tile.npz");
  EXPECT_EQ(g.num_configs, SmallTile::kConfigs);
  EXPECT_EQ(g.config_feat_width, SmallTile::kConfigFeatWidth);
  EXPECT_EQ(g.config_feat, SmallTile::config_feat());
  EXPECT_EQ(g.config_runtime, SmallTile::runtime());
  EXPECT_EQ(g.config_runtime_normalizers, SmallTile::normalizers());
  EXPECT_EQ(g.target(), std::vector<double>({2.0, 3.0, 4.0, 2.5}));
}

TEST_P(GraphDtypes, LoadGraphPicksTheKind) {
  const Graph layout = load_graph(SmallLayout::arrays(GetParam()).reader());
  ASSERT_TRUE(std::holds_alternative<LayoutGraph>(layout));
  EXPECT_EQ(std::get<LayoutGraph>(layout).num_configs, SmallLayout::kConfigs);
  const Graph tile = load_graph(SmallTile::arrays(GetParam()).reader());
  ASSERT_TRUE(std::holds_alternative<TileGraph>(tile));
  EXPECT_EQ(std::get<TileGraph>(tile).num_configs, SmallTile::kConfigs);
}

INSTANTIATE_TEST_SUITE_P(Graph, GraphDtypes, ::testing::Values(Dtypes::Documented, Dtypes::Real),
                         [](const auto& info) { return info.param == Dtypes::Real ? "Real" : "Documented"; });

TEST(GraphKind, DetectedFromTheConfigArray) {
  EXPECT_EQ(detect_graph_kind(SmallLayout::arrays().reader()), GraphKind::Layout);
  EXPECT_EQ(detect_graph_kind(SmallTile::arrays().reader()), GraphKind::Tile);
  EXPECT_STREQ(graph_kind_name(GraphKind::Tile), "tile");
  EXPECT_STREQ(graph_kind_name(GraphKind::Layout), "layout");

  GraphArrays neither = SmallTile::arrays();
  neither.erase("config_feat");
  const NpzReader npz = neither.reader("neither.npz");
  expect_error([&] { detect_graph_kind(npz); }, "neither.npz", "");
  EXPECT_THROW(load_graph(npz), Error);
}

TEST(GraphLoad, WidthsComeFromTheFile) {
  for (int64_t node_w : {1, 70, 140}) {
    for (int64_t cfg_w : {1, 10, 18}) {
      SCOPED_TRACE("node width " + std::to_string(node_w) + ", config width " + std::to_string(cfg_w));
      const int64_t n = SmallLayout::kNodes, c = SmallLayout::kConfigs, nc = SmallLayout::kConfigurable;
      std::vector<float> node_feat(static_cast<size_t>(n * node_w));
      for (size_t i = 0; i < node_feat.size(); ++i) node_feat[i] = static_cast<float>(i % 97) - 3;
      std::vector<float> cfg(static_cast<size_t>(c * nc * cfg_w));
      for (size_t i = 0; i < cfg.size(); ++i) cfg[i] = static_cast<float>(i % 7) - 1;

      GraphArrays layout = SmallLayout::arrays();
      layout.set("node_feat", node_feat, {n, node_w});
      layout.set("node_config_feat", cfg, {c, nc, cfg_w});
      const LayoutGraph lg = load_layout_graph(layout.reader());
      EXPECT_EQ(lg.node_feat_width, node_w);
      EXPECT_EQ(lg.config_feat_width, cfg_w);
      EXPECT_EQ(lg.node_feat, node_feat);
      EXPECT_EQ(lg.node_config_feat, cfg);

      GraphArrays tile = SmallTile::arrays();
      tile.set("node_feat", node_feat, {n, node_w});
      std::vector<float> tcfg(static_cast<size_t>(SmallTile::kConfigs * cfg_w), 2.0f);
      tile.set("config_feat", tcfg, {SmallTile::kConfigs, cfg_w});
      const TileGraph tg = load_tile_graph(tile.reader());
      EXPECT_EQ(tg.node_feat_width, node_w);
      EXPECT_EQ(tg.config_feat_width, cfg_w);
      EXPECT_EQ(tg.config_feat, tcfg);
    }
  }
}

TEST(GraphLoad, EmptyOneDimensionalEdgeListIsAccepted) {
  GraphArrays a = SmallLayout::arrays();
  a.set("edge_index", std::vector<int64_t>{}, {0});
  const LayoutGraph g = load_layout_graph(a.reader());
  EXPECT_EQ(g.num_edges(), 0);
  EXPECT_EQ(g.num_nodes, SmallLayout::kNodes);
}

TEST(GraphLoad, Float64FeaturesAreConverted) {
  GraphArrays a = SmallTile::arrays();
  const std::vector<float> f = SmallTile::node_feat();
  a.set("node_feat", std::vector<double>(f.begin(), f.end()), {SmallTile::kNodes, SmallTile::kNodeFeatWidth});
  EXPECT_EQ(load_tile_graph(a.reader()).node_feat, f);
}

TEST(GraphLoad, LayoutWithoutConfigFeaturesKeepsCounts) {
  LoadOptions opt;
  opt.config_features = false;
  const LayoutGraph g = load_layout_graph(SmallLayout::arrays().reader(), opt);
  EXPECT_TRUE(g.node_config_feat.empty());
  EXPECT_EQ(g.num_configs, SmallLayout::kConfigs);
  EXPECT_EQ(g.config_feat_width, SmallLayout::kConfigFeatWidth);
  EXPECT_EQ(g.config_runtime, SmallLayout::runtime());
  EXPECT_EQ(g.node_config_ids, SmallLayout::config_ids());

  const TileGraph t = load_tile_graph(SmallTile::arrays().reader(), opt);
  EXPECT_TRUE(t.config_feat.empty());
  EXPECT_EQ(t.num_configs, SmallTile::kConfigs);
  EXPECT_EQ(t.config_runtime, SmallTile::runtime());
}

TEST(GraphLoad, NodeSplitsAreOptional) {
  GraphArrays a = SmallLayout::arrays();
  a.erase("node_splits");
  EXPECT_TRUE(load_layout_graph(a.reader()).node_splits.empty());
}

// ---- Shape mismatches between arrays name the file and the array. ----

TEST(GraphShapes, OpcodeLengthMustMatchNodes) {
  GraphArrays a = SmallLayout::arrays();
  a.set("node_opcode", std::vector<uint8_t>{1, 2, 3, 4, 5}, {5});
  const NpzReader npz = a.reader("bad.npz");
  const std::string msg = expect_error([&] { load_layout_graph(npz); }, "bad.npz", "node_opcode");
  EXPECT_NE(msg.find("(5,)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(6,)"), std::string::npos) << msg;
}

TEST(GraphShapes, NodeFeatMustBeTwoDimensional) {
  GraphArrays a = SmallTile::arrays();
  a.set("node_feat", SmallTile::node_feat(), {SmallTile::kNodes * SmallTile::kNodeFeatWidth});
  const NpzReader npz = a.reader("bad.npz");
  expect_error([&] { load_tile_graph(npz); }, "bad.npz", "node_feat");
}

TEST(GraphShapes, EdgeIndexMustBeMByTwo) {
  const std::vector<int64_t> e = SmallLayout::edges();
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{2, SmallLayout::kEdges}, {SmallLayout::kEdges * 2}, {SmallLayout::kEdges, 2, 1}}) {
    GraphArrays a = SmallLayout::arrays();
    a.set("edge_index", e, shape);
    const NpzReader npz = a.reader("edges.npz");
    expect_error([&] { load_layout_graph(npz); }, "edges.npz", "edge_index");
  }
  GraphArrays three = SmallTile::arrays();
  three.set("edge_index", std::vector<int64_t>{1, 0, 0, 2, 1, 0}, {2, 3});
  const NpzReader npz = three.reader("edges.npz");
  expect_error([&] { load_tile_graph(npz); }, "edges.npz", "edge_index");
}

TEST(GraphShapes, ConfigFeatSecondAxisMustMatchConfigIds) {
  GraphArrays a = SmallLayout::arrays();
  a.set("node_config_ids", std::vector<int64_t>{1, 3}, {2});
  const NpzReader npz = a.reader("ids.npz");
  const std::string msg = expect_error([&] { load_layout_graph(npz); }, "ids.npz", "node_config_feat");
  EXPECT_NE(msg.find("(5, 3, 4)"), std::string::npos) << msg;
}

TEST(GraphShapes, LayoutRuntimeLengthMustMatchConfigs) {
  GraphArrays a = SmallLayout::arrays();
  a.set("config_runtime", std::vector<int64_t>{1, 2, 3, 4}, {4});
  const NpzReader npz = a.reader("rt.npz");
  expect_error([&] { load_layout_graph(npz); }, "rt.npz", "config_runtime");
}

TEST(GraphShapes, TileRuntimeLengthMustMatchConfigs) {
  GraphArrays a = SmallTile::arrays();
  a.set("config_runtime", std::vector<int64_t>{1, 2, 3, 4, 5}, {5});
  const NpzReader npz = a.reader("rt.npz");
  expect_error([&] { load_tile_graph(npz); }, "rt.npz", "config_runtime");
}

TEST(GraphShapes, TileNormalizerLengthMustMatchConfigs) {
  GraphArrays a = SmallTile::arrays();
  a.set("config_runtime_normalizers", std::vector<int64_t>{1, 2, 3}, {3});
  const NpzReader npz = a.reader("norm.npz");
  expect_error([&] { load_tile_graph(npz); }, "norm.npz", "config_runtime_normalizers");
}

TEST(GraphShapes, MissingArraysAreNamed) {
  for (const char* name : {"node_feat", "node_opcode", "edge_index", "node_config_ids", "node_config_feat", "config_runtime"}) {
    GraphArrays a = SmallLayout::arrays();
    a.erase(name);
    const NpzReader npz = a.reader("gone.npz");
    const std::string msg = expect_error([&] { load_layout_graph(npz); }, "gone.npz", name);
    EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
  }
  for (const char* name : {"config_feat", "config_runtime", "config_runtime_normalizers"}) {
    GraphArrays a = SmallTile::arrays();
    a.erase(name);
    const NpzReader npz = a.reader("gone.npz");
    expect_error([&] { load_tile_graph(npz); }, "gone.npz", name);
  }
}

TEST(GraphShapes, OpcodesBeyondInt32AreRejected) {
  GraphArrays a = SmallLayout::arrays();
  a.set("node_opcode", std::vector<int64_t>{1, 2, 3, int64_t(1) << 40, 5, 6}, {SmallLayout::kNodes});
  const NpzReader npz = a.reader("op.npz");
  expect_error([&] { load_layout_graph(npz); }, "op.npz", "node_opcode");
}

TEST(GraphShapes, NonIntegralEdgesAreRejected) {
  GraphArrays a = SmallTile::arrays();
  a.set("edge_index", std::vector<float>{1, 0, 2, 0.5f}, {2, 2});
  const NpzReader npz = a.reader("frac.npz");
  expect_error([&] { load_tile_graph(npz); }, "frac.npz", "edge_index");
}

// ---- The real AlexNet layout sample. ----

TEST(GraphSample, RealAlexNetLoads) {
  const NpzReader npz = NpzReader::open(test::data_file("cleaned_alexnet.npz"));
  EXPECT_EQ(detect_graph_kind(npz), GraphKind::Layout);
  EXPECT_TRUE(npz.header("node_feat").fortran_order);
  EXPECT_EQ(npz.header("node_opcode").dtype, DType::U8);
  EXPECT_EQ(npz.header("edge_index").dtype, DType::I64);

  const Graph any = load_graph(npz);
  ASSERT_TRUE(std::holds_alternative<LayoutGraph>(any));
  const LayoutGraph& g = std::get<LayoutGraph>(any);
  EXPECT_EQ(g.num_nodes, 372);
  EXPECT_EQ(g.num_edges(), 597);
  EXPECT_EQ(g.num_configurable(), 26);
  EXPECT_EQ(g.num_configs, 47712);
  EXPECT_EQ(g.node_feat_width, 70);
  EXPECT_EQ(g.config_feat_width, 10);
  EXPECT_EQ(g.node_feat.size(), 372u * 70u);
  EXPECT_EQ(g.node_opcode.size(), 372u);
  EXPECT_EQ(g.node_config_feat.size(), 47712u * 26u * 10u);
  EXPECT_EQ(g.config_runtime.size(), 47712u);
  EXPECT_EQ(g.node_splits, std::vector<int64_t>({0, 324, 372}));

  // Fortran-ordered node_feat: the whole-array read agrees with a row gather.
  const NpyArray rows = npz.read_rows("node_feat", 0, 372);
  ASSERT_EQ(rows.count(), 372 * 70);
  for (int64_t i = 0; i < rows.count(); ++i) ASSERT_EQ(g.node_feat[i], rows.as<float>()[i]) << "element " << i;
}

TEST(GraphSample, RealAlexNetWithoutConfigFeatures) {
  LoadOptions opt;
  opt.config_features = false;
  const LayoutGraph g = load_layout_graph(NpzReader::open(test::data_file("cleaned_alexnet.npz")), opt);
  EXPECT_TRUE(g.node_config_feat.empty());
  EXPECT_EQ(g.num_configs, 47712);
  EXPECT_EQ(g.config_feat_width, 10);
  EXPECT_EQ(g.config_runtime.size(), 47712u);
}

TEST(GraphSample, RealAlexNetMatchesNumpy) {
  if (!test::numpy_available()) GTEST_SKIP() << "numpy not available";
  const std::string path = test::data_file("cleaned_alexnet.npz");
  const LayoutGraph g = load_layout_graph(NpzReader::open(path));
  test::TempDir dir;
  const std::string script =
      "import numpy as np\n"
      "d = np.load('" + path + "')\n"
      "out = '" + dir.path() + "/'\n"
      "d['node_feat'].astype('<f4').tofile(out + 'node_feat')\n"
      "d['node_opcode'].astype('<i4').tofile(out + 'node_opcode')\n"
      "d['edge_index'].astype('<i8').tofile(out + 'edge_index')\n"
      "d['node_config_ids'].astype('<i8').tofile(out + 'node_config_ids')\n"
      "d['config_runtime'].astype('<i8').tofile(out + 'config_runtime')\n"
      "d['node_config_feat'].astype('<f4').tofile(out + 'node_config_feat')\n";
  ASSERT_EQ(test::run_python(script), 0);

  auto expect_bytes = [&](const std::string& name, const void* data, size_t bytes) {
    const std::vector<uint8_t> want = test::read_bytes(dir.file(name));
    ASSERT_EQ(want.size(), bytes) << name;
    EXPECT_EQ(std::memcmp(want.data(), data, bytes), 0) << name << " differs from numpy";
  };
  expect_bytes("node_feat", g.node_feat.data(), g.node_feat.size() * 4);
  expect_bytes("node_opcode", g.node_opcode.data(), g.node_opcode.size() * 4);
  expect_bytes("edge_index", g.edge_index.data(), g.edge_index.size() * 8);
  expect_bytes("node_config_ids", g.node_config_ids.data(), g.node_config_ids.size() * 8);
  expect_bytes("config_runtime", g.config_runtime.data(), g.config_runtime.size() * 8);
  expect_bytes("node_config_feat", g.node_config_feat.data(), g.node_config_feat.size() * 4);

  // Element-wise too, so a failure names the first differing feature.
  const std::vector<uint8_t> raw = test::read_bytes(dir.file("node_feat"));
  std::vector<float> ref(raw.size() / 4);
  std::memcpy(ref.data(), raw.data(), raw.size());
  for (size_t i = 0; i < ref.size(); ++i)
    ASSERT_EQ(g.node_feat[i], ref[i]) << "node_feat[" << i / 70 << ", " << i % 70 << "]";
}

// A fuzz regression (fuzz/corpus/graph_validate/regress-config-row-overflow.npz):
// node_config_feat of shape (0, 2, 2^62) holds no bytes, so the archive opens,
// but a config row of 2 x 2^62 values overflowed int64 in validate (UBSan).
TEST(GraphShapes, ConfigRowTooLargeToAddressIsAnError) {
  const NpzReader npz = NpzReader::from_memory(
      "big.npz", test::fuzz_input("graph_validate", "regress-config-row-overflow.npz"));
  const std::string e = expect_error([&] { load_graph(npz); }, "big.npz", "node_config_feat");
  EXPECT_NE(e.find("too large"), std::string::npos) << e;
  LoadOptions no_features;
  no_features.config_features = false;
  expect_error([&] { load_graph(npz, no_features); }, "big.npz", "node_config_feat");
}

}  // namespace
}  // namespace fastslow
