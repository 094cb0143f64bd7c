#include "fastslow/view/graph_drawing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "fastslow/error.h"
#include "fastslow/io/npz_reader.h"
#include "test_support.h"

namespace fastslow {
namespace {

// Checks every property a drawing promises: layers respect the edges (except
// reported back edges), each layer is a permutation in left-to-right x order
// with at least node_gap between neighbours, y follows the layer.
void expect_valid(const GraphDrawing& d, int64_t n, const std::vector<int64_t>& edges, const DrawingOptions& o = {}) {
  ASSERT_EQ(static_cast<int64_t>(d.layer.size()), n);
  ASSERT_EQ(static_cast<int64_t>(d.layer_nodes.size()), n);
  std::vector<int32_t> seen(static_cast<size_t>(n), 0);
  for (int32_t l = 0; l < d.num_layers(); ++l) {
    ASSERT_LT(d.layer_start[l], d.layer_start[l + 1]) << "empty layer " << l;
    for (int32_t i = d.layer_start[l]; i < d.layer_start[l + 1]; ++i) {
      const int32_t v = d.layer_nodes[i];
      ++seen[v];
      EXPECT_EQ(d.layer[v], l);
      EXPECT_FLOAT_EQ(d.y[v], static_cast<float>(l) * o.layer_gap);
      ASSERT_TRUE(std::isfinite(d.x[v]));
      if (i > d.layer_start[l]) {
        EXPECT_GE(d.x[v] - d.x[d.layer_nodes[i - 1]], o.node_gap * 0.999f);
      }
    }
  }
  for (int32_t c : seen) {
    EXPECT_EQ(c, 1);
  }
  int64_t upward = 0;
  for (size_t e = 0; e < edges.size(); e += 2) {
    if (edges[e] != edges[e + 1] && d.layer[edges[e + 1]] >= d.layer[edges[e]]) ++upward;
  }
  EXPECT_LE(upward, d.back_edges);
}

// A random DAG in program order: node u reads 1-2 earlier nodes.
std::vector<int64_t> random_dag(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int64_t> e;
  for (int64_t u = 1; u < n; ++u) {
    const int k = 1 + static_cast<int>(rng() % 2);
    for (int j = 0; j < k; ++j) {
      // Mostly nearby producers, as in HLO graphs.
      const int64_t back = 1 + static_cast<int64_t>(rng() % std::min<int64_t>(u, 20));
      e.push_back(u);
      e.push_back(u - back);
    }
  }
  return e;
}

TEST(GraphLayout, LayersFollowTheEdgesAndSourcesSitAboveTheirUser) {
  // 0 -> 1 -> 2 -> 3, and a constant 4 used only by 3.
  const std::vector<int64_t> e = {1, 0, 2, 1, 3, 2, 3, 4};
  const GraphDrawing d = draw_layered(5, e);
  expect_valid(d, 5, e);
  EXPECT_EQ(d.layer, (std::vector<int32_t>{0, 1, 2, 3, 2}));
  EXPECT_EQ(d.back_edges, 0);
  EXPECT_EQ(d.num_layers(), 4);
}

TEST(GraphLayout, SweepsUntangleAShuffledTree) {
  // A complete binary tree (root on top) whose ids are shuffled: drawn in id
  // order its levels cross a lot; a tree has a crossing-free drawing.
  const int64_t n = 255;
  std::vector<int64_t> id(n);
  std::iota(id.begin(), id.end(), 0);
  std::shuffle(id.begin() + 1, id.end(), std::mt19937(5));
  std::vector<int64_t> e;
  for (int64_t c = 1; c < n; ++c) {
    e.push_back(id[c]);
    e.push_back(id[(c - 1) / 2]);
  }
  DrawingOptions none;
  none.sweeps = 0;
  const int64_t before = count_adjacent_crossings(draw_layered(n, e, none), e);
  const GraphDrawing d = draw_layered(n, e);
  expect_valid(d, n, e);
  EXPECT_GT(before, 100);
  EXPECT_EQ(count_adjacent_crossings(d, e), 0);
}

TEST(GraphLayout, FewerCrossingsOnRandomDags) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const std::vector<int64_t> e = random_dag(2000, seed);
    DrawingOptions none;
    none.sweeps = 0;
    const int64_t before = count_adjacent_crossings(draw_layered(2000, e, none), e);
    const GraphDrawing d = draw_layered(2000, e);
    expect_valid(d, 2000, e);
    const int64_t after = count_adjacent_crossings(d, e);
    std::printf("[ figures  ] seed %u: %lld -> %lld adjacent-layer crossings\n", seed,
                static_cast<long long>(before), static_cast<long long>(after));
    EXPECT_LT(after, before * 2 / 3);
  }
}

TEST(GraphLayout, StraighteningPullsAChainIntoALine) {
  // A chain with a side input at every step: the chain's nodes line up.
  std::vector<int64_t> e;
  const int64_t len = 20;
  for (int64_t i = 1; i < len; ++i) e.insert(e.end(), {i, i - 1});
  for (int64_t i = 1; i < len; ++i) e.insert(e.end(), {i, len + i});
  const GraphDrawing d = draw_layered(2 * len, e);
  expect_valid(d, 2 * len, e);
  float spread = 0;
  for (int64_t i = 2; i < len; ++i) spread = std::max(spread, std::fabs(d.x[i] - d.x[i - 1]));
  EXPECT_LE(spread, 1.01f);
}

TEST(GraphLayout, CyclesAndSelfLoopsDoNotHang) {
  // 0 -> 1 -> 2 -> 0, 3 -> 3, 2 -> 4.
  const std::vector<int64_t> e = {1, 0, 2, 1, 0, 2, 3, 3, 4, 2};
  const GraphDrawing d = draw_layered(5, e);
  expect_valid(d, 5, e);
  EXPECT_EQ(d.back_edges, 1);
}

TEST(GraphLayout, EmptyAndBadInput) {
  const GraphDrawing d = draw_layered(0, {});
  EXPECT_EQ(d.num_layers(), 0);
  const GraphDrawing one = draw_layered(1, {});
  expect_valid(one, 1, {});
  const std::string msg = test::error_of([] { draw_layered(3, {0, 5}); });
  EXPECT_NE(msg.find("edge_index"), std::string::npos) << msg;
  EXPECT_NE(msg.find("outside 0..2"), std::string::npos) << msg;
  EXPECT_THROW(draw_layered(3, {0}), Error);
}

TEST(GraphLayout, TheRealAlexNetGraph) {
  const NpzReader npz = NpzReader::open(test::data_file("cleaned_alexnet.npz"));
  const std::vector<int64_t> e = npz.read("edge_index").to_int64();
  const int64_t n = npz.header("node_opcode").shape[0];
  const GraphDrawing d = draw_layered(n, e);
  expect_valid(d, n, e);
  EXPECT_EQ(d.back_edges, 0);
  std::printf("[ figures  ] alexnet: %lld nodes in %d layers, width %.0f\n", static_cast<long long>(n),
              d.num_layers(), static_cast<double>(d.max_x - d.min_x));
}

// Packed pieces: 40 separate stars, each a node and 1-4 users (as a k-hop
// view is many small neighbourhoods), side by side make a strip two layers
// high; packed they become rows toward the asked aspect, each piece keeping
// its own drawing (x offsets and layer steps within it).
TEST(GraphDrawing, PackingPutsSeparatePiecesInRowsAndKeepsEachPieceAsDrawn) {
  std::vector<int64_t> e;
  std::vector<std::vector<int64_t>> pieces;
  int64_t n = 0;
  for (int p = 0; p < 40; ++p) {
    std::vector<int64_t> nodes = {n++};
    for (int k = 0; k < 1 + p % 4; ++k) {
      e.insert(e.end(), {n, nodes[0]});
      nodes.push_back(n++);
    }
    pieces.push_back(nodes);
  }
  DrawingOptions flat, packed;
  packed.pack_aspect = 1.5f;
  const GraphDrawing a = draw_layered(n, e, flat), b = draw_layered(n, e, packed);
  expect_valid(b, n, e, packed);
  const float wa = a.max_x - a.min_x, wb = b.max_x - b.min_x;
  EXPECT_LT(wb, wa / 3) << "packed rows are narrower than all pieces side by side";
  EXPECT_EQ(a.num_layers(), 2);
  EXPECT_GT(b.num_layers(), a.num_layers());
  const float aspect = wb / std::max(b.max_y, 1.0f);
  EXPECT_GT(aspect, 1.5f / 3);
  EXPECT_LT(aspect, 1.5f * 3);
  for (const auto& nodes : pieces)
    for (int64_t v : nodes) {
      EXPECT_FLOAT_EQ(b.x[v] - b.x[nodes[0]], a.x[v] - a.x[nodes[0]]);
      EXPECT_EQ(b.layer[v] - b.layer[nodes[0]], a.layer[v] - a.layer[nodes[0]]);
    }
  // One piece: nothing to pack, the same drawing.
  const std::vector<int64_t> chain = {1, 0, 2, 1};
  const GraphDrawing c = draw_layered(3, chain, packed), f = draw_layered(3, chain, flat);
  EXPECT_EQ(c.x, f.x);
  EXPECT_EQ(c.layer, f.layer);
}

}  // namespace
}  // namespace fastslow
