#include "fastslow/graph/prune.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/graph/graph.h"
#include "fastslow/io/npz_reader.h"
#include "test_support.h"

namespace fastslow {
namespace {

using Ids = std::vector<int64_t>;

GraphNodes make_graph(int64_t n, Ids edges, const std::string& file = "g.npz") {
  GraphNodes g;
  g.file = file;
  g.num_nodes = n;
  g.edge_index = std::move(edges);
  return g;
}

// Reference: grow the set one hop at a time by scanning every edge.
Ids naive_kept(const GraphNodes& g, const Ids& configurable, int khop) {
  std::vector<uint8_t> in(static_cast<size_t>(g.num_nodes), configurable.empty() || khop == 0);
  for (int64_t c : configurable) in[c] = 1;
  for (int hop = 0; hop < khop && !configurable.empty(); ++hop) {
    std::vector<uint8_t> next = in;
    for (int64_t k = 0; k < g.num_edges(); ++k) {
      const int64_t u = g.edge_index[2 * k], v = g.edge_index[2 * k + 1];
      if (in[u]) next[v] = 1;
      if (in[v]) next[u] = 1;
    }
    in.swap(next);
  }
  Ids kept;
  for (int64_t i = 0; i < g.num_nodes; ++i)
    if (in[i]) kept.push_back(i);
  return kept;
}

// The kept edges, mapped back to original ids, must be exactly the original
// edges with both ends kept, in file order; config positions must point back.
void expect_consistent(const GraphNodes& g, const Ids& configurable, const PrunedGraph& p) {
  EXPECT_TRUE(std::is_sorted(p.kept.begin(), p.kept.end()));
  std::set<int64_t> kept(p.kept.begin(), p.kept.end());
  EXPECT_EQ(kept.size(), p.kept.size());
  Ids want;
  for (int64_t k = 0; k < g.num_edges(); ++k) {
    const int64_t u = g.edge_index[2 * k], v = g.edge_index[2 * k + 1];
    if (kept.count(u) && kept.count(v)) {
      want.push_back(u);
      want.push_back(v);
    }
  }
  Ids got;
  for (int64_t id : p.edge_index) {
    ASSERT_GE(id, 0);
    ASSERT_LT(id, p.num_nodes());
    got.push_back(p.kept[id]);
  }
  EXPECT_EQ(want, got);
  ASSERT_EQ(p.config_positions.size(), configurable.size());
  for (size_t i = 0; i < configurable.size(); ++i) EXPECT_EQ(p.kept[p.config_positions[i]], configurable[i]);
}

// 0 <- 1 <- 2 <- ... <- 6 (u consumes v: row [i + 1, i]).
GraphNodes chain() { return make_graph(7, {1, 0, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5}); }

TEST(PruneGraph, ChainKeepsKHopsBothWays) {
  const GraphNodes g = chain();
  const PrunedGraph p1 = prune_graph(g, {3}, 1);
  EXPECT_EQ(p1.kept, Ids({2, 3, 4}));
  EXPECT_EQ(p1.edge_index, Ids({1, 0, 2, 1}));  // [3,2], [4,3] renumbered
  EXPECT_EQ(p1.config_positions, Ids({1}));
  EXPECT_EQ(p1.num_edges(), 2);

  const PrunedGraph p2 = prune_graph(g, {3}, 2);
  EXPECT_EQ(p2.kept, Ids({1, 2, 3, 4, 5}));
  EXPECT_EQ(p2.num_edges(), 4);
  EXPECT_EQ(p2.config_positions, Ids({2}));
  expect_consistent(g, {3}, p2);

  // Far beyond the graph's diameter: everything.
  EXPECT_EQ(prune_graph(g, {3}, 50).kept, Ids({0, 1, 2, 3, 4, 5, 6}));
}

TEST(PruneGraph, KZeroKeepsEverything) {
  const GraphNodes g = chain();
  const PrunedGraph p = prune_graph(g, {5, 2}, 0);
  EXPECT_EQ(p.kept, Ids({0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(p.edge_index, g.edge_index);
  EXPECT_EQ(p.config_positions, Ids({5, 2}));
}

TEST(PruneGraph, NoConfigurableNodesKeepsEverything) {
  const GraphNodes g = chain();
  const PrunedGraph p = prune_graph(g, {}, 2);
  EXPECT_EQ(p.num_nodes(), 7);
  EXPECT_EQ(p.edge_index, g.edge_index);
  EXPECT_TRUE(p.config_positions.empty());
}

TEST(PruneGraph, DiamondDropsOnlyTheFarCorner) {
  // 0 feeds 1 and 2, both feed 3, 3 feeds 4.
  const GraphNodes g = make_graph(5, {1, 0, 2, 0, 3, 1, 3, 2, 4, 3});
  const PrunedGraph p = prune_graph(g, {0}, 1);
  EXPECT_EQ(p.kept, Ids({0, 1, 2}));
  EXPECT_EQ(p.edge_index, Ids({1, 0, 2, 0}));
  const PrunedGraph p2 = prune_graph(g, {0}, 2);
  EXPECT_EQ(p2.kept, Ids({0, 1, 2, 3}));
  EXPECT_EQ(p2.edge_index, Ids({1, 0, 2, 0, 3, 1, 3, 2}));
  // From the sink, one hop reaches only 3.
  EXPECT_EQ(prune_graph(g, {4}, 1).kept, Ids({3, 4}));
}

TEST(PruneGraph, DisconnectedPartWithoutConfigsIsDropped) {
  // Part A: 0-1-2; part B: 3-4-5; node 6 alone.
  const GraphNodes g = make_graph(7, {1, 0, 2, 1, 4, 3, 5, 4});
  const PrunedGraph p = prune_graph(g, {1}, 3);
  EXPECT_EQ(p.kept, Ids({0, 1, 2}));
  EXPECT_EQ(p.edge_index, Ids({1, 0, 2, 1}));
  // An isolated configurable node keeps just itself.
  const PrunedGraph q = prune_graph(g, {6, 4}, 1);
  EXPECT_EQ(q.kept, Ids({3, 4, 5, 6}));
  EXPECT_EQ(q.config_positions, Ids({3, 1}));
  EXPECT_EQ(q.edge_index, Ids({1, 0, 2, 1}));
}

TEST(PruneGraph, EdgeOrderOfTheFileIsKept) {
  // Edges deliberately not sorted; config ids not sorted either.
  const GraphNodes g = make_graph(6, {4, 3, 1, 0, 5, 4, 2, 1, 3, 2, 5, 0});
  const Ids configurable = {4, 1};
  const PrunedGraph p = prune_graph(g, configurable, 1);
  EXPECT_EQ(p.kept, Ids({0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(p.config_positions, Ids({4, 1}));
  EXPECT_EQ(p.edge_index, g.edge_index);
  const PrunedGraph q = prune_graph(make_graph(7, {4, 3, 1, 0, 6, 5, 2, 1}), configurable, 1);
  EXPECT_EQ(q.kept, Ids({0, 1, 2, 3, 4}));
  EXPECT_EQ(q.edge_index, Ids({4, 3, 1, 0, 2, 1}));
}

TEST(PruneGraph, DuplicateEdgesAndSelfLoops) {
  const GraphNodes g = make_graph(4, {1, 0, 1, 0, 2, 2, 3, 2});
  const PrunedGraph p = prune_graph(g, {0}, 1);
  EXPECT_EQ(p.kept, Ids({0, 1}));
  EXPECT_EQ(p.edge_index, Ids({1, 0, 1, 0}));
}

TEST(PruneGraph, MatchesNaiveReferenceOnRandomGraphs) {
  std::mt19937_64 rng(7);
  for (const int64_t n : {int64_t{1}, int64_t{30}, int64_t{1000}, int64_t{50000}}) {
    const int64_t m = 2 * n;
    Ids edges;
    std::uniform_int_distribution<int64_t> node(0, n - 1);
    for (int64_t k = 0; k < m; ++k) {
      // Mostly local edges, as in HLO graphs, plus some long ones.
      const int64_t u = node(rng);
      const int64_t v = (k % 5 == 0) ? node(rng) : std::max<int64_t>(0, u - 1 - static_cast<int64_t>(rng() % 4));
      edges.push_back(u);
      edges.push_back(v);
    }
    const GraphNodes g = make_graph(n, edges);
    Ids configurable;
    for (int64_t c = 0; c < std::max<int64_t>(1, n / 200); ++c) configurable.push_back(node(rng));
    for (const int k : {0, 1, 2, 3}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " k=" + std::to_string(k));
      const PrunedGraph p = prune_graph(g, configurable, k);
      EXPECT_EQ(p.kept, naive_kept(g, configurable, k));
      expect_consistent(g, configurable, p);
    }
  }
}

TEST(PruneGraph, BadIdsNameFileArrayAndValue) {
  const std::string e1 = test::error_of([] { prune_graph(make_graph(3, {1, 0, 3, 1}, "bad.npz"), {0}, 1); });
  EXPECT_NE(e1.find("bad.npz"), std::string::npos) << e1;
  EXPECT_NE(e1.find("edge_index"), std::string::npos) << e1;
  EXPECT_NE(e1.find("edge 1"), std::string::npos) << e1;
  EXPECT_NE(e1.find("node 3"), std::string::npos) << e1;

  const std::string e2 = test::error_of([] { prune_graph(make_graph(3, {1, -1}, "neg.npz"), {}, 0); });
  EXPECT_NE(e2.find("neg.npz"), std::string::npos) << e2;
  EXPECT_NE(e2.find("node -1"), std::string::npos) << e2;

  const std::string e3 = test::error_of([] { prune_graph(make_graph(3, {1, 0}, "cfg.npz"), {0, 7}, 1); });
  EXPECT_NE(e3.find("cfg.npz"), std::string::npos) << e3;
  EXPECT_NE(e3.find("node_config_ids"), std::string::npos) << e3;
  EXPECT_NE(e3.find("entry 1"), std::string::npos) << e3;
  EXPECT_NE(e3.find("node 7"), std::string::npos) << e3;

  const std::string e4 = test::error_of([] { prune_graph(make_graph(3, {1, 0, 2}, "odd.npz"), {0}, 1); });
  EXPECT_NE(e4.find("odd.npz"), std::string::npos) << e4;
  EXPECT_NE(e4.find("edge_index"), std::string::npos) << e4;

  const std::string e5 = test::error_of([] { prune_graph(make_graph(3, {1, 0}, "k.npz"), {0}, -1); });
  EXPECT_NE(e5.find("k.npz"), std::string::npos) << e5;
  EXPECT_NE(e5.find("khop"), std::string::npos) << e5;
}

TEST(PruneGraph, GatherRowsFollowsKept) {
  const std::vector<float> feat = {0, 1, 10, 11, 20, 21, 30, 31};  // 4 x 2
  EXPECT_EQ(gather_rows(feat, 2, {1, 3}), std::vector<float>({10, 11, 30, 31}));
  EXPECT_TRUE(gather_rows(feat, 2, {}).empty());
}

TEST(PruneGraph, RealAlexNetOneHop) {
  const NpzReader npz = NpzReader::open(test::data_file("cleaned_alexnet.npz"));
  const LayoutGraph g = load_layout_graph(npz, LoadOptions{false});
  ASSERT_EQ(g.num_nodes, 372);
  ASSERT_EQ(g.num_configurable(), 26);
  const PrunedGraph p = prune_graph(g, g.node_config_ids, 1);
  EXPECT_EQ(p.config_positions.size(), 26u);
  EXPECT_LT(p.num_nodes(), 372);
  EXPECT_GT(p.num_nodes(), 26);
  EXPECT_EQ(p.kept, naive_kept(g, g.node_config_ids, 1));
  expect_consistent(g, g.node_config_ids, p);

  std::set<std::pair<int64_t, int64_t>> original;
  for (int64_t k = 0; k < g.num_edges(); ++k) original.emplace(g.edge_index[2 * k], g.edge_index[2 * k + 1]);
  for (int64_t k = 0; k < p.num_edges(); ++k)
    EXPECT_TRUE(original.count({p.kept[p.edge_index[2 * k]], p.kept[p.edge_index[2 * k + 1]]})) << "edge " << k;
}

}  // namespace
}  // namespace fastslow
