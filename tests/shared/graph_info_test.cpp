#include "fastslow/graph/graph_info.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/graph/computations.h"
#include "graph_builders.h"
#include "test_support.h"

namespace fastslow {
namespace {

using nlohmann::json;
using test::GraphArrays;
using test::SmallLayout;
using test::SmallTile;

// Median straight from the definition: sort, take the middle (or the mean of the two).
RuntimeStats direct_stats(std::vector<int64_t> v) {
  v.erase(std::remove(v.begin(), v.end(), 0), v.end());  // never measured
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  RuntimeStats s;
  if (n == 0) return s;
  s.min = static_cast<double>(v.front());
  s.max = static_cast<double>(v.back());
  s.median = n % 2 ? static_cast<double>(v[n / 2]) : (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2;
  return s;
}

bool has_problem(const GraphInfo& info, Severity s, const std::string& array) {
  return std::any_of(info.problems.begin(), info.problems.end(),
                     [&](const Problem& p) { return p.severity == s && p.array == array; });
}

TEST(GraphInfoStats, RuntimeStatsMatchDirectComputation) {
  EXPECT_EQ(runtime_stats({}).median, 0);
  const RuntimeStats one = runtime_stats({42});
  EXPECT_EQ(one.min, 42);
  EXPECT_EQ(one.median, 42);
  EXPECT_EQ(one.max, 42);
  const RuntimeStats two = runtime_stats({9, 4});
  EXPECT_EQ(two.median, 6.5);
  EXPECT_EQ(runtime_stats({5, 1, 9, 3}).median, 4);
  EXPECT_EQ(runtime_stats({7, 7, 1, 7}).median, 7);
  // 0 is a config never measured: left out (a test file's all-zero: 0).
  const RuntimeStats some = runtime_stats({0, 5, 0, 9});
  EXPECT_EQ(some.min, 5);
  EXPECT_EQ(some.median, 7);
  EXPECT_EQ(some.max, 9);
  EXPECT_EQ(runtime_stats({0, 0}).max, 0);

  std::mt19937_64 rng(3);
  for (size_t n : {1u, 2u, 3u, 10u, 11u, 1000u, 1001u}) {
    std::uniform_int_distribution<int64_t> d(0, 20);
    std::vector<int64_t> v(n);
    for (int64_t& x : v) x = d(rng);
    const RuntimeStats want = direct_stats(v), got = runtime_stats(v);
    EXPECT_EQ(want.min, got.min) << n;
    EXPECT_EQ(want.median, got.median) << n;
    EXPECT_EQ(want.max, got.max) << n;
  }
}

TEST(GraphInfoStats, ComputationsCountDistinctStarts) {
  EXPECT_EQ(count_computations({}, 372), 0);
  EXPECT_EQ(count_computations({0, 324, 372}, 372), 2);
  EXPECT_EQ(count_computations({0, 324}, 372), 2);
  EXPECT_EQ(count_computations({324}, 372), 2);
  EXPECT_EQ(count_computations({0}, 6), 1);
  EXPECT_EQ(count_computations({0, 6}, 6), 1);
  EXPECT_EQ(count_computations({0, 2, 4}, 6), 3);
}

TEST(GraphInfoStats, ComputationStartsDropTheEndAndStartAtZero) {
  using V = std::vector<int64_t>;
  EXPECT_EQ(computation_starts({}, 372), V{});
  EXPECT_EQ(computation_starts({0, 324, 372}, 372), (V{0, 324}));
  EXPECT_EQ(computation_starts({324}, 372), (V{0, 324}));
  EXPECT_EQ(computation_starts({4, 0, 2, 2}, 6), (V{0, 2, 4}));
  EXPECT_EQ(computation_starts({0, 6, 9}, 6), V{0});
}

TEST(GraphInfoSample, RealAlexNetFigures) {
  const std::string path = test::data_file("cleaned_alexnet.npz");
  const GraphInfo info = graph_info(NpzReader::open(path));
  EXPECT_EQ(info.file, path);
  EXPECT_EQ(info.kind, GraphKind::Layout);
  EXPECT_EQ(info.nodes, 372);
  EXPECT_EQ(info.edges, 597);
  EXPECT_EQ(info.configurable_nodes, 26);
  EXPECT_EQ(info.configs, 47712);
  EXPECT_EQ(info.unique_configs, 29905);
  EXPECT_EQ(info.node_feat_width, 70);
  EXPECT_EQ(info.config_feat_width, 10);
  EXPECT_EQ(info.computations, 2);  // node_splits [0, 324, 372]: starts 0 and 324
  EXPECT_FALSE(has_errors(info.problems));

  const LayoutGraph g = load_layout_graph(NpzReader::open(path), LoadOptions{false});
  const RuntimeStats want = direct_stats(g.config_runtime);
  EXPECT_EQ(info.runtime.min, want.min);
  EXPECT_EQ(info.runtime.median, want.median);
  EXPECT_EQ(info.runtime.max, want.max);
}

TEST(GraphInfoSample, RuntimeStatsMatchNumpy) {
  if (!test::numpy_available()) GTEST_SKIP() << "numpy not available";
  const std::string path = test::data_file("cleaned_alexnet.npz");
  std::string out;
  ASSERT_EQ(test::run_python("import numpy as np\n"
                             "r = np.load('" + path + "')['config_runtime']\n"
                             "print(repr(float(np.min(r))), repr(float(np.median(r))), repr(float(np.max(r))))\n",
                             &out),
            0)
      << out;
  double mn = 0, med = 0, mx = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "%lf %lf %lf", &mn, &med, &mx), 3) << out;
  const GraphInfo info = graph_info(NpzReader::open(path));
  EXPECT_EQ(info.runtime.min, mn);
  EXPECT_EQ(info.runtime.median, med);
  EXPECT_EQ(info.runtime.max, mx);
}

TEST(GraphInfoSample, JsonParsesBack) {
  const std::string path = test::data_file("cleaned_alexnet.npz");
  const GraphInfo info = graph_info(NpzReader::open(path));
  const json j = json::parse(graph_info_json(info));
  EXPECT_EQ(j.at("file"), path);
  EXPECT_EQ(j.at("kind"), "layout");
  EXPECT_EQ(j.at("nodes"), 372);
  EXPECT_EQ(j.at("edges"), 597);
  EXPECT_EQ(j.at("configurable_nodes"), 26);
  EXPECT_EQ(j.at("configs"), 47712);
  EXPECT_EQ(j.at("unique_configs"), 29905);
  EXPECT_EQ(j.at("node_feat_width"), 70);
  EXPECT_EQ(j.at("config_feat_width"), 10);
  EXPECT_EQ(j.at("computations"), 2);
  EXPECT_EQ(j.at("runtime_min").get<double>(), info.runtime.min);
  EXPECT_EQ(j.at("runtime_median").get<double>(), info.runtime.median);
  EXPECT_EQ(j.at("runtime_max").get<double>(), info.runtime.max);
  EXPECT_EQ(j.at("valid"), true);
  EXPECT_TRUE(j.at("problems").is_array());
  // Compact output is the same document.
  EXPECT_EQ(json::parse(graph_info_json(info, -1)), j);

  const std::string text = graph_info_text(info);
  EXPECT_NE(text.find("29905"), std::string::npos) << text;
  EXPECT_NE(text.find("47712"), std::string::npos) << text;
}

TEST(GraphInfoHandMade, LayoutFigures) {
  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    const GraphInfo info = graph_info(SmallLayout::arrays().reader("layout.npz", c));
    EXPECT_EQ(info.kind, GraphKind::Layout);
    EXPECT_EQ(info.nodes, SmallLayout::kNodes);
    EXPECT_EQ(info.edges, SmallLayout::kEdges);
    EXPECT_EQ(info.configurable_nodes, SmallLayout::kConfigurable);
    EXPECT_EQ(info.configs, SmallLayout::kConfigs);
    EXPECT_EQ(info.unique_configs, 3);  // configs 0 = 3, 1 = 4
    EXPECT_EQ(info.node_feat_width, SmallLayout::kNodeFeatWidth);
    EXPECT_EQ(info.config_feat_width, SmallLayout::kConfigFeatWidth);
    EXPECT_EQ(info.computations, 2);
    EXPECT_EQ(info.runtime.min, 300);
    EXPECT_EQ(info.runtime.median, 500);
    EXPECT_EQ(info.runtime.max, 700);
    EXPECT_TRUE(info.problems.empty());
  }
}

TEST(GraphInfoHandMade, TileFigures) {
  const GraphInfo info = graph_info(SmallTile::arrays().reader("tile.npz"));
  EXPECT_EQ(info.kind, GraphKind::Tile);
  EXPECT_EQ(info.nodes, SmallTile::kNodes);
  EXPECT_EQ(info.edges, SmallTile::kEdges);
  EXPECT_EQ(info.configurable_nodes, 0);
  EXPECT_EQ(info.configs, SmallTile::kConfigs);
  EXPECT_EQ(info.unique_configs, 3);  // configs 1 = 3
  EXPECT_EQ(info.node_feat_width, SmallTile::kNodeFeatWidth);
  EXPECT_EQ(info.config_feat_width, SmallTile::kConfigFeatWidth);
  // Runtimes as stored, not divided by the normalizers.
  EXPECT_EQ(info.runtime.min, 1000);
  EXPECT_EQ(info.runtime.median, 2250);
  EXPECT_EQ(info.runtime.max, 3000);
  EXPECT_TRUE(info.problems.empty());

  const json j = json::parse(graph_info_json(info));
  EXPECT_EQ(j.at("kind"), "tile");
  EXPECT_EQ(j.at("configurable_nodes"), 0);
  EXPECT_EQ(j.at("unique_configs"), 3);
  EXPECT_EQ(j.at("config_feat_width"), SmallTile::kConfigFeatWidth);
  EXPECT_EQ(j.at("runtime_min").get<double>(), 1000);
  EXPECT_EQ(j.at("runtime_max").get<double>(), 3000);
  EXPECT_FALSE(j.contains("computations"));
  EXPECT_TRUE(j.at("problems").empty());
}

TEST(GraphInfoHandMade, TileWithBadNormalizerStillCountsConfigs) {
  GraphArrays a = SmallTile::arrays();
  a.set("config_runtime_normalizers", std::vector<int64_t>{500, 0, 500, 1000}, {SmallTile::kConfigs});
  const GraphInfo info = graph_info(a.reader("tile.npz"));
  EXPECT_EQ(info.unique_configs, 3);
  EXPECT_TRUE(has_problem(info, Severity::Error, "config_runtime_normalizers"));
}

TEST(GraphInfoHandMade, ProblemsAppearInJson) {
  GraphArrays a = SmallLayout::arrays();
  std::vector<float> feat = SmallLayout::config_feat();
  feat[5] = 7;  // layout value out of range (warning), streamed check
  feat[30] = std::numeric_limits<float>::quiet_NaN();  // error, streamed check
  a.set("node_config_feat", feat, {SmallLayout::kConfigs, SmallLayout::kConfigurable, SmallLayout::kConfigFeatWidth});
  a.set("config_runtime", std::vector<int64_t>{500, -1, 300, 400, 700}, {SmallLayout::kConfigs});
  const GraphInfo info = graph_info(a.reader("bad.npz"));
  EXPECT_TRUE(has_problem(info, Severity::Warning, "node_config_feat"));
  EXPECT_TRUE(has_problem(info, Severity::Error, "node_config_feat"));
  EXPECT_TRUE(has_problem(info, Severity::Error, "config_runtime"));
  EXPECT_EQ(info.unique_configs, 4);  // config 0 no longer equals 3; 1 still equals 4

  const json j = json::parse(graph_info_json(info));
  EXPECT_EQ(j.at("valid"), false);
  ASSERT_EQ(j.at("problems").size(), info.problems.size());
  for (size_t i = 0; i < info.problems.size(); ++i) {
    const json& p = j.at("problems")[i];
    EXPECT_EQ(p.at("severity"), severity_name(info.problems[i].severity));
    EXPECT_EQ(p.at("array"), info.problems[i].array);
    EXPECT_EQ(p.at("message"), info.problems[i].message);
  }
  EXPECT_NE(graph_info_text(info).find("FAILED"), std::string::npos);
}

TEST(GraphInfoHandMade, WarningsKeepTheGraphValid) {
  GraphArrays a = SmallLayout::arrays();
  a.set("node_splits", std::vector<int64_t>{3, 0}, {1, 2});
  const GraphInfo info = graph_info(a.reader("warn.npz"));
  ASSERT_EQ(info.problems.size(), 1u);
  const json j = json::parse(graph_info_json(info));
  EXPECT_EQ(j.at("valid"), true);
  EXPECT_EQ(j.at("problems")[0].at("severity"), "warning");
  EXPECT_EQ(j.at("problems")[0].at("array"), "node_splits");
}

TEST(GraphInfoHandMade, NeitherKindThrows) {
  GraphArrays a = SmallTile::arrays();
  a.erase("config_feat");
  EXPECT_THROW(graph_info(a.reader()), Error);
}

}  // namespace
}  // namespace fastslow
