#include "fastslow/graph/dedup.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/graph/graph.h"
#include "graph_builders.h"
#include "test_support.h"

namespace fastslow {
namespace {

// ---- A naive exact reference: compare every row with each group's first member. ----

ConfigGroups naive_groups(const std::vector<float>& rows, int64_t width, const std::vector<double>& runtime) {
  ConfigGroups g;
  const int64_t n = static_cast<int64_t>(runtime.size());
  std::vector<int64_t> first;  // group -> its first member
  for (int64_t i = 0; i < n; ++i) {
    int64_t found = -1;
    for (size_t k = 0; k < first.size() && found < 0; ++k) {
      bool same = true;
      for (int64_t j = 0; j < width && same; ++j) same = rows[i * width + j] == rows[first[k] * width + j];
      if (same) found = static_cast<int64_t>(k);
    }
    if (found < 0) {
      found = static_cast<int64_t>(first.size());
      first.push_back(i);
    }
    g.group_of.push_back(found);
  }
  const size_t k = first.size();
  g.representative.assign(k, -1);
  g.best_runtime.assign(k, 0);
  g.group_size.assign(k, 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t grp = g.group_of[i];
    ++g.group_size[grp];
    // 0 is no measurement: any measured copy beats it.
    const bool unmeasured = g.best_runtime[grp] == 0;
    if (g.representative[grp] < 0 || (runtime[i] > 0 && (unmeasured || runtime[i] < g.best_runtime[grp]))) {
      g.representative[grp] = i;
      g.best_runtime[grp] = runtime[i];
    }
  }
  return g;
}

void expect_same_groups(const ConfigGroups& want, const ConfigGroups& got) {
  EXPECT_EQ(want.group_of, got.group_of);
  EXPECT_EQ(want.representative, got.representative);
  EXPECT_EQ(want.best_runtime, got.best_runtime);
  EXPECT_EQ(want.group_size, got.group_size);
}

// Rows 0, 2, 5 equal (A); 1, 4 (B); 3, 6 (C, row 6 with -0.0); 7 alone (E).
const int64_t kWidth = 3;
const std::vector<float> kRows = {
    1, 2, 3,      // 0 A
    0, -1, 5,     // 1 B
    1, 2, 3,      // 2 A
    0, 0, 1,      // 3 C
    0, -1, 5,     // 4 B
    1, 2, 3,      // 5 A
    -0.0f, 0, 1,  // 6 C
    1, 2, 4,      // 7 E
};
const std::vector<double> kRuntime = {50, 30, 40, 10, 30, 40, 5, 20};

TEST(DedupGroups, KnownDuplicateGroups) {
  const ConfigGroups g = dedup_configs(kRows, kWidth, kRuntime);
  EXPECT_EQ(g.num_configs(), 8);
  EXPECT_EQ(g.num_groups(), 4);
  EXPECT_EQ(g.group_of, std::vector<int64_t>({0, 1, 0, 2, 1, 0, 2, 3}));
  // A ties at 40 between 2 and 5: the lower index wins. B ties at 30: 1 wins.
  EXPECT_EQ(g.representative, std::vector<int64_t>({2, 1, 6, 7}));
  EXPECT_EQ(g.best_runtime, std::vector<double>({40, 30, 5, 20}));
  EXPECT_EQ(g.group_size, std::vector<int64_t>({3, 2, 2, 1}));
}

// A file that merges measured configs with ones nobody measured (runtime 0,
// e.g. proposals): a group's best is a measured copy wherever it has one.
TEST(DedupGroups, AZeroRuntimeIsNoMeasurement) {
  const std::vector<double> runtime = {0, 30, 40, 0, 0, 0, 5, 20};
  const ConfigGroups g = dedup_configs(kRows, kWidth, runtime);
  // A: 0, 40, 0 -> 40 (row 2); B: 30, 0 -> 30; C: 0, 5 -> 5; E: 20.
  EXPECT_EQ(g.representative, std::vector<int64_t>({2, 1, 6, 7}));
  EXPECT_EQ(g.best_runtime, std::vector<double>({40, 30, 5, 20}));
  const ConfigGroups none = dedup_configs(kRows, kWidth, std::vector<double>(8, 0.0));
  EXPECT_EQ(none.representative, std::vector<int64_t>({0, 1, 3, 7}));  // the first copy of each
  EXPECT_EQ(none.best_runtime, std::vector<double>(4, 0.0));
  expect_same_groups(naive_groups(kRows, kWidth, runtime), g);
}

TEST(DedupGroups, NegativeZeroEqualsZero) {
  const std::vector<float> rows = {0.0f, -0.0f, -0.0f, 0.0f, -0.0f, -0.0f, 0.0f, 0.0f, 1.0f, -0.0f};
  const ConfigGroups g = dedup_configs(rows, 2, {3, 2, 1, 4, 5});
  EXPECT_EQ(g.group_of, std::vector<int64_t>({0, 0, 0, 0, 1}));
  EXPECT_EQ(g.representative, std::vector<int64_t>({2, 4}));
  EXPECT_EQ(g.group_size, std::vector<int64_t>({4, 1}));
}

TEST(DedupGroups, NearbyValuesStayApart) {
  const float eps = 1.0f + 1.0f / (1 << 23);  // next float after 1
  const std::vector<float> rows = {1, 2, eps, 2, 2, 1, 1, 2};
  const ConfigGroups g = dedup_configs(rows, 2, {1, 1, 1, 1});
  EXPECT_EQ(g.group_of, std::vector<int64_t>({0, 1, 2, 0}));
}

TEST(DedupGroups, RowsAddedInPiecesMatchOneCall) {
  ConfigDeduplicator d(kWidth);
  d.add_rows(kRows.data(), 3);
  d.add_rows(kRows.data() + 3 * kWidth, 0);
  d.add_rows(kRows.data() + 3 * kWidth, 4);
  d.add_rows(kRows.data() + 7 * kWidth, 1);
  expect_same_groups(dedup_configs(kRows, kWidth, kRuntime), d.finish(kRuntime));
}

TEST(DedupGroups, RuntimeCountMustMatch) {
  EXPECT_THROW(dedup_configs(kRows, kWidth, {1, 2, 3}), Error);
  ConfigDeduplicator d(kWidth);
  d.add_rows(kRows.data(), 2);
  EXPECT_THROW(d.finish({1, 2, 3}), Error);
}

TEST(DedupGroups, NoConfigs) {
  const ConfigGroups g = dedup_configs({}, 4, {});
  EXPECT_EQ(g.num_configs(), 0);
  EXPECT_EQ(g.num_groups(), 0);
  EXPECT_TRUE(g.expand_ranking({}).empty());
}

// ---- expand_ranking ----

TEST(DedupExpand, RepresentativeFirstThenMembersInIndexOrder) {
  const ConfigGroups g = dedup_configs(kRows, kWidth, kRuntime);
  EXPECT_EQ(g.expand_ranking({3, 0, 2, 1}), std::vector<int64_t>({7, 2, 0, 5, 6, 3, 1, 4}));
  EXPECT_EQ(g.expand_ranking({2, 1, 0, 3}), std::vector<int64_t>({6, 3, 1, 4, 2, 0, 5, 7}));
}

TEST(DedupExpand, InvalidRankingsThrow) {
  const ConfigGroups g = dedup_configs(kRows, kWidth, kRuntime);
  EXPECT_THROW(g.expand_ranking({0, 1, 2}), Error);        // too short
  EXPECT_THROW(g.expand_ranking({0, 1, 2, 3, 0}), Error);  // too long
  EXPECT_THROW(g.expand_ranking({0, 1, 2, 2}), Error);     // repeated
  EXPECT_THROW(g.expand_ranking({0, 1, 2, 4}), Error);     // out of range
  EXPECT_THROW(g.expand_ranking({-1, 1, 2, 3}), Error);
}

// ---- Random rows from a small value set, against the naive reference. ----

struct RandomCase {
  int64_t width;
  std::vector<float> values;
};

TEST(DedupRandom, MatchesNaiveGrouping) {
  const std::vector<RandomCase> cases = {
      {1, {-1, 0, -0.0f, 1, 2, 3}},
      {3, {-1, 0, -0.0f, 1}},
      {8, {0, -0.0f, 1}},
      {18, {-1, 0, 1}},  // few duplicates
  };
  std::mt19937_64 rng(20231113);
  for (const RandomCase& c : cases) {
    for (int64_t n : {1, 2, 7, 100, 613, 2000}) {
      std::uniform_int_distribution<size_t> pick(0, c.values.size() - 1);
      std::uniform_int_distribution<int> rt(1, 6);
      std::vector<float> rows(static_cast<size_t>(n * c.width));
      for (float& v : rows) v = c.values[pick(rng)];
      std::vector<double> runtime(static_cast<size_t>(n));
      for (double& r : runtime) r = rt(rng);
      SCOPED_TRACE("width " + std::to_string(c.width) + ", " + std::to_string(n) + " configs");

      const ConfigGroups want = naive_groups(rows, c.width, runtime);
      const ConfigGroups got = dedup_configs(rows, c.width, runtime);
      expect_same_groups(want, got);

      // Ranking groups by best runtime expands to every config exactly once.
      std::vector<int64_t> order(static_cast<size_t>(got.num_groups()));
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), rng);
      const std::vector<int64_t> full = got.expand_ranking(order);
      ASSERT_EQ(static_cast<int64_t>(full.size()), n);
      std::vector<int64_t> sorted = full;
      std::sort(sorted.begin(), sorted.end());
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i);
      // Group by group: representative first, the rest ascending.
      size_t at = 0;
      for (int64_t grp : order) {
        ASSERT_EQ(full[at], got.representative[grp]);
        int64_t prev = -1;
        for (int64_t k = 1; k < got.group_size[grp]; ++k) {
          const int64_t m = full[at + k];
          EXPECT_EQ(got.group_of[m], grp);
          EXPECT_NE(m, got.representative[grp]);
          EXPECT_GT(m, prev);
          prev = m;
        }
        at += static_cast<size_t>(got.group_size[grp]);
      }
    }
  }
}

// ---- Streaming from an archive ----

TEST(DedupStream, ArchiveMatchesInMemoryForStoredAndDeflated) {
  std::mt19937_64 rng(7);
  const int64_t n = 700, nc = 5, w = 4;
  std::uniform_int_distribution<int> v(-1, 1), rt(100, 110);
  std::vector<float> rows(static_cast<size_t>(n * nc * w));
  for (float& x : rows) x = static_cast<float>(v(rng));
  // Most rows collapse onto a few shapes, so there are many duplicates.
  for (int64_t i = 0; i < n; i += 3)
    std::copy(rows.begin(), rows.begin() + nc * w, rows.begin() + i * nc * w);
  std::vector<double> runtime(static_cast<size_t>(n));
  for (double& r : runtime) r = rt(rng);
  const ConfigGroups want = dedup_configs(rows, nc * w, runtime);
  ASSERT_LT(want.num_groups(), n);

  for (Compression c : {Compression::Stored, Compression::Deflate}) {
    test::GraphArrays a;
    a.set("node_config_feat", rows, {n, nc, w});
    const std::vector<double> as_double(rows.begin(), rows.end());
    a.set("as_f64", as_double, {n, nc * w});
    const NpzReader npz = a.reader("stream.npz", c);
    expect_same_groups(want, dedup_configs(npz, "node_config_feat", runtime));
    expect_same_groups(want, dedup_configs(npz, "as_f64", runtime));
    EXPECT_THROW(dedup_configs(npz, "node_config_feat", {1, 2}), Error);
  }
}

TEST(DedupStream, RealSampleHas29905Groups) {
  const NpzReader npz = NpzReader::open(test::data_file("cleaned_alexnet.npz"));
  const LayoutGraph g = load_layout_graph(npz);
  const std::vector<double> runtime = g.target();
  // 47712 rows of 26 x 10 floats span three ~16 MB chunks.
  const ConfigGroups streamed = dedup_configs(npz, "node_config_feat", runtime);
  EXPECT_EQ(streamed.num_configs(), 47712);
  EXPECT_EQ(streamed.num_groups(), 29905);
  expect_same_groups(dedup_configs(g.node_config_feat, 26 * 10, runtime), streamed);

  std::vector<int64_t> by_best(static_cast<size_t>(streamed.num_groups()));
  std::iota(by_best.begin(), by_best.end(), 0);
  std::stable_sort(by_best.begin(), by_best.end(),
                   [&](int64_t x, int64_t y) { return streamed.best_runtime[x] < streamed.best_runtime[y]; });
  std::vector<int64_t> full = streamed.expand_ranking(by_best);
  ASSERT_EQ(full.size(), 47712u);
  std::sort(full.begin(), full.end());
  for (size_t i = 0; i < full.size(); ++i) ASSERT_EQ(full[i], static_cast<int64_t>(i));
}

TEST(DedupStream, RealSampleMatchesNumpy) {
  if (!test::numpy_available()) GTEST_SKIP() << "numpy not available";
  const std::string path = test::data_file("cleaned_alexnet.npz");
  const NpzReader npz = NpzReader::open(path);
  LoadOptions opt;
  opt.config_features = false;
  const LayoutGraph g = load_layout_graph(npz, opt);
  const ConfigGroups got = dedup_configs(npz, "node_config_feat", g.target());

  test::TempDir dir;
  // Groups numbered by first appearance; representative = lowest index among
  // the members with the group's minimum runtime.
  const std::string script =
      "import numpy as np\n"
      "d = np.load('" + path + "')\n"
      "f = d['node_config_feat']; r = d['config_runtime']; c = f.shape[0]\n"
      // Rows as opaque bytes (fast); adding +0 first turns -0 into +0.
      "rows = np.ascontiguousarray(f.reshape(c, -1) + np.float32(0))\n"
      "v = rows.view(np.dtype((np.void, rows.shape[1] * rows.itemsize))).reshape(-1)\n"
      "_, first, inv = np.unique(v, return_index=True, return_inverse=True)\n"
      "inv = inv.reshape(-1)\n"
      "rank = np.empty(len(first), dtype=np.int64); rank[np.argsort(first)] = np.arange(len(first))\n"
      "group = rank[inv]\n"
      "best = np.full(len(first), np.iinfo(np.int64).max, dtype=np.int64)\n"
      "np.minimum.at(best, group, r)\n"
      "order = np.lexsort((np.arange(c), r, group))\n"
      "_, at = np.unique(group[order], return_index=True)\n"
      "rep = order[at]\n"
      "size = np.bincount(group)\n"
      "out = '" + dir.path() + "/'\n"
      "group.astype('<i8').tofile(out + 'group')\n"
      "best.astype('<f8').tofile(out + 'best')\n"
      "rep.astype('<i8').tofile(out + 'rep')\n"
      "size.astype('<i8').tofile(out + 'size')\n"
      "print(len(first))\n";
  std::string out;
  ASSERT_EQ(test::run_python(script, &out), 0) << out;
  EXPECT_EQ(std::stoll(out), got.num_groups());
  EXPECT_EQ(got.num_groups(), 29905);

  auto load = [&](const std::string& name, auto* v) {
    const std::vector<uint8_t> raw = test::read_bytes(dir.file(name));
    v->resize(raw.size() / sizeof((*v)[0]));
    std::memcpy(v->data(), raw.data(), raw.size());
  };
  std::vector<int64_t> group, rep, size;
  std::vector<double> best;
  load("group", &group);
  load("rep", &rep);
  load("size", &size);
  load("best", &best);
  EXPECT_EQ(group, got.group_of);
  EXPECT_EQ(best, got.best_runtime);
  EXPECT_EQ(rep, got.representative);
  EXPECT_EQ(size, got.group_size);
}

}  // namespace
}  // namespace fastslow
