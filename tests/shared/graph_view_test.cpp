#include "fastslow/view/edge_lod.h"
#include "fastslow/view/graph_svg.h"
#include "fastslow/view/node_groups.h"
#include "fastslow/graph/hlo_tables.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>

#include "fastslow/graph/graph.h"
#include "fastslow/io/npz_reader.h"
#include "test_support.h"

namespace fastslow {
namespace {

// A hand-made graph: node 0 feeds nodes 1..10 (a fan-out of 10), a chain
// 1 -> 11 -> 12, and node 12 reads 11 twice (parallel edges).
std::vector<int64_t> star_graph() {
  std::vector<int64_t> e;
  for (int64_t u = 1; u <= 10; ++u) e.insert(e.end(), {u, 0});
  e.insert(e.end(), {11, 1, 12, 11, 12, 11});
  return e;
}

GraphDrawing spread(int64_t n) {
  // Nodes on a 10-wide grid, 1 world unit apart.
  GraphDrawing d;
  for (int64_t v = 0; v < n; ++v) {
    d.x.push_back(static_cast<float>(v % 10));
    d.y.push_back(static_cast<float>(v / 10));
  }
  return d;
}

// The edges the segments stand for: a long edge is two stubs.
int64_t total_weight(const EdgeSegments& s) {
  int64_t w = 0, long_stubs = 0;
  for (int64_t k = 0; k < s.segments(); ++k) (s.stub[k] == 2 ? long_stubs : w) += s.weight[k];
  EXPECT_EQ(long_stubs % 2, 0);
  return w + long_stubs / 2;
}

TEST(EdgeLod, AHubIsANodeWithMoreUsersOrOperandsThanTheThreshold) {
  const std::vector<int64_t> e = star_graph();
  const std::vector<char> at9 = find_hubs(13, e, 9), at10 = find_hubs(13, e, 10);
  EXPECT_EQ(at9[0], 1);  // 10 users > 9
  EXPECT_EQ(at10[0], 0);  // 10 users, not more than 10
  EXPECT_EQ(std::count(at9.begin(), at9.end(), 1), 1);
  // Operands count too: node 12 reads two edges.
  const std::vector<char> at1 = find_hubs(13, e, 1);
  EXPECT_EQ(at1[12], 1);
  EXPECT_EQ(at1[11], 1);  // one operand, but two edges out (12 reads it twice)
  const std::vector<char> at2 = find_hubs(13, e, 2);
  EXPECT_EQ(at2[11] + at2[12], 0);
  EXPECT_NE(test::error_of([&] { find_hubs(5, e, 3); }).find("out of range"), std::string::npos);
}

TEST(EdgeLod, ZoomedInEveryEdgeIsItsOwnSegmentAndHubEdgesAreStubs) {
  const std::vector<int64_t> e = star_graph();
  const GraphDrawing d = spread(13);
  const std::vector<char> hubs = find_hubs(13, e, 9);
  EdgeLodOptions o;
  const float zoom = 100;  // 100 px per unit: 3-px cells hold one node each
  const EdgeSegments s = edge_segments(d, e, hubs, zoom, o);
  // 10 stubs (one per user of the hub), 1 -> 11, and 11 -> 12 twice merged
  // (the same two cells at any zoom).
  ASSERT_EQ(s.segments(), 12);
  EXPECT_EQ(std::count(s.stub.begin(), s.stub.end(), 1), 10);
  EXPECT_EQ(total_weight(s) + s.edges_hidden, 13);
  for (int64_t k = 0; k < s.segments(); ++k) {
    const float x0 = s.xy[4 * k], y0 = s.xy[4 * k + 1], x1 = s.xy[4 * k + 2], y1 = s.xy[4 * k + 3];
    if (s.stub[k]) {
      // At the user's end, o.stub_px long on screen, pointing at the hub (0, 0).
      EXPECT_NEAR(std::hypot(x1 - x0, y1 - y0) * zoom, o.stub_px, 1e-3);
      const float cross = x0 * (y1 - y0) - y0 * (x1 - x0);
      EXPECT_NEAR(cross, 0, 1e-4);
      EXPECT_LT(std::hypot(x1, y1), std::hypot(x0, y0));
    } else if (s.weight[k] == 2) {
      EXPECT_FLOAT_EQ(x0, d.x[11]);  // producer first
      EXPECT_FLOAT_EQ(x1, d.x[12]);
    }
  }
}

TEST(EdgeLod, ZoomedOutEdgesInOneCellHideAndEdgesBetweenTheSameCellsMerge) {
  const std::vector<int64_t> e = star_graph();
  // Nodes 0..9 in a row 0.1 apart, nodes 10..12 likewise 5 units below.
  GraphDrawing d;
  for (int64_t v = 0; v < 13; ++v) {
    d.x.push_back(0.1f * static_cast<float>(v % 10));
    d.y.push_back(5.0f * static_cast<float>(v / 10));
  }
  EdgeLodOptions o;
  o.cell_px = 1;  // at zoom 1: cells of 1 x 1 units, so each row is one cell
  o.long_px = 1e9;  // no edge is long here
  const EdgeSegments s = edge_segments(d, e, std::vector<char>(13, 0), 1.0f, o);
  EXPECT_EQ(total_weight(s) + s.edges_hidden, 13);
  // 0 -> 1..9 and 11 -> 12 (twice) stay inside a cell; 0 -> 10 and 1 -> 11
  // join the same two cells: one segment standing for both.
  EXPECT_EQ(s.edges_hidden, 11);
  ASSERT_EQ(s.segments(), 1);
  EXPECT_EQ(s.weight[0], 2);
  // Zoomed in 100x, every edge between distinct nodes is its own segment.
  const EdgeSegments in = edge_segments(d, e, std::vector<char>(13, 0), 100.0f, o);
  EXPECT_EQ(in.edges_hidden, 0);
  EXPECT_EQ(in.segments(), 12);  // 11 -> 12 twice is still one pair of cells
}

TEST(EdgeLod, EveryEdgeIsCountedOnceAtEveryZoomOnARandomGraph) {
  std::mt19937 rng(7);
  const int64_t n = 600;
  std::vector<int64_t> e;
  for (int64_t u = 1; u < n; ++u)
    for (int k = 0; k < 2; ++k) e.insert(e.end(), {u, static_cast<int64_t>(rng() % u)});
  for (int64_t u = 300; u < n; ++u) e.insert(e.end(), {u, 3});  // a hub
  const GraphDrawing d = draw_layered(n, e);
  const std::vector<char> hubs = find_hubs(n, e, 32);
  ASSERT_EQ(hubs[3], 1);
  int64_t hub_hub = 0;
  for (size_t k = 0; k < e.size(); k += 2) hub_hub += hubs[e[k]] && hubs[e[k + 1]];
  int64_t last = -1;
  for (float zoom : {0.05f, 0.5f, 2.0f, 16.0f, 200.0f}) {
    const EdgeSegments s = edge_segments(d, e, hubs, zoom);
    EXPECT_EQ(total_weight(s) + s.edges_hidden + hub_hub, static_cast<int64_t>(e.size() / 2)) << zoom;
    if (zoom <= 2) {
      EXPECT_GE(s.segments(), last) << "zooming in draws more segments until edges turn into stubs";
    }
    last = s.segments();
  }
}

TEST(EdgeLod, ALongEdgeIsTwoStubsPointingAtEachOther) {
  GraphDrawing d;
  d.x = {0, 0, 0.5f};
  d.y = {0, 10, 1};
  const std::vector<int64_t> e = {1, 0, 2, 0};  // 0 -> 1 (10 units), 0 -> 2 (1.1 units)
  EdgeLodOptions o;
  o.long_px = 50;
  const EdgeSegments s = edge_segments(d, e, std::vector<char>(3, 0), 10.0f, o);  // 100 px and 11 px
  ASSERT_EQ(s.segments(), 3);
  EXPECT_EQ(std::count(s.stub.begin(), s.stub.end(), 2), 2);
  for (int64_t k = 0; k < 3; ++k) {
    if (s.stub[k] != 2) continue;
    const float x0 = s.xy[4 * k], y0 = s.xy[4 * k + 1], y1 = s.xy[4 * k + 3];
    EXPECT_FLOAT_EQ(x0, 0.0f);
    EXPECT_NEAR(std::abs(y1 - y0) * 10, o.stub_px, 1e-3);
    EXPECT_EQ(y1 > y0, y0 == 0.0f);  // each points at the other end
  }
}

TEST(EdgeLod, TheLevelIsThePowerOfTwoAtOrBelowTheZoom) {
  EXPECT_FLOAT_EQ(edge_lod_level(1.0f), 1.0f);
  EXPECT_FLOAT_EQ(edge_lod_level(3.9f), 2.0f);
  EXPECT_FLOAT_EQ(edge_lod_level(0.3f), 0.25f);
  EXPECT_FLOAT_EQ(edge_lod_level(0.0f), 1.0f);
}

TEST(EdgeLod, BadInputsAreErrors) {
  const std::vector<int64_t> e = star_graph();
  const GraphDrawing d = spread(13);
  EXPECT_NE(test::error_of([&] { edge_segments(d, e, std::vector<char>(5, 0), 1.0f); }).find("hub flags"), std::string::npos);
  EXPECT_NE(test::error_of([&] { edge_segments(d, e, std::vector<char>(13, 0), 0.0f); }).find("zoom"), std::string::npos);
}

// The real nlp test graph at a zoom where its drawing fits 900 x 760 pixels
// (the page's graph view at 1280 x 800) draws far fewer segments than its
// 36,278 edges; the issue's target is under 5,000.
TEST(EdgeLod, TheRealNlpGraphAtFitDrawsFewerThan5000Segments) {
  const NpzReader npz = NpzReader::open(test::data_file("real/layout_nlp_default_test_3a0c5517a87df8d82fd637b83298a3ba.npz"));
  const LayoutGraph g = load_layout_graph(npz, LoadOptions{false});
  DrawingOptions dopt;
  dopt.layer_gap = 1.6f;
  const GraphDrawing d = draw_layered(g.num_nodes, g.edge_index, dopt);
  const float zoom = std::min(900.0f / (d.max_x - d.min_x + 2), 760.0f / (d.max_y + 2));
  const std::vector<char> hubs = find_hubs(g.num_nodes, g.edge_index, EdgeLodOptions{}.hub_degree);
  // The level rounds the zoom down; at the zoom itself the cells are
  // smallest on screen: the most segments the view can draw at fit.
  for (float z : {edge_lod_level(zoom), zoom}) {
    const EdgeSegments s = edge_segments(d, g.edge_index, hubs, z);
    EXPECT_LT(s.segments(), 5000) << z;
    EXPECT_GT(s.segments(), 1000) << z;
    EXPECT_EQ(std::count(hubs.begin(), hubs.end(), 1), 59);
    std::printf("nlp test graph at fit (zoom %.4f): %lld segments for %lld edges, %lld hubs\n", z,
                static_cast<long long>(s.segments()), static_cast<long long>(g.num_edges()),
                static_cast<long long>(std::count(hubs.begin(), hubs.end(), 1)));
  }
  // AlexNet's largest fan-out is 22: no hubs, every edge a line.
  const LayoutGraph a = load_layout_graph(NpzReader::open(test::data_file("cleaned_alexnet.npz")), LoadOptions{false});
  const std::vector<char> none = find_hubs(a.num_nodes, a.edge_index, EdgeLodOptions{}.hub_degree);
  EXPECT_EQ(std::count(none.begin(), none.end(), 1), 0);
}

// The SVG holds one <rect class="node"> per node inside the view, and
// Python's XML parser reads it (natively; under node the count is checked
// on the text).
TEST(GraphSvg, HoldsEveryNodeInTheViewAndParses) {
  const int64_t n = 300;
  std::vector<int64_t> e;
  for (int64_t u = 1; u < n; ++u) e.insert(e.end(), {u, u / 2});
  const GraphDrawing d = draw_layered(n, e);
  const EdgeSegments segs = edge_segments(d, e, find_hubs(n, e, 32), 8.0f);
  GraphSvgContent c;
  for (int64_t v = 0; v < n; ++v) {
    c.rgb.push_back(0x4080c0);
    c.label.push_back(v % 2 ? "add" : "a<b&\"c\"");  // escaped on the way out
    c.tooltip.push_back("#" + std::to_string(v));
    c.id.push_back(v);
    c.outlined.push_back(v % 7 == 0);
  }
  c.legend = {{"elementwise", 0x55aa55}};
  c.caption = "test <graph>";
  GraphSvgView view;
  view.zoom = 40;  // labels on: boxes are 32 px wide
  view.width = 640;
  view.height = 480;
  view.center_x = d.x[n / 2];
  view.center_y = d.y[n / 2];
  view.scale = 2;
  const GraphSvg svg = graph_svg(d, segs, c, view);
  int64_t inside = 0;
  for (int64_t v = 0; v < n; ++v) {
    const float x = (d.x[v] - view.center_x) * view.zoom + 320, y = (d.y[v] - view.center_y) * view.zoom + 240;
    inside += x + 16 >= 0 && x - 16 <= 640 && y + 10 >= 0 && y - 10 <= 480;
  }
  ASSERT_GT(inside, 0);
  ASSERT_LT(inside, n);
  EXPECT_EQ(svg.nodes, inside);
  size_t count = 0;
  for (size_t at = svg.text.find("class=\"node\""); at != std::string::npos; at = svg.text.find("class=\"node\"", at + 1)) ++count;
  EXPECT_EQ(static_cast<int64_t>(count), inside);
  EXPECT_GT(svg.segments, 0);
  EXPECT_EQ(svg.text.find("a<b"), std::string::npos);
  EXPECT_NE(svg.text.find("width=\"1280.0\""), std::string::npos);  // scale 2
  if (test::numpy_available()) {
    test::TempDir dir;
    test::write_bytes(dir.file("g.svg"), std::vector<uint8_t>(svg.text.begin(), svg.text.end()));
    std::string out;
    ASSERT_EQ(test::run_python("import xml.etree.ElementTree as ET\n"
                               "r = ET.parse('" + dir.file("g.svg") + "').getroot()\n"
                               "ns = '{http://www.w3.org/2000/svg}'\n"
                               "print(sum(1 for x in r.iter(ns + 'rect') if x.get('class') == 'node'))\n",
                               &out), 0) << out;
    EXPECT_EQ(std::stoll(out), inside);
  }
  c.id.pop_back();
  EXPECT_NE(test::error_of([&] { graph_svg(d, segs, c, view); }).find("id has 299 entries for 300 nodes"), std::string::npos);
}

// Elementwise chains on a hand-made graph: dot -> add -> tanh -> multiply
// -> dot folds {add, tanh, multiply}; a chain whose middle node has two
// users stops there; groups under the minimum size stay apart.
TEST(NodeGroups, ElementwiseChainsFoldBetweenHeavierOps) {
  GraphNodes g;
  g.file = "hand.npz";
  const std::vector<std::string> ops = {"dot", "add", "tanh", "multiply", "dot",  // 0..4
                                        "parameter", "exponential", "negate", "add", "log"};  // 5..9
  for (const std::string& op : ops) g.node_opcode.push_back(opcode_id(op));
  g.num_nodes = static_cast<int64_t>(ops.size());
  g.edge_index = {1, 0, 2, 1, 3, 2, 4, 3,  // dot -> add -> tanh -> multiply -> dot
                  6, 5, 7, 6, 8, 6, 9, 8};  // parameter -> exp -> {negate, add -> log}: exp has two users
  const NodeGroups r = elementwise_chains(g, 2);
  ASSERT_EQ(r.groups(), 2);
  EXPECT_EQ(r.group_of, (std::vector<int32_t>{-1, 0, 0, 0, -1, -1, -1, -1, 1, 1}));
  EXPECT_EQ(r.size, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(r.root, (std::vector<int64_t>{3, 9}));
  EXPECT_EQ(elementwise_chains(g, 3).groups(), 1);
  g.edge_index.push_back(99);
  g.edge_index.push_back(0);
  EXPECT_NE(test::error_of([&] { elementwise_chains(g); }).find("hand.npz"), std::string::npos);
}

// On real graphs: in every group, each member but the root has one user,
// inside the group, so folding keeps the graph acyclic (checked by a
// topological sort of the folded graph) and every group is elementwise.
TEST(NodeGroups, FoldingRealGraphsKeepsThemAcyclic) {
  for (const char* file : {"cleaned_alexnet.npz", "real/layout_xla_default_train_unet3d.npz",
                           "real/layout_nlp_default_test_3a0c5517a87df8d82fd637b83298a3ba.npz"}) {
    const LayoutGraph g = load_layout_graph(NpzReader::open(test::data_file(file)), LoadOptions{false});
    const NodeGroups r = elementwise_chains(g);
    ASSERT_GT(r.groups(), 0) << file;
    std::vector<int64_t> users(static_cast<size_t>(g.num_nodes), 0), inside(static_cast<size_t>(g.num_nodes), 0);
    const auto& e = g.edge_index;
    for (size_t k = 0; k < e.size(); k += 2) {
      ++users[e[k + 1]];
      if (r.group_of[e[k + 1]] >= 0 && r.group_of[e[k]] == r.group_of[e[k + 1]]) ++inside[e[k + 1]];
    }
    int64_t folded = 0;
    for (int64_t v = 0; v < g.num_nodes; ++v) {
      const int32_t c = r.group_of[v];
      if (c < 0) continue;
      ++folded;
      EXPECT_EQ(std::string(opcode_name(g.node_opcode[v])).empty(), false);
      if (v != r.root[c]) {
        EXPECT_EQ(users[v], 1) << file << " #" << v;
        EXPECT_EQ(inside[v], 1) << file << " #" << v;
      }
    }
    // Kahn's sort over the folded graph (a group is the node -1 - group).
    std::map<int64_t, std::vector<int64_t>> out;
    std::map<int64_t, int64_t> indeg;
    auto id = [&](int64_t v) { return r.group_of[v] >= 0 ? -1 - static_cast<int64_t>(r.group_of[v]) : v; };
    for (int64_t v = 0; v < g.num_nodes; ++v) indeg[id(v)] += 0;
    for (size_t k = 0; k < e.size(); k += 2) {
      const int64_t a = id(e[k + 1]), b = id(e[k]);
      if (a == b) continue;
      out[a].push_back(b);
      ++indeg[b];
    }
    std::vector<int64_t> ready;
    for (const auto& [v, d] : indeg)
      if (d == 0) ready.push_back(v);
    size_t seen = 0;
    while (!ready.empty()) {
      const int64_t v = ready.back();
      ready.pop_back();
      ++seen;
      for (int64_t w : out[v])
        if (--indeg[w] == 0) ready.push_back(w);
    }
    EXPECT_EQ(seen, indeg.size()) << file << ": folding made a cycle";
    std::printf("%s: %lld elementwise chains fold %lld of %lld nodes\n", file, static_cast<long long>(r.groups()),
                static_cast<long long>(folded), static_cast<long long>(g.num_nodes));
  }
}

}  // namespace
}  // namespace fastslow
