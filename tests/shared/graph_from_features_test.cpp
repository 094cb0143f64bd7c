// Reading a graph back from its published features (graph_from_features.h):
// a generated graph read back from the features the generator wrote is the
// graph the cost model priced, so both price every config alike; a real
// file reads and prices; what cannot be read is refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/synth/features.h"
#include "fastslow/synth/graph_from_features.h"
#include "fastslow/synth/layout_configs.h"
#include "fastslow/synth/layout_cost.h"
#include "fastslow/synth/price.h"
#include "fastslow/synth/templates.h"
#include "test_support.h"

namespace fastslow::synth {
namespace {

// The layout file the generator writes of g, as loading it gives.
LayoutGraph as_file(const HloGraph& g) {
  LayoutGraph f;
  f.file = "generated.npz";
  f.num_nodes = g.num_nodes();
  f.node_feat_width = static_cast<int64_t>(node_feature_names().size());
  f.node_feat = node_features(g);
  f.node_opcode = g.opcodes();
  // The published files list each node's operands by producer id, not in
  // operand order.
  std::vector<int64_t> e = g.edges();
  std::vector<std::pair<int64_t, int64_t>> rows;
  for (size_t i = 0; i < e.size(); i += 2) rows.push_back({e[i], e[i + 1]});
  std::sort(rows.begin(), rows.end());
  for (const auto& [u, v] : rows) {
    f.edge_index.push_back(u);
    f.edge_index.push_back(v);
  }
  f.node_splits = g.node_splits;
  f.node_config_ids = g.layout_configurable_nodes();
  return f;
}

double contraction(const HloGraph& g, const HloNode& n) {
  const HloNode& lhs = g.nodes[static_cast<size_t>(n.operands[0])];
  double k = 1;
  for (int64_t d : n.dot_dims.lhs_contracting) k *= static_cast<double>(lhs.dims[static_cast<size_t>(d)]);
  return k;
}

TEST(GraphFromFeatures, AGeneratedGraphReadsBackAsMadeAndPricesAlike) {
  static const int dot = require_opcode("dot"), conv = require_opcode("convolution");
  int dots = 0, convs = 0, squares = 0, ambiguous = 0;
  for (ModelTemplate t : all_templates()) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      SCOPED_TRACE(std::string(template_name(t)) + " seed " + std::to_string(seed));
      Rng rng(seed);
      const HloGraph g = generate(t, rng, 1200);
      const HloGraph h = graph_from_features(as_file(g));
      ASSERT_EQ(h.num_nodes(), g.num_nodes());
      EXPECT_EQ(h.node_splits, g.node_splits);
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        const HloNode &a = g.nodes[i], &b = h.nodes[i];
        SCOPED_TRACE("node " + std::to_string(i));
        ASSERT_EQ(b.opcode, a.opcode);
        ASSERT_EQ(b.type, a.type);
        ASSERT_EQ(b.dims, a.dims);
        ASSERT_EQ(b.minor_to_major, a.minor_to_major);
        ASSERT_EQ(b.computation, a.computation);
        ASSERT_EQ(b.is_root, a.is_root);
        // An operand used twice is one edge, so read back once; the order
        // is the file's (by producer), except a convolution's or dot's,
        // which is read from the shapes.
        std::vector<int> distinct;
        for (int v : a.operands)
          if (std::find(distinct.begin(), distinct.end(), v) == distinct.end()) distinct.push_back(v);
        if ((a.opcode == conv || a.opcode == dot) && distinct.size() == 2 &&
            g.nodes[static_cast<size_t>(distinct[0])].dims == g.nodes[static_cast<size_t>(distinct[1])].dims) {
          ++ambiguous;  // two operands of one shape: either order reads alike
        } else if (a.opcode == conv || a.opcode == dot) {
          ASSERT_EQ(b.operands, distinct) << "operand order read from the shapes";
        } else {
          std::vector<int> sorted = distinct, read = b.operands;
          std::sort(sorted.begin(), sorted.end());
          std::sort(read.begin(), read.end());
          ASSERT_EQ(read, sorted);
        }
        squares += distinct.size() < a.operands.size();
        if (a.opcode == conv) {
          ++convs;
          EXPECT_EQ(b.conv_dims.kernel_input_feature, a.conv_dims.kernel_input_feature);
          EXPECT_EQ(b.conv_dims.kernel_spatial, a.conv_dims.kernel_spatial);
          EXPECT_EQ(b.conv_dims.output_feature, a.conv_dims.output_feature);
          EXPECT_EQ(b.window.size, a.window.size);
        }
        if (a.opcode == dot) {
          ++dots;
          EXPECT_EQ(contraction(h, b), contraction(g, a)) << "the contraction size the dims imply";
        }
      }
      const LayoutSpace s = layout_space(g), r = layout_space(h);
      ASSERT_EQ(r.nodes, s.nodes);
      EXPECT_EQ(r.in_rank, s.in_rank);
      EXPECT_EQ(r.kernel_rank, s.kernel_rank);
      const std::vector<float> configs = sample_layout_configs(g, s, LayoutSearch::Random, 20, rng);
      const size_t w = static_cast<size_t>(s.size() * kLayoutConfigWidth);
      // Operands of one shape read in the file's order price alike here:
      // both are stored in their built layouts.
      for (size_t c = 0; c < 20; ++c) {
        const float* row = configs.data() + c * w;
        EXPECT_EQ(layout_runtime(h, r, row), layout_runtime(g, s, row)) << "config " << c;
      }
    }
  }
  EXPECT_GT(dots, 50);
  EXPECT_GT(convs, 50);
  EXPECT_GT(squares, 10) << "ops reading one operand twice (Adam's g * g), which the file holds once";
  EXPECT_GT(ambiguous, 10) << "dots of two operands of one shape (attention's q and k)";
}

TEST(GraphFromFeatures, ARealFileReadsAndPricesEveryMeasuredConfig) {
  const std::string path = test::data_file("real/layout_xla_default_train_unet3d.npz");
  const LayoutGraph file = load_layout_graph(NpzReader::open(path));
  const HloGraph g = graph_from_features(file);
  ASSERT_EQ(g.num_nodes(), file.num_nodes);
  EXPECT_EQ(g.node_splits.size(), 2u);
  static const int conv = require_opcode("convolution");
  int five_d = 0;
  for (int64_t id : file.node_config_ids) {
    const HloNode& n = g.nodes[static_cast<size_t>(id)];
    if (n.opcode != conv) continue;
    five_d += n.rank() == 5;
    // A 3-D convolution: three spatial dims, and its kernel has them too.
    EXPECT_EQ(n.conv_dims.kernel_spatial.size(), 3u);
    const HloNode& k = g.nodes[static_cast<size_t>(n.operands.at(1))];
    EXPECT_EQ(k.rank(), 5);
  }
  EXPECT_EQ(five_d, 53);
  const Pricer pricer = Pricer::from_features(path);
  const std::vector<int64_t> ns = pricer.runtimes_ns(file.node_config_feat);
  ASSERT_EQ(static_cast<int64_t>(ns.size()), file.num_configs);
  for (int64_t v : ns) EXPECT_GT(v, 0);

  // The file's convolutions read their activations named batch-minor
  // (0, 4: a batch of 2) or feature-minor (4, 0), and configs that differ
  // only there measure alike; the pricer agrees (no copy to move a batch
  // of 2). Config 0 with every such input flipped prices the same.
  const size_t w = static_cast<size_t>(pricer.row_elems());
  std::vector<float> flipped(file.node_config_feat.begin(), file.node_config_feat.begin() + static_cast<std::ptrdiff_t>(w));
  int flips = 0;
  for (size_t j = 0; j < file.node_config_ids.size(); ++j) {
    float* in = flipped.data() + j * kLayoutConfigWidth + kLayoutSlots;
    const HloNode& n = g.nodes[static_cast<size_t>(file.node_config_ids[j])];
    if (n.opcode != conv || n.operands.empty() || g.nodes[static_cast<size_t>(n.operands[0])].dims.at(0) != 2) continue;
    if ((in[0] == 0 && in[1] == 4) || (in[0] == 4 && in[1] == 0)) {
      std::swap(in[0], in[1]);
      ++flips;
    }
  }
  EXPECT_GT(flips, 20);
  const std::vector<float> first(file.node_config_feat.begin(), file.node_config_feat.begin() + static_cast<std::ptrdiff_t>(w));
  EXPECT_EQ(pricer.runtimes_ns(flipped), pricer.runtimes_ns(first));
}

// Every real layout file here reads back and prices its configs: the
// configs' ranks fit the operands read (their order is read from shapes,
// as the files list operands by producer id).
TEST(GraphFromFeatures, EveryRealLayoutFileReadsAndPricesItsConfigs) {
  for (const char* name : {"real/layout_nlp_default_test_3a0c5517a87df8d82fd637b83298a3ba.npz",
                           "real/layout_nlp_random_test_23559853d9702baaaacbb0c83fd32266.npz",
                           "real/layout_xla_default_test_cd708819d3f5103afd6460b15e74eaf3.npz",
                           "real/layout_xla_random_test_cd708819d3f5103afd6460b15e74eaf3.npz",
                           "real/layout_xla_random_train_openai_v0_rnn_optimized.npz"}) {
    SCOPED_TRACE(name);
    const std::string path = test::data_file(name);
    const LayoutGraph file = load_layout_graph(NpzReader::open(path));
    const Pricer pricer = Pricer::from_features(path);
    const size_t w = static_cast<size_t>(pricer.row_elems());
    const size_t count = std::min<size_t>(20, static_cast<size_t>(file.num_configs));
    const std::vector<float> some(file.node_config_feat.begin(), file.node_config_feat.begin() + static_cast<std::ptrdiff_t>(count * w));
    std::vector<int64_t> ns;
    ASSERT_NO_THROW(ns = pricer.runtimes_ns(some));
    ASSERT_EQ(ns.size(), count);
    for (int64_t v : ns) EXPECT_GT(v, 0);
  }
}

// Attention as the real nlp files hold it: [B, S, H, D] operands batched
// over B and H, which do not lead (XLA puts them first in the result).
// Their contraction is read from the shapes, as is which operand is the lhs.
TEST(GraphFromFeatures, ADotBatchedOverDimsThatDoNotLeadReadsItsContraction) {
  HloBuilder b;
  // v first: the file then lists it before the scores, which are ctx's lhs.
  const int v = b.parameter(ElementType::F32, {4, 16, 2, 8});
  const int q = b.parameter(ElementType::F32, {4, 16, 2, 8});
  const int k = b.parameter(ElementType::F32, {4, 16, 2, 8});
  const int scores = b.dot(q, k, {{0, 2}, {3}, {0, 2}, {3}});     // [4, 2, 16, 16]
  const int ctx = b.dot(scores, v, {{0, 1}, {3}, {0, 2}, {1}});   // [4, 2, 16, 8]
  const int dv = b.dot(ctx, scores, {{0, 1}, {2}, {0, 1}, {2}});  // [4, 2, 8, 16]: the lhs contracts dim 2
  const HloGraph g = b.build(b.tuple({scores, ctx, dv}));
  const HloGraph h = graph_from_features(as_file(g));
  int dots = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].opcode != require_opcode("dot")) continue;
    ++dots;
    EXPECT_EQ(h.nodes[i].operands, g.nodes[i].operands) << "node " << i;
    EXPECT_EQ(h.nodes[i].dot_dims.lhs_contracting, g.nodes[i].dot_dims.lhs_contracting) << "node " << i;
  }
  EXPECT_EQ(dots, 3);
}

TEST(GraphFromFeatures, RefusesWhatCannotBeReadByName) {
  const LayoutGraph alexnet = load_layout_graph(NpzReader::open(test::data_file("cleaned_alexnet.npz")));
  try {
    graph_from_features(alexnet);
    FAIL() << "a 70-column file read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cleaned_alexnet.npz"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("70 columns"), std::string::npos) << e.what();
  }
  Rng rng(4);
  const LayoutGraph good = as_file(generate(ModelTemplate::ResNet, rng, 300));
  LayoutGraph bad = good;
  bad.edge_index[1] = bad.num_nodes + 5;
  EXPECT_THROW(graph_from_features(bad), Error);
  // A convolution naming a dim its input lacks: the cost model would index
  // past the tensor.
  static const int conv = require_opcode("convolution");
  bad = good;
  const int batch = require_node_feature("convolution_dim_numbers_input_batch_dim");
  int64_t at = -1;
  for (int64_t i = 0; i < bad.num_nodes && at < 0; ++i)
    if (bad.node_opcode[static_cast<size_t>(i)] == conv) at = i;
  ASSERT_GE(at, 0);
  bad.node_feat[static_cast<size_t>(at * bad.node_feat_width + batch)] = 9;
  try {
    graph_from_features(bad);
    FAIL() << "a convolution with a dim outside its input read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node " + std::to_string(at) + ": a convolution"), std::string::npos) << e.what();
  }
  bad = good;
  bad.node_feat[static_cast<size_t>(at * bad.node_feat_width + require_node_feature("shape_dimensions_0"))] = -3;
  EXPECT_THROW(graph_from_features(bad), Error);
  bad = good;
  bad.node_config_ids.back() = bad.num_nodes - 1;  // the root tuple
  try {
    graph_from_features(bad);
    FAIL() << "a configurable node that is not a convolution, dot or reshape read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("node_config_ids"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fastslow::synth
