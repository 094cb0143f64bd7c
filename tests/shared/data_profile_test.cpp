#include "fastslow/data/data_profile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/data/graph_cache.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/synth/dataset.h"
#include "test_support.h"

namespace fastslow {
namespace {

constexpr int64_t kWidth = 140;  // published node features, so findings name columns
constexpr int64_t kConfigWidth = 18;

int op(const char* name) { return require_opcode(name); }

// A layout sample: `nodes` nodes of add / convolution (every third one,
// configurable), feature column 28 (shape_dimensions_product) = 10 + v % 60, configs
// whose layout values cycle through -1..3.
GraphSample layout_sample(int64_t nodes, int64_t configs = 8) {
  GraphSample s;
  s.kind = GraphKind::Layout;
  s.node_feat_width = kWidth;
  s.node_feat.assign(static_cast<size_t>(nodes * kWidth), 0.f);
  for (int64_t v = 0; v < nodes; ++v) {
    s.node_feat[static_cast<size_t>(v * kWidth + 28)] = static_cast<float>(10 + v % 60);
    const bool conv = v % 3 == 0;
    s.node_opcode.push_back(op(conv ? "convolution" : "add"));
    if (conv) s.config_positions.push_back(v);
  }
  s.config_feat_width = kConfigWidth;
  for (int64_t c = 0; c < configs; ++c)
    for (int64_t n = 0; n < s.config_nodes(); ++n)
      for (int64_t k = 0; k < kConfigWidth; ++k) s.config_rows.push_back(static_cast<float>((c + n + k) % 5 - 1));
  return s;
}

DataProfile profile_of(const std::vector<GraphSample>& samples, const std::string& origin = "generated") {
  DataProfileBuilder b(GraphKind::Layout, origin, "layout:xla:random");
  for (const GraphSample& s : samples) b.add(s, "g.npz");
  return b.finish();
}

bool mentions(const ShiftReport& r, const std::string& text) {
  for (const std::string& f : r.findings)
    if (f.find(text) != std::string::npos) return true;
  return false;
}

TEST(DataProfile, RecordsRangesOpcodesValuesAndSizes) {
  const DataProfile p = profile_of({layout_sample(30), layout_sample(60)});
  EXPECT_EQ(p.graphs, 2);
  EXPECT_EQ(p.min_nodes, 30);
  EXPECT_EQ(p.max_nodes, 60);
  EXPECT_EQ(p.min_config_nodes, 10);
  EXPECT_EQ(p.max_config_nodes, 20);
  EXPECT_EQ(p.node_min[28], 10);
  EXPECT_EQ(p.node_max[28], 69);
  EXPECT_EQ(p.node_min[0], 0);
  EXPECT_EQ(p.node_max[0], 0);
  const std::vector<int32_t> ops = {std::min(op("add"), op("convolution")), std::max(op("add"), op("convolution"))};
  EXPECT_EQ(p.opcodes, ops);
  ASSERT_EQ(p.layout_values.size(), static_cast<size_t>(kConfigWidth));
  for (const auto& v : p.layout_values) EXPECT_EQ(v, (std::vector<int32_t>{-1, 0, 1, 2, 3}));
  EXPECT_EQ(p.summary(), "generated data (layout:xla:random): 2 graphs of 30-60 nodes, 10-20 configurable, 2 opcodes");
}

TEST(DataProfile, JsonRoundTripAndErrorsNameTheFile) {
  const DataProfile p = profile_of({layout_sample(30)}, "real");
  const DataProfile q = DataProfile::from_json(p.to_json(), "m/model.json");
  EXPECT_EQ(q.to_json(), p.to_json());
  EXPECT_EQ(q.origin, "real");
  std::string e = test::error_of([] { DataProfile::from_json(nlohmann::json::array(), "m/model.json"); });
  EXPECT_NE(e.find("m/model.json"), std::string::npos) << e;
  e = test::error_of([&] {
    nlohmann::json j = p.to_json();
    j["version"] = 9;
    DataProfile::from_json(j, "m/model.json");
  });
  EXPECT_NE(e.find("version 9"), std::string::npos) << e;
  e = test::error_of([] { DataProfile::from_json(nlohmann::json::parse(R"({"version":1,"kind":"layout"})"), "m/model.json"); });
  EXPECT_NE(e.find("origin"), std::string::npos) << e;
  e = test::error_of([] { DataProfileBuilder(GraphKind::Tile, "real", "x").finish(); });
  EXPECT_NE(e.find("no graphs"), std::string::npos) << e;
}

TEST(DataProfile, WidthsMustAgreeAcrossGraphs) {
  DataProfileBuilder b(GraphKind::Layout, "real", "x");
  b.add(layout_sample(30), "a.npz");
  GraphSample other = layout_sample(30);
  other.config_feat_width = 12;
  const std::string e = test::error_of([&] { b.add(other, "b.npz"); });
  EXPECT_NE(e.find("b.npz"), std::string::npos) << e;
}

TEST(DistributionShift, NothingToReportInsideTheProfile) {
  const DataProfile p = profile_of({layout_sample(30), layout_sample(60)});
  const ShiftReport r = distribution_shift(p, layout_sample(45));
  EXPECT_FALSE(r.shifted()) << r.findings.front();
  EXPECT_EQ(shift_warning("x.npz", p, r), "");
}

TEST(DistributionShift, UnseenOpcodes) {
  const DataProfile p = profile_of({layout_sample(60)});
  // One plain node of 60 with a new opcode (1.7 %): reported.
  GraphSample g = layout_sample(60);
  g.node_opcode[1] = op("fusion");
  ShiftReport r = distribution_shift(p, g);
  EXPECT_TRUE(mentions(r, "1 of 60 nodes")) << (r.findings.empty() ? "" : r.findings[0]);
  EXPECT_TRUE(mentions(r, "fusion 1"));
  EXPECT_NEAR(r.unseen_opcode_share, 1.0 / 60, 1e-12);
  // Under 1 % of the nodes and none configurable: not reported.
  GraphSample big = layout_sample(120);
  DataProfile wide = profile_of({big});
  big.node_opcode[1] = op("fusion");
  EXPECT_FALSE(distribution_shift(wide, big).shifted());
  // A configurable node with one: reported however rare.
  big.node_opcode[1] = op("add");
  big.node_opcode[0] = op("dot");
  r = distribution_shift(wide, big);
  EXPECT_TRUE(mentions(r, "1 of them configurable")) << (r.findings.empty() ? "" : r.findings[0]);
}

TEST(DistributionShift, FeaturesOutsideTheTrainedRangeBeyondATenthOfIt) {
  const DataProfile p = profile_of({layout_sample(60)});  // column 28: 10..69
  GraphSample g = layout_sample(60);
  // A size-like column (10..69): up to twice its maximum is fine.
  for (int v = 0; v < 6; ++v) g.node_feat[static_cast<size_t>(v * kWidth + 28)] = 138;
  EXPECT_FALSE(distribution_shift(p, g).shifted());
  for (int v = 0; v < 6; ++v) g.node_feat[static_cast<size_t>(v * kWidth + 28)] = 4;  // under half its minimum
  EXPECT_NEAR(distribution_shift(p, g).out_of_range_share, 0.1, 1e-12);
  // Other columns: a tenth of the range beyond it (is_root 0..1 here).
  GraphSample roots = layout_sample(60);
  roots.node_feat[0] = 1;
  const DataProfile q = profile_of({roots});
  for (int v = 0; v < 6; ++v) roots.node_feat[static_cast<size_t>(v * kWidth)] = 1.09f;
  EXPECT_FALSE(distribution_shift(q, roots).shifted());
  for (int v = 0; v < 6; ++v) roots.node_feat[static_cast<size_t>(v * kWidth)] = 1.2f;
  EXPECT_TRUE(mentions(distribution_shift(q, roots), "is_root in 6 nodes"));
  for (int v = 0; v < 6; ++v) g.node_feat[static_cast<size_t>(v * kWidth + 28)] = 1e6f;  // 10 % of the nodes
  ShiftReport r = distribution_shift(p, g);
  EXPECT_NEAR(r.out_of_range_share, 0.1, 1e-12);
  EXPECT_TRUE(mentions(r, "shape_dimensions_product in 6 nodes, e.g. 1e+06 against 10..69"))
      << (r.findings.empty() ? "" : r.findings[0]);
  // A column constant in training (0): any other value is outside it.
  g = layout_sample(60);
  for (int v = 0; v < 3; ++v) g.node_feat[static_cast<size_t>(v * kWidth + 1)] = 32;
  EXPECT_NEAR(distribution_shift(p, g).out_of_range_share, 0.05, 1e-12);
  EXPECT_TRUE(mentions(distribution_shift(p, g), "element_size_in_bits"));
}

TEST(DistributionShift, GraphSizeBeyondHalfOrTwiceTheTrainedOnes) {
  const DataProfile p = profile_of({layout_sample(30), layout_sample(60)});
  EXPECT_FALSE(distribution_shift(p, layout_sample(120)).shifted());
  const ShiftReport r = distribution_shift(p, layout_sample(150));
  EXPECT_TRUE(mentions(r, "the model reads 150 nodes of this graph; it was trained on 30-60 nodes"));
  EXPECT_TRUE(mentions(r, "50 configurable nodes of this graph; it was trained on 10-20 configurable nodes"));
  EXPECT_TRUE(mentions(distribution_shift(p, layout_sample(12)), "trained on 30-60 nodes"));
}

TEST(DistributionShift, LayoutValuesNeverTrainedOn) {
  const DataProfile p = profile_of({layout_sample(30)});
  GraphSample g = layout_sample(30);
  g.config_rows[5] = 4;  // one setting of 80 (8 configs x 10 nodes): 1.25 %
  const ShiftReport r = distribution_shift(p, g);
  EXPECT_NEAR(r.unseen_value_share, 1.0 / 80, 1e-12);
  EXPECT_TRUE(mentions(r, config_feature_names(GraphKind::Layout)[5] + " = 4")) << (r.findings.empty() ? "" : r.findings[0]);
  GraphSample many = layout_sample(30, 200);  // 2,000 settings: one is 0.05 %
  many.config_rows[5] = 4;
  EXPECT_FALSE(distribution_shift(p, many).shifted());
  // A value that is no dim index is named at any share: `info` warns of it, and `rank` ranked it silently.
  many.config_rows[7] = 99;
  const ShiftReport bad = distribution_shift(p, many);
  ASSERT_TRUE(bad.shifted());
  EXPECT_TRUE(mentions(bad, config_feature_names(GraphKind::Layout)[7] + " = 99")) << bad.findings[0];
  EXPECT_TRUE(mentions(bad, "no dim index")) << bad.findings[0];
}

TEST(DistributionShift, TileConfigRanges) {
  auto tile = [](float scale) {
    GraphSample s;
    s.kind = GraphKind::Tile;
    s.node_feat_width = kWidth;
    s.node_feat.assign(4 * kWidth, 0.f);
    s.node_opcode.assign(4, op("add"));
    s.config_feat_width = 24;
    for (int c = 0; c < 20; ++c)
      for (int k = 0; k < 24; ++k) s.config_rows.push_back(scale * static_cast<float>(c % 8));
    return s;
  };
  DataProfileBuilder b(GraphKind::Tile, "real", "tile:xla");
  b.add(tile(1), "k.npz");
  const DataProfile p = b.finish();
  EXPECT_EQ(p.config_max[3], 7);
  EXPECT_FALSE(distribution_shift(p, tile(1)).shifted());
  const ShiftReport r = distribution_shift(p, tile(4));
  EXPECT_GT(r.config_out_of_range_share, 0.4);
  EXPECT_TRUE(mentions(r, config_feature_names(GraphKind::Tile)[0])) << (r.findings.empty() ? "" : r.findings[0]);
}

TEST(DataProfile, SpreadSample) {
  EXPECT_EQ(spread_sample(10, 4), (std::vector<int64_t>{0, 2, 5, 7}));
  EXPECT_EQ(spread_sample(3, 4), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(spread_sample(0, 4).empty());
}

TEST(DataProfile, OriginIsGeneratedUnderASynthRoot) {
  test::TempDir dir;
  std::filesystem::create_directories(dir.file("npz/layout"));
  std::ofstream(dir.file("npz/layout/g.npz")) << "x";
  EXPECT_EQ(data_origin(dir.file("npz/layout/g.npz")), "real");
  std::ofstream(dir.file("synth.json")) << "{}";
  EXPECT_EQ(data_origin(dir.file("npz/layout/g.npz")), "generated");
  EXPECT_EQ(data_origin(dir.path()), "generated");
  EXPECT_EQ(data_origin(dir.file("npz")), "generated");
  // One graph from `fastslow synth --graph`: its answers beside it.
  test::TempDir one;
  std::filesystem::create_directories(one.file("answers"));
  std::ofstream(one.file("g.npz")) << "x";
  EXPECT_EQ(data_origin(one.file("g.npz")), "real");
  std::ofstream(one.file("answers/g.npz")) << "x";
  EXPECT_EQ(data_origin(one.file("g.npz")), "generated");
}

// The point of it all: a model trained on generated layout graphs is told
// that the real unet3d graph is not what it learned from, and a real graph
// is not told it differs from itself.
TEST(DistributionShift, RealUnet3dAgainstGeneratedTrainingGraphs) {
  test::TempDir dir;
  ASSERT_TRUE(synth::synth_dataset(dir.path(), synth::SynthScale::Tiny, 7, nullptr, {"layout:xla:default"}));
  const std::string root = dir.file("npz/layout/xla/default/train");
  DataProfileBuilder b(GraphKind::Layout, data_origin(root), "layout:xla:default");
  for (const auto& f : std::filesystem::directory_iterator(root))
    b.add(sample_graph(CachedGraph::open(f.path().string(), {dir.file("cache"), 1})), f.path().string());
  const DataProfile generated = b.finish();
  EXPECT_EQ(generated.origin, "generated");

  const std::string unet = test::data_file("real/layout_xla_default_train_unet3d.npz");
  const GraphSample real = sample_graph(CachedGraph::open(unet, {dir.file("cache"), 1}));
  const ShiftReport r = distribution_shift(generated, real);
  EXPECT_TRUE(r.shifted());
  EXPECT_GT(r.unseen_opcode_share, 0.05);
  const std::string w = shift_warning(unet, generated, r);
  EXPECT_NE(w.find(unet), std::string::npos);
  EXPECT_NE(w.find("generated data"), std::string::npos);

  DataProfileBuilder self(GraphKind::Layout, data_origin(unet), "unet3d");
  self.add(real, unet);
  EXPECT_EQ(self.finish().origin, "real");
  EXPECT_FALSE(distribution_shift(self.finish(), real).shifted());
}

TEST(DataProfile, NumbersOutsideTheirTypeAreErrors) {
  // nlohmann's get<T> casts: a double beyond an integer type is undefined
  // behaviour (the model_card fuzzer found 2.4e21 among the opcodes), an
  // integer beyond it wraps (4294967297 read as opcode 1).
  const DataProfile p = profile_of({layout_sample(30)}, "real");
  const nlohmann::json good = p.to_json();
  auto error = [&](const char* key, const nlohmann::json& value) {
    nlohmann::json j = good;
    j[key] = value;
    return test::error_of([&] { DataProfile::from_json(j, "m/model.json"); });
  };
  for (const auto& [key, value] : std::vector<std::pair<const char*, nlohmann::json>>{
           {"version", 1e300},
           {"graphs", 1e30},
           {"graphs", 18446744073709551615ull},
           {"nodes", {1.5, 2}},
           {"opcodes", {2.4e21}},
           {"opcodes", {4294967297}},
           {"node_min", nlohmann::json::array({1e300})},
           {"config_nodes", {"1", 2}},
           {"layout_values", {{-1, 1e10}}},
           {"layout_values", {7}}}) {
    const std::string e = error(key, value);
    EXPECT_NE(e.find(std::string("\"") + key + "\""), std::string::npos) << key << " = " << value.dump() << ": " << e;
    EXPECT_NE(e.find("m/model.json"), std::string::npos) << e;
  }
  // Integers written as floats still read.
  nlohmann::json j = good;
  j["graphs"] = 3.0;
  EXPECT_EQ(DataProfile::from_json(j, "m/model.json").graphs, 3);
}

}  // namespace
}  // namespace fastslow
