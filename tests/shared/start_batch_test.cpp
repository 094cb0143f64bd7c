// An autotuning session's first batch: the config nearest the file's most
// common settings, checked against a naive count over the raw configs of
// the real files (where it is the compiler's default, on the plateau of
// near-best configs), and the start's draws.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fastslow/data/graph_cache.h"
#include "fastslow/error.h"
#include "fastslow/graph/graph.h"
#include "fastslow/graph/graph_write.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/tune/pick.h"
#include "fastslow/tune/start_batch.h"
#include "test_support.h"

namespace fastslow {
namespace {

using Setting = std::vector<float>;

// Per unit (a node's row, or a tile bound) the most common setting over every
// config of the file, and each config's count of units away from them.
std::vector<int64_t> naive_distances(const std::vector<float>& feat, int64_t configs, int64_t units, int64_t unit_width) {
  const auto at = [&](int64_t c, int64_t u) {
    const float* r = feat.data() + (c * units + u) * unit_width;
    return Setting(r, r + unit_width);
  };
  std::vector<Setting> mode(static_cast<size_t>(units));
  for (int64_t u = 0; u < units; ++u) {
    std::map<Setting, int64_t> count;
    for (int64_t c = 0; c < configs; ++c) ++count[at(c, u)];
    mode[static_cast<size_t>(u)] =
        std::max_element(count.begin(), count.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  }
  std::vector<int64_t> away(static_cast<size_t>(configs), 0);
  for (int64_t c = 0; c < configs; ++c)
    for (int64_t u = 0; u < units; ++u) away[static_cast<size_t>(c)] += at(c, u) != mode[static_cast<size_t>(u)];
  return away;
}

struct Real {
  const char* file;
  double within;  // the chosen config's runtime over the file's best, at most
};

// On the real layout files with runtimes, the chosen config is one of the
// configs nearest the per-node modes (the naive count's minimum), and it is
// on the plateau: within 0.1 % of the file's best, while a random config of
// AlexNet is 1.5x the best on average.
TEST(StartBatch, MostCommonConfigOfRealFilesIsTheNaiveNearestAndNearTheBest) {
  for (const Real& r : {Real{"cleaned_alexnet.npz", 1.001}, Real{"real/layout_xla_default_train_unet3d.npz", 1.001}}) {
    SCOPED_TRACE(r.file);
    const std::string src = test::data_file(r.file);
    test::TempDir dir;
    const CachedGraph g = CachedGraph::open(src, {dir.file("cache"), 1});
    const int64_t k = most_common_config(g);
    ASSERT_GE(k, 0);
    ASSERT_LT(k, g.groups.num_groups());
    const LayoutGraph raw = load_layout_graph(NpzReader::open(src));
    const std::vector<int64_t> away =
        naive_distances(raw.node_config_feat, raw.num_configs, raw.num_configurable(), raw.config_feat_width);
    const int64_t nearest = *std::min_element(away.begin(), away.end());
    const int64_t chosen = g.groups.representative[static_cast<size_t>(k)];
    EXPECT_EQ(away[static_cast<size_t>(chosen)], nearest);
    EXPECT_EQ(nearest, 0);  // these files hold the compiler's config itself
    // Skipped groups (a tuning session's configs without a runtime) are
    // never the answer: with every nearest one skipped, the next nearest.
    std::vector<char> skip(static_cast<size_t>(g.groups.num_groups()));
    int64_t next = away.size();
    for (size_t q = 0; q < skip.size(); ++q) {
      const int64_t d = away[static_cast<size_t>(g.groups.representative[q])];
      skip[q] = d == nearest;
      if (!skip[q]) next = std::min(next, d);
    }
    const std::vector<float> rows = g.config_rows(g.all_groups());
    const int64_t k2 = most_common_config(g, rows, skip);
    EXPECT_FALSE(skip[static_cast<size_t>(k2)]);
    EXPECT_EQ(away[static_cast<size_t>(g.groups.representative[static_cast<size_t>(k2)])], next);
    EXPECT_GT(next, nearest);
    EXPECT_THROW(most_common_config(g, rows, std::vector<char>(skip.size(), 1)), Error);
    const double best = *std::min_element(g.groups.best_runtime.begin(), g.groups.best_runtime.end());
    EXPECT_LE(g.groups.best_runtime[static_cast<size_t>(k)], best * r.within);
    double mean = 0;
    for (double v : g.groups.best_runtime) mean += v / best;
    mean /= static_cast<double>(g.groups.num_groups());
    EXPECT_GT(mean, r.within);  // the plateau is not the whole file
  }
}

// Duplicates count: a config written twice outweighs one written once.
TEST(StartBatch, MostCommonCountsDuplicatesAndTileBounds) {
  const std::string src = test::data_file("cleaned_alexnet.npz");
  const LayoutGraph g = load_layout_graph(NpzReader::open(src));
  const int64_t row = g.num_configurable() * g.config_feat_width;
  // Configs 0 and 1 differ in some nodes; 1 is written twice.
  std::vector<int64_t> pick;
  for (int64_t c = 1; c < g.num_configs && pick.empty(); ++c)
    if (!std::equal(g.node_config_feat.begin(), g.node_config_feat.begin() + row, g.node_config_feat.begin() + c * row))
      pick = {0, c, c};
  ASSERT_FALSE(pick.empty());
  std::vector<float> feat;
  std::vector<int64_t> rt;
  for (int64_t c : pick) {
    feat.insert(feat.end(), g.node_config_feat.begin() + c * row, g.node_config_feat.begin() + (c + 1) * row);
    rt.push_back(g.config_runtime[static_cast<size_t>(c)]);
  }
  test::TempDir dir;
  write_layout_graph(dir.file("dup.npz"), g, feat, rt);
  const CachedGraph c = CachedGraph::open(dir.file("dup.npz"), {dir.file("cache"), 1});
  ASSERT_EQ(c.groups.num_groups(), 2);
  EXPECT_EQ(c.groups.group_size[static_cast<size_t>(most_common_config(c))], 2);

  // A generated tile kernel: each bound is a unit.
  const std::string kernel = test::write_tile_kernel(dir, 11, 30, 40);
  const CachedGraph t = CachedGraph::open(kernel, {dir.file("cache"), 1});
  const TileGraph raw = load_tile_graph(NpzReader::open(kernel));
  const std::vector<int64_t> away = naive_distances(raw.config_feat, raw.num_configs, raw.config_feat_width, 1);
  const int64_t chosen = t.groups.representative[static_cast<size_t>(most_common_config(t))];
  EXPECT_EQ(away[static_cast<size_t>(chosen)], *std::min_element(away.begin(), away.end()));
}

TEST(StartBatch, CommonComesFirstThenTheRandomDraws) {
  const std::vector<char> none(50, 0);
  Rng a(3), b(3);
  // Random: exactly pick_batch's random draws.
  EXPECT_EQ(start_batch(none, 8, StartFrom::Random, 7, a), pick_batch({}, {}, none, 8, {PickStrategy::Random}, b));
  Rng c(3);
  const std::vector<int64_t> s = start_batch(none, 8, StartFrom::Common, 7, c);
  ASSERT_EQ(s.size(), 8u);
  EXPECT_EQ(s.front(), 7);
  EXPECT_EQ(std::set<int64_t>(s.begin(), s.end()).size(), 8u);
  // Already measured: not measured again.
  std::vector<char> some = none;
  some[7] = 1;
  Rng d(3);
  const std::vector<int64_t> t = start_batch(some, 49, StartFrom::Common, 7, d);
  EXPECT_EQ(t.size(), 49u);
  EXPECT_EQ(std::count(t.begin(), t.end(), 7), 0);
  Rng e(3);
  EXPECT_EQ(start_batch(none, 1, StartFrom::Common, 42, e), (std::vector<int64_t>{42}));
  EXPECT_NE(test::error_of([&] { start_batch(none, 2, StartFrom::Common, 50, e); }).find("not one of the 50"),
            std::string::npos);
  EXPECT_NE(test::error_of([] { parse_start_from("default"); }).find("common, random"), std::string::npos);
}

}  // namespace
}  // namespace fastslow
