#include "fastslow/view/node_search.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <set>

#include "fastslow/graph/hlo_tables.h"
#include "fastslow/io/npz_reader.h"
#include "test_support.h"

namespace fastslow {
namespace {

// A random DAG whose nodes have one of four opcodes.
GraphNodes random_graph(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  GraphNodes g;
  g.file = "random.npz";
  g.num_nodes = n;
  const int ops[] = {opcode_id("dot"), opcode_id("add"), opcode_id("tanh"), opcode_id("multiply")};
  for (int64_t v = 0; v < n; ++v) g.node_opcode.push_back(ops[rng() % 4]);
  for (int64_t u = 1; u < n; ++u)
    for (int k = 0; k < 1 + static_cast<int>(rng() % 3); ++k) g.edge_index.insert(g.edge_index.end(), {u, static_cast<int64_t>(rng() % u)});
  return g;
}

// Every chain v0 -> v1 -> ... (each consuming the previous) whose k-th node
// has opcode ops[k], found by walking all paths.
void naive_pattern(const GraphNodes& g, const std::vector<std::string>& ops, std::set<int64_t>* starts,
                   std::set<int64_t>* nodes) {
  std::vector<std::vector<int64_t>> users(static_cast<size_t>(g.num_nodes));
  for (size_t i = 0; i < g.edge_index.size(); i += 2) users[g.edge_index[i + 1]].push_back(g.edge_index[i]);
  std::vector<int64_t> path;
  std::function<void(int64_t)> walk = [&](int64_t v) {
    if (opcode_name(g.node_opcode[v]) != ops[path.size()]) return;
    path.push_back(v);
    if (path.size() == ops.size()) {
      starts->insert(path[0]);
      nodes->insert(path.begin(), path.end());
    } else {
      for (int64_t u : users[v]) walk(u);
    }
    path.pop_back();
  };
  for (int64_t v = 0; v < g.num_nodes; ++v) walk(v);
}

TEST(NodeSearch, PatternsFindWhatWalkingEveryPathFinds) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    const GraphNodes g = random_graph(400, seed);
    for (const std::vector<std::string>& ops :
         {std::vector<std::string>{"dot"}, {"dot", "add"}, {"dot", "add", "tanh"}, {"add", "add", "add", "multiply"}}) {
      std::string query;
      for (const std::string& op : ops) query += (query.empty() ? "" : " -> ") + op;
      std::set<int64_t> starts, nodes;
      naive_pattern(g, ops, &starts, &nodes);
      const NodeSearch r = search_nodes(g, {}, query);
      EXPECT_EQ(r.steps, static_cast<int>(ops.size()));
      EXPECT_EQ(std::vector<int64_t>(starts.begin(), starts.end()), r.starts) << query << " seed " << seed;
      EXPECT_EQ(std::vector<int64_t>(nodes.begin(), nodes.end()), r.nodes) << query << " seed " << seed;
      if (ops.size() <= 3) {
        EXPECT_FALSE(r.starts.empty()) << query;
      }
    }
  }
  // Without spaces around the arrows, the same.
  const GraphNodes g = random_graph(200, 9);
  EXPECT_EQ(search_nodes(g, {}, "dot->add").nodes, search_nodes(g, {}, "dot -> add").nodes);
}

TEST(NodeSearch, TermsOnARealGraphMatchAScanOfItsFeatures) {
  const NpzReader npz = NpzReader::open(test::data_file("real/layout_xla_default_train_unet3d.npz"));
  const LayoutGraph g = load_layout_graph(npz, LoadOptions{false});
  std::vector<int8_t> conf(static_cast<size_t>(g.num_nodes), 0);
  for (int64_t v : g.node_config_ids) conf[v] = 1;
  const int col = node_feature_index("shape_dimensions_0");
  auto dims = [&](int64_t v) {
    std::vector<int64_t> d;
    for (int i = 0; i < 6; ++i) {
      const float x = g.node_feat[v * g.node_feat_width + col + i];
      if (x <= 0) break;
      d.push_back(static_cast<int64_t>(x));
    }
    return d;
  };
  auto scan = [&](const std::function<bool(int64_t)>& keep) {
    std::vector<int64_t> out;
    for (int64_t v = 0; v < g.num_nodes; ++v)
      if (keep(v)) out.push_back(v);
    return out;
  };
  const std::vector<int64_t> rank5 = scan([&](int64_t v) { return dims(v).size() == 5; });
  ASSERT_FALSE(rank5.empty());
  EXPECT_EQ(search_nodes(g, conf, "rank:5").nodes, rank5);
  const std::vector<int64_t> conv_conf = scan([&](int64_t v) {
    return conf[v] && std::string(opcode_name(g.node_opcode[v])) == "convolution";
  });
  ASSERT_FALSE(conv_conf.empty());
  EXPECT_EQ(search_nodes(g, conf, "convolution configurable").nodes, conv_conf);
  EXPECT_EQ(search_nodes(g, conf, "is:configurable").nodes, scan([&](int64_t v) { return conf[v] != 0; }));
  // A shape taken from the file, exactly and with a wildcard.
  const std::vector<int64_t> s = dims(rank5[0]);
  const std::string exact = "shape:" + shape_text(s);
  EXPECT_EQ(search_nodes(g, conf, exact).nodes, scan([&](int64_t v) { return dims(v) == s; }));
  const std::string wild = "shape:*x" + shape_text(std::vector<int64_t>(s.begin() + 1, s.end()));
  EXPECT_EQ(search_nodes(g, conf, wild).nodes, scan([&](int64_t v) {
    const std::vector<int64_t> d = dims(v);
    return d.size() == s.size() && std::equal(d.begin() + 1, d.end(), s.begin() + 1);
  }));
  EXPECT_EQ(search_nodes(g, conf, "dim:" + std::to_string(s[0])).nodes, scan([&](int64_t v) {
    const std::vector<int64_t> d = dims(v);
    return std::find(d.begin(), d.end(), s[0]) != d.end();
  }));
  EXPECT_EQ(node_shape(g, rank5[0]), s);
  EXPECT_EQ(node_shape_text(g, rank5[0]), shape_text(s));
  // Ids, with or without '#'; a substring finds every opcode containing it.
  EXPECT_EQ(search_nodes(g, conf, "#17").nodes, std::vector<int64_t>{17});
  EXPECT_EQ(search_nodes(g, conf, "17").nodes, std::vector<int64_t>{17});
  EXPECT_TRUE(search_nodes(g, conf, "#999999").nodes.empty());
  EXPECT_EQ(search_nodes(g, conf, "CONVOLUTION").nodes, search_nodes(g, conf, "op:convolution").nodes);
  EXPECT_EQ(search_nodes(g, conf, "volution").nodes, search_nodes(g, conf, "convolution").nodes);
  EXPECT_TRUE(search_nodes(g, conf, "  ").nodes.empty());
}

TEST(NodeSearch, QueriesItCannotReadAreErrorsNamingThem) {
  const GraphNodes g = random_graph(50, 4);
  auto err = [&](const std::string& q) { return test::error_of([&] { search_nodes(g, {}, q); }); };
  EXPECT_NE(err("colour:red").find("unknown term 'colour:red'"), std::string::npos);
  EXPECT_NE(err("dot -> ").find("empty"), std::string::npos);
  EXPECT_NE(err("-> dot").find("empty"), std::string::npos);
  EXPECT_NE(err("zzzz").find("no opcode name contains 'zzzz'"), std::string::npos);
  EXPECT_NE(err("rank:two").find("whole number"), std::string::npos);
  EXPECT_NE(err("shape:").find("1 to 6 sizes"), std::string::npos);
  EXPECT_NE(err("shape:8xq").find("whole number"), std::string::npos);
  // No node features here: shapes are unknown, and the message says so.
  const std::string e = err("rank:2");
  EXPECT_NE(e.find("random.npz"), std::string::npos) << e;
  EXPECT_NE(e.find("140"), std::string::npos) << e;
  EXPECT_EQ(shape_text({}), "scalar");
  EXPECT_EQ(node_shape_text(g, 3), "");  // unknown here, not a scalar
  EXPECT_EQ(shape_text({8, 128}), "8x128");
}

}  // namespace
}  // namespace fastslow
