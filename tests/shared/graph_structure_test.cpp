// Structure in one graph and between two: structure hashes, repeated blocks
// (a transformer's layers) folded as bands, a folded box opened in place,
// and comparing two files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fastslow/graph/dedup.h"
#include "fastslow/graph/graph.h"
#include "fastslow/graph/graph_compare.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/graph/structure_hash.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/view/graph_drawing.h"
#include "fastslow/view/node_groups.h"
#include "fastslow/view/open_in_place.h"
#include "test_support.h"

namespace fastslow {
namespace {

// A hand-made network of `copies` identical residual blocks between an
// input and a head. Each block: x -> dot(w) -> add(b) -> tanh ->
// multiply(s1) -> exponential -> log -> sqrt -> multiply(s2) -> rsqrt ->
// negate -> add(x), 15 nodes with its four parameters.
struct Repeated {
  GraphNodes g;
  std::vector<std::vector<int64_t>> copy;  // nodes of each copy
  std::vector<int64_t> sqrt_node;          // per copy: its sqrt, deep inside it
};

constexpr int64_t kBlockNodes = 15;

Repeated residual_stack(int copies) {
  Repeated r;
  r.g.file = "stack.npz";
  auto node = [&](const char* op, std::vector<int64_t> inputs) {
    const int64_t id = r.g.num_nodes++;
    r.g.node_opcode.push_back(opcode_id(op));
    for (int64_t in : inputs) r.g.edge_index.insert(r.g.edge_index.end(), {id, in});
    if (!r.copy.empty()) r.copy.back().push_back(id);
    return id;
  };
  int64_t x = node("parameter", {});
  for (int c = 0; c < copies; ++c) {
    r.copy.emplace_back();
    const int64_t w = node("parameter", {}), b = node("parameter", {});
    const int64_t s1 = node("constant", {}), s2 = node("constant", {});
    int64_t h = node("dot", {x, w});
    h = node("add", {h, b});
    h = node("tanh", {h});
    h = node("multiply", {h, s1});
    h = node("exponential", {h});
    h = node("log", {h});
    h = node("sqrt", {h});
    r.sqrt_node.push_back(h);
    h = node("multiply", {h, s2});
    h = node("rsqrt", {h});
    h = node("negate", {h});
    x = node("add", {h, x});
  }
  r.copy.emplace_back();  // the head belongs to no copy
  const int64_t red = node("reduce", {x});
  node("tuple", {red});
  r.copy.pop_back();
  return r;
}

GraphDrawing drawn(const GraphNodes& g) {
  DrawingOptions o;
  o.layer_gap = 1.6f;
  return draw_layered(g.num_nodes, g.edge_index, o);
}

TEST(StructureHash, EqualForNodesThatPlayTheSamePartAndDeterministic) {
  const Repeated r = residual_stack(8);
  const std::vector<uint64_t> h = structure_hashes(r.g);
  EXPECT_EQ(h, structure_hashes(r.g));
  // Deep inside, every copy's sqrt looks the same; the dot of the first
  // copy, which reads the input parameter, differs from a middle copy's,
  // and the middle copies' dots are alike.
  for (int64_t s : r.sqrt_node) EXPECT_EQ(h[s], h[r.sqrt_node[0]]);
  EXPECT_NE(h[r.copy[0][4]], h[r.copy[4][4]]);
  EXPECT_EQ(h[r.copy[4][4]], h[r.copy[5][4]]);
  // Zero rounds: the opcode alone.
  const std::vector<uint64_t> h0 = structure_hashes(r.g, 0);
  EXPECT_EQ(h0[r.copy[0][4]], h0[r.copy[3][4]]);
  GraphNodes bad = r.g;
  bad.edge_index.push_back(-1);
  bad.edge_index.push_back(0);
  EXPECT_NE(test::error_of([&] { structure_hashes(bad); }).find("stack.npz"), std::string::npos);
}

// Every copy of the hand-made stack is found as its own band: the middle
// bands hold exactly one copy's worth of nodes, each copy's sqrt sits in its
// own band, bands are disjoint layer ranges in order, and folding them
// leaves every edge running down (so the folded graph stays acyclic).
TEST(RepeatedBlocks, EachCopyOfAStackIsOneBand) {
  for (int copies : {4, 8, 13}) {
    const Repeated r = residual_stack(copies);
    const GraphDrawing d = drawn(r.g);
    const NodeGroups b = repeated_blocks(r.g, d.layer);
    ASSERT_EQ(b.groups(), copies) << copies;
    for (int c = 0; c < copies; ++c) EXPECT_EQ(b.group_of[r.sqrt_node[c]], c) << copies;
    for (int c = 1; c + 1 < copies; ++c) EXPECT_EQ(b.size[c], kBlockNodes) << copies << " copy " << c;
    std::vector<int32_t> lo(copies, 1 << 30), hi(copies, -1);
    for (int64_t v = 0; v < r.g.num_nodes; ++v) {
      const int32_t c = b.group_of[v];
      if (c < 0) continue;
      lo[c] = std::min(lo[c], d.layer[v]), hi[c] = std::max(hi[c], d.layer[v]);
    }
    for (int c = 0; c + 1 < copies; ++c) EXPECT_LT(hi[c], lo[c + 1]);
    for (int64_t v = 0; v < r.g.num_nodes; ++v)
      if (b.group_of[v] >= 0) {
        EXPECT_TRUE(d.layer[v] >= lo[b.group_of[v]] && d.layer[v] <= hi[b.group_of[v]]);
      }
    for (size_t k = 0; k < r.g.edge_index.size(); k += 2) {
      const int32_t gu = b.group_of[r.g.edge_index[k]], gv = b.group_of[r.g.edge_index[k + 1]];
      if (gu >= 0 && gv >= 0) {
        EXPECT_LE(gv, gu);  // producer's band at or above the user's
      }
    }
    for (int c = 0; c < copies; ++c) EXPECT_EQ(b.group_of[b.root[c]], c);
    EXPECT_EQ(b.run, std::vector<int32_t>(copies, 0));  // one run
  }
}

TEST(RepeatedBlocks, NoneWithoutARepeatAndBadInput) {
  // One copy repeats nothing; a chain of distinct ops neither.
  const Repeated one = residual_stack(1);
  EXPECT_EQ(repeated_blocks(one.g, drawn(one.g).layer).groups(), 0);
  const LayoutGraph alex = load_layout_graph(NpzReader::open(test::data_file("cleaned_alexnet.npz")), LoadOptions{false});
  const NodeGroups a = repeated_blocks(alex, drawn(alex).layer);
  std::printf("AlexNet: %lld repeated blocks\n", static_cast<long long>(a.groups()));
  const Repeated r = residual_stack(4);
  EXPECT_NE(test::error_of([&] { repeated_blocks(r.g, {0, 1}); }).find("stack.npz"), std::string::npos);
}

// The real transformer test graph, a training graph: three runs of its 24
// layers are found (the forward layers, their gradients, and the update
// after them). Within a run most bands hold the same number of nodes (the
// first and last also hold what meets the embedding or the loss, and some
// bands a random-number chain the graph computes beside the layers).
TEST(RepeatedBlocks, TheRealNlpGraphFoldsIntoItsLayers) {
  const LayoutGraph g = load_layout_graph(
      NpzReader::open(test::data_file("real/layout_nlp_default_test_3a0c5517a87df8d82fd637b83298a3ba.npz")), LoadOptions{false});
  const GraphDrawing d = drawn(g);
  const NodeGroups b = repeated_blocks(g, d.layer);
  ASSERT_GE(b.groups(), 48);
  ASSERT_EQ(b.run.size(), static_cast<size_t>(b.groups()));
  const int32_t runs = *std::max_element(b.run.begin(), b.run.end()) + 1;
  EXPECT_GE(runs, 2);
  for (int32_t k = 0; k < runs; ++k) {
    std::map<int64_t, int> sizes;
    int copies = 0;
    for (int64_t i = 0; i < b.groups(); ++i)
      if (b.run[i] == k) ++sizes[b.size[i]], ++copies;
    EXPECT_EQ(copies, 24) << "run " << k;
    int most = 0;
    int64_t size = 0;
    for (const auto& [sz, c] : sizes)
      if (c > most) most = c, size = sz;
    EXPECT_GE(most, copies / 2) << "run " << k;
    std::printf("nlp run %d: %d copies, %d of them of %lld nodes\n", k, copies, most, static_cast<long long>(size));
  }
  for (int64_t i = 1; i < b.groups(); ++i) EXPECT_LE(d.layer[b.root[i - 1]], d.layer[b.root[i]]);  // layer order
  const int64_t folded = std::count_if(b.group_of.begin(), b.group_of.end(), [](int32_t x) { return x >= 0; });
  std::printf("nlp: %lld repeated blocks in %d runs holding %lld of %lld nodes\n", static_cast<long long>(b.groups()), runs,
              static_cast<long long>(folded), static_cast<long long>(g.num_nodes));
  EXPECT_GT(folded, g.num_nodes / 3);
}

// Opening one band of the folded stack in place: the nodes above keep
// their places, those below move down by the band's depth (less the box's
// own layer), the box's layer makes room, and the members sit as their
// own drawing has them.
TEST(OpenInPlace, OtherNodesKeepTheirPlacesAndOrder) {
  const Repeated r = residual_stack(6);
  const GraphDrawing full = drawn(r.g);
  const NodeGroups b = repeated_blocks(r.g, full.layer);
  ASSERT_EQ(b.groups(), 6);
  // Fold every band; then open band 2.
  std::vector<int64_t> display_of(static_cast<size_t>(r.g.num_nodes)), node_of;
  std::vector<int64_t> box_of(6, -1);
  for (int64_t v = 0; v < r.g.num_nodes; ++v) {
    const int32_t c = b.group_of[v];
    if (c >= 0 && box_of[c] >= 0) {
      display_of[v] = box_of[c];
      continue;
    }
    display_of[v] = static_cast<int64_t>(node_of.size());
    if (c >= 0) box_of[c] = display_of[v];
    node_of.push_back(c >= 0 ? -1 - c : v);
  }
  auto edges_of = [&](const std::vector<int64_t>& of) {
    std::vector<int64_t> e;
    for (size_t k = 0; k < r.g.edge_index.size(); k += 2) {
      const int64_t u = of[r.g.edge_index[k]], v = of[r.g.edge_index[k + 1]];
      if (u != v) e.insert(e.end(), {u, v});
    }
    return e;
  };
  DrawingOptions o;
  o.layer_gap = 1.6f;
  const GraphDrawing folded = draw_layered(static_cast<int64_t>(node_of.size()), edges_of(display_of), o);
  const int32_t box = static_cast<int32_t>(box_of[2]);
  // The members' own drawing.
  std::vector<int64_t> members, local(static_cast<size_t>(r.g.num_nodes), -1);
  for (int64_t v = 0; v < r.g.num_nodes; ++v)
    if (b.group_of[v] == 2) local[v] = static_cast<int64_t>(members.size()), members.push_back(v);
  std::vector<int64_t> inner;
  for (size_t k = 0; k < r.g.edge_index.size(); k += 2)
    if (local[r.g.edge_index[k]] >= 0 && local[r.g.edge_index[k + 1]] >= 0)
      inner.insert(inner.end(), {local[r.g.edge_index[k]], local[r.g.edge_index[k + 1]]});
  const GraphDrawing inside = draw_layered(static_cast<int64_t>(members.size()), inner, o);
  ASSERT_GT(inside.num_layers(), 3);
  // New numbering: outer nodes first (the box left out), then the members.
  const int64_t on = static_cast<int64_t>(node_of.size());
  std::vector<int32_t> outer_to_new(static_cast<size_t>(on), -1), inside_to_new(members.size());
  int32_t next = 0;
  for (int64_t j = 0; j < on; ++j)
    if (j != box) outer_to_new[j] = next++;
  for (size_t i = 0; i < members.size(); ++i) inside_to_new[i] = next++;
  const GraphDrawing opened = open_in_place(folded, box, inside, outer_to_new, inside_to_new, o.layer_gap);

  const int32_t L = folded.layer[box], grow = inside.num_layers() - 1;
  ASSERT_EQ(opened.num_layers(), folded.num_layers() + grow);
  for (int64_t j = 0; j < on; ++j) {
    if (j == box) continue;
    const int32_t t = outer_to_new[j];
    if (folded.layer[j] < L) {
      EXPECT_EQ(opened.x[t], folded.x[j]);
      EXPECT_EQ(opened.y[t], folded.y[j]);
    } else if (folded.layer[j] > L) {
      EXPECT_EQ(opened.x[t], folded.x[j]);
      EXPECT_FLOAT_EQ(opened.y[t], folded.y[j] + static_cast<float>(grow) * o.layer_gap);
    } else {
      EXPECT_EQ(opened.layer[t], L);
      EXPECT_GE(std::abs(opened.x[t] - folded.x[box]), std::abs(folded.x[j] - folded.x[box]));
    }
  }
  // Order in every old layer kept; the layer lists sorted by x.
  for (int32_t l = 0; l < folded.num_layers(); ++l) {
    std::vector<int32_t> before, after;
    for (int32_t i = folded.layer_start[l]; i < folded.layer_start[l + 1]; ++i)
      if (folded.layer_nodes[i] != box) before.push_back(outer_to_new[folded.layer_nodes[i]]);
    const int32_t nl = l > L ? l + grow : l;
    for (int32_t i = opened.layer_start[nl]; i < opened.layer_start[nl + 1]; ++i)
      if (opened.layer_nodes[i] < on - 1) after.push_back(opened.layer_nodes[i]);
    EXPECT_EQ(before, after) << "layer " << l;
  }
  for (int32_t l = 0; l < opened.num_layers(); ++l)
    for (int32_t i = opened.layer_start[l] + 1; i < opened.layer_start[l + 1]; ++i)
      EXPECT_LE(opened.x[opened.layer_nodes[i - 1]], opened.x[opened.layer_nodes[i]]);
  // Members: as drawn on their own, moved as one.
  for (size_t i = 0; i < members.size(); ++i) {
    const int32_t t = inside_to_new[i];
    EXPECT_EQ(opened.layer[t], L + inside.layer[i]);
    EXPECT_NEAR(opened.x[t] - opened.x[inside_to_new[0]], inside.x[i] - inside.x[0], 1e-4);
  }
  // Bad maps.
  std::vector<int32_t> twice = inside_to_new;
  twice[1] = twice[0];
  EXPECT_NE(test::error_of([&] { open_in_place(folded, box, inside, outer_to_new, twice, 1.6f); }).find("permutation"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { open_in_place(folded, -1, inside, outer_to_new, inside_to_new, 1.6f); }).find("box"),
            std::string::npos);
}

// One graph in two files (the default and random collections of one xla
// graph): the same graph; their shared configs against a direct comparison
// of the config rows.
TEST(GraphCompare, OneGraphUnderTwoConfigSets) {
  const std::string fa = test::data_file("real/layout_xla_default_test_cd708819d3f5103afd6460b15e74eaf3.npz");
  const std::string fb = test::data_file("real/layout_xla_random_test_cd708819d3f5103afd6460b15e74eaf3.npz");
  const LayoutGraph a = load_layout_graph(NpzReader::open(fa)), b = load_layout_graph(NpzReader::open(fb));
  const GraphComparison c = compare_graphs(a, b);
  EXPECT_TRUE(c.same_graph);
  EXPECT_TRUE(c.same_features);
  EXPECT_TRUE(c.opcode_diffs.empty());
  EXPECT_EQ(c.matched, a.num_nodes);
  EXPECT_TRUE(c.unmatched_a.empty());

  const ConfigGroups ga = dedup_configs(NpzReader::open(fa), "node_config_feat", std::vector<double>(a.num_configs, 1.0));
  const ConfigGroups gb = dedup_configs(NpzReader::open(fb), "node_config_feat", std::vector<double>(b.num_configs, 1.0));
  const ConfigOverlap o = config_overlap(ga, gb, false);
  const size_t row = static_cast<size_t>(a.num_configurable() * a.config_feat_width);
  std::set<std::vector<float>> ra, rb;
  for (int64_t k = 0; k < a.num_configs; ++k) ra.emplace(a.node_config_feat.begin() + k * row, a.node_config_feat.begin() + (k + 1) * row);
  for (int64_t k = 0; k < b.num_configs; ++k) rb.emplace(b.node_config_feat.begin() + k * row, b.node_config_feat.begin() + (k + 1) * row);
  int64_t both = 0;
  for (const auto& x : rb) both += ra.count(x);
  EXPECT_EQ(o.distinct_a, static_cast<int64_t>(ra.size()));
  EXPECT_EQ(o.distinct_b, static_cast<int64_t>(rb.size()));
  EXPECT_EQ(o.both, both);
  std::printf("xla cd70: default %lld distinct configs, random %lld, in both %lld\n", static_cast<long long>(o.distinct_a),
              static_cast<long long>(o.distinct_b), static_cast<long long>(o.both));
  // Against the first half of its own configs: the half's distinct rows are in both.
  std::vector<float> half(a.node_config_feat.begin(), a.node_config_feat.begin() + (a.num_configs / 2) * row);
  const ConfigGroups gh = dedup_configs(half, static_cast<int64_t>(row), std::vector<double>(a.num_configs / 2, 1.0));
  std::set<std::vector<float>> rh;
  for (int64_t k = 0; k < a.num_configs / 2; ++k) rh.emplace(half.begin() + k * row, half.begin() + (k + 1) * row);
  EXPECT_EQ(config_overlap(ga, gh, false).both, static_cast<int64_t>(rh.size()));
  EXPECT_GT(rh.size(), 100u);
  // A file against itself: every config in both, each measured alike.
  const ConfigOverlap self = config_overlap(ga, ga, true);
  EXPECT_EQ(self.both, ga.num_groups());
  EXPECT_DOUBLE_EQ(self.median_runtime_ratio, 1.0);
  ConfigGroups cached = ga;
  cached.row_key.clear();
  EXPECT_NE(test::error_of([&] { config_overlap(cached, gb, false); }).find("row key"), std::string::npos);
}

// Two graphs: opcode counts against a direct count, and structure matching
// on stacks of 8 and 6 copies.
TEST(GraphCompare, TwoGraphsOfOneFamily) {
  const Repeated big = residual_stack(8), small = residual_stack(6);
  const GraphComparison c = compare_graphs(big.g, small.g);
  EXPECT_FALSE(c.same_graph);
  std::map<int32_t, std::pair<int64_t, int64_t>> direct;
  for (int32_t op : big.g.node_opcode) ++direct[op].first;
  for (int32_t op : small.g.node_opcode) ++direct[op].second;
  size_t differing = 0;
  for (const auto& [op, n] : direct) differing += n.first != n.second;
  ASSERT_EQ(c.opcode_diffs.size(), differing);
  for (const auto& d : c.opcode_diffs) {
    EXPECT_EQ(d.a, direct[d.opcode].first);
    EXPECT_EQ(d.b, direct[d.opcode].second);
  }
  for (size_t i = 1; i < c.opcode_diffs.size(); ++i)
    EXPECT_GE(std::llabs(c.opcode_diffs[i - 1].a - c.opcode_diffs[i - 1].b), std::llabs(c.opcode_diffs[i].a - c.opcode_diffs[i].b));
  // Every node of the 6-stack has a partner; the 8-stack's surplus is two
  // copies' worth, two of each of a block's 15 parts, none in the first copy.
  EXPECT_EQ(c.matched, small.g.num_nodes);
  ASSERT_EQ(static_cast<int64_t>(c.unmatched_a.size()), 2 * kBlockNodes);
  std::map<int64_t, int> part_count;
  for (int64_t v : c.unmatched_a)
    for (size_t k = 0; k < big.copy.size(); ++k) {
      const auto it = std::find(big.copy[k].begin(), big.copy[k].end(), v);
      if (it == big.copy[k].end()) continue;
      EXPECT_GT(k, 0u);
      ++part_count[it - big.copy[k].begin()];
    }
  EXPECT_EQ(static_cast<int64_t>(part_count.size()), kBlockNodes);
  for (const auto& [part, n] : part_count) EXPECT_EQ(n, 2) << "part " << part;

  const LayoutGraph a = load_layout_graph(
      NpzReader::open(test::data_file("real/layout_nlp_default_test_3a0c5517a87df8d82fd637b83298a3ba.npz")), LoadOptions{false});
  const LayoutGraph b = load_layout_graph(
      NpzReader::open(test::data_file("real/layout_nlp_random_test_23559853d9702baaaacbb0c83fd32266.npz")), LoadOptions{false});
  const GraphComparison r = compare_graphs(a, b);
  EXPECT_FALSE(r.same_graph);
  EXPECT_EQ(static_cast<int64_t>(r.unmatched_a.size()), a.num_nodes - r.matched);
  EXPECT_LE(r.matched, std::min(a.num_nodes, b.num_nodes));
  std::printf("nlp 3a0c vs 2355: %lld and %lld nodes, %lld matched by structure, %zu opcodes differ in count\n",
              static_cast<long long>(a.num_nodes), static_cast<long long>(b.num_nodes), static_cast<long long>(r.matched),
              r.opcode_diffs.size());
  const GraphComparison self = compare_graphs(a, a);
  EXPECT_TRUE(self.same_graph);
  EXPECT_EQ(self.matched, a.num_nodes);
}

}  // namespace
}  // namespace fastslow
