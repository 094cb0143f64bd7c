// The explorer built natively, driven without a browser: a hidden GLFW
// window (Xvfb in CI: tests/CMakeLists.txt runs this suite under xvfb-run),
// the real AlexNet file, frames drawn and read back, and a ranking run
// through the same rank session calls the page makes, with a test host in
// place of ONNX Runtime Web.
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "app.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/io/read_file.h"
#include "fastslow/rank/metrics.h"
#include "fastslow/rank/rank_inputs.h"
#include "imgui_window.h"
#include "png_file.h"
#include "rank_session.h"
#include "test_support.h"

namespace fastslow::explorer {
namespace {

// The host the page would be: ranking requests are kept for the test to run.
class TestHost : public Host {
 public:
  struct Request {
    int model, ticket;
  };
  std::vector<Request> requests;
  std::vector<std::pair<std::string, std::string>> saved;
  double clock = 0;

  std::string request_rank(int model, int ticket) override {
    requests.push_back({model, ticket});
    return "";
  }
  bool open_dialog(FileKind) override { return false; }
  std::string save(const std::string& name, const std::string& text) override {
    saved.emplace_back(name, text);
    return name;
  }
  void set_clipboard(const std::string&) override {}
  double now_ms() override { return clock += 16; }
  double last_input_ms() override { return -1e9; }
};

void open_file(App& app, const std::string& path, const std::string& name) {
  const std::string bytes = read_whole_file(path);
  auto* p = static_cast<uint8_t*>(std::malloc(bytes.size()));
  ASSERT_NE(p, nullptr);
  std::memcpy(p, bytes.data(), bytes.size());
  app.open(name, MallocBytes(p), bytes.size(), 1);
}

// A model card that fits the open document: what the session needs (widths,
// normalisation, pruning, batches of 512 configs).
std::string card_for(const Document& d) {
  nlohmann::json stats = {{"log_scale", nlohmann::json::array()}, {"mean", nlohmann::json::array()},
                          {"stddev", nlohmann::json::array()}};
  for (int64_t i = 0; i < d.info.node_feat_width; ++i) {
    stats["log_scale"].push_back(0);
    stats["mean"].push_back(0.0);
    stats["stddev"].push_back(1.0);
  }
  return nlohmann::json{{"format", "fastslow-model"},
                        {"format_version", 1},
                        {"kind", graph_kind_name(d.kind)},
                        {"model", {{"name", "sage"}, {"hidden", 8}, {"layers", 1}, {"opcode_vocab", 121}}},
                        {"node_feat_width", d.info.node_feat_width},
                        {"config_feat_width", d.info.config_feat_width},
                        {"normalization", {{"node", stats}}},
                        {"pruning", {{"khop", 1}}},
                        {"batching", {{"chunk", 4096}}}}
      .dump();
}

// A made-up model: each config's score is the sum of its rows' values
// (what a batch holds), so every group gets a score from the batch itself.
std::vector<double> score_batch(const wasm::RankSession& s, int64_t count) {
  const size_t per = s.batch.size() / static_cast<size_t>(count);
  std::vector<double> out(static_cast<size_t>(count));
  for (int64_t c = 0; c < count; ++c)
    out[c] = std::accumulate(s.batch.begin() + c * per, s.batch.begin() + (c + 1) * per, 0.0);
  return out;
}

// The app with AlexNet open and a made-up model of its widths: its card.
std::string open_alexnet_with_a_model(App& app) {
  open_file(app, test::data_file("cleaned_alexnet.npz"), "cleaned_alexnet.npz");
  const std::string card = card_for(*app.doc);
  app.ranking.add_model("made-up", card);
  return card;
}

// Scores every batch of a session with score_batch, as the page would.
std::vector<double> score_session(wasm::RankSession& s) {
  std::vector<double> scores;
  for (int64_t k = 0; k < s.chunks; ++k) {
    const std::optional<int64_t> count = wasm::rank_session_batch(s, k);
    if (!count) throw Error("the session stopped at batch " + std::to_string(k));
    const std::vector<double> part = score_batch(s, *count);
    scores.insert(scores.end(), part.begin(), part.end());
  }
  return scores;
}

class ExplorerUi : public ::testing::Test {
 protected:
  void SetUp() override {
    window_ = start_window(1280, 800, false);
    if (!window_) GTEST_SKIP() << "no display with OpenGL ES 3 (run under xvfb-run, as ctest does)";
  }
  void TearDown() override {
    if (window_) stop_window(window_);
  }
  void frames(App& app, int n) {
    for (int k = 0; k < n; ++k) draw_frame(app, kW, kH, 1);
  }
  // The frame as drawn: RGBA rows, top first.
  std::vector<uint8_t> pixels() {
    std::vector<uint8_t> rgba(static_cast<size_t>(kW) * kH * 4), top(rgba.size());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, kW, kH, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    const size_t row = static_cast<size_t>(kW) * 4;
    for (int y = 0; y < kH; ++y) std::memcpy(&top[y * row], &rgba[(kH - 1 - y) * row], row);
    return top;
  }
  static constexpr int kW = 1280, kH = 800;
  GLFWwindow* window_ = nullptr;
};

TEST_F(ExplorerUi, DrawsTheRealAlexNetGraphAndItsPanels) {
  TestHost host;
  App app(host);
  open_file(app, test::data_file("cleaned_alexnet.npz"), "cleaned_alexnet.npz");
  frames(app, 3);
  const auto state = nlohmann::json::parse(app.state_json());
  EXPECT_EQ(state["graph"]["nodes"], 372);
  EXPECT_EQ(state["graph"]["configs"], 47712);
  EXPECT_EQ(state["frames"], 3);
  EXPECT_GT(state["graph"]["vertices"].get<int64_t>(), 372);
  // AlexNet's node_splits are [0, 324, 372]: two computations (as `fastslow
  // info` counts them), none empty; the end marker is no third one.
  ASSERT_TRUE(app.doc);
  EXPECT_EQ(app.doc->node_splits, (std::vector<int64_t>{0, 324}));
  std::vector<int64_t> members(app.doc->node_splits.size(), 0);
  for (int32_t c : app.doc->computation) ++members.at(static_cast<size_t>(c));
  EXPECT_EQ(members, (std::vector<int64_t>{324, 48}));
  // The graph view (the left 60 %) holds the nodes' family colours: many
  // distinct colours, not an empty view.
  const std::vector<uint8_t> px = pixels();
  std::set<uint32_t> colours;
  int64_t lit = 0;
  for (int y = 60; y < kH - 20; ++y)
    for (int x = 0; x < kW * 6 / 10; ++x) {
      const uint8_t* p = &px[(static_cast<size_t>(y) * kW + x) * 4];
      colours.insert(p[0] << 16 | p[1] << 8 | p[2]);
      lit += p[0] + p[1] + p[2] > 3 * 60;
    }
  EXPECT_GT(colours.size(), 20u);
  EXPECT_GT(lit, 2000);
  // Search, select and collapse, as the page's JS does.
  app.graph.search("convolution");
  EXPECT_GT(app.graph.search_hits(), 0u);
  app.graph.select(5, 1);
  EXPECT_EQ(app.graph.selected(), 5);
  app.graph.select(100000, 1);  // out of range: nothing selected
  EXPECT_EQ(app.graph.selected(), -1);
  app.graph.select(7, 1);
  frames(app, 2);  // the inspector draws node 7
  // A study beside the graph.
  const std::string trials =
      "{\"number\":0,\"state\":\"complete\",\"params\":{\"lr\":0.001},\"objectives\":{\"score\":0.5}}\n"
      "{\"number\":1,\"state\":\"complete\",\"params\":{\"lr\":0.01},\"objectives\":{\"score\":0.7}}\n";
  app.open_study("trials.jsonl", trials);
  frames(app, 2);
  EXPECT_EQ(nlohmann::json::parse(app.state_json())["study"]["trials"], 2);
  // A screenshot, as `fastslow_explorer --screenshot` writes one.
  test::TempDir dir;
  write_png(dir.file("explorer.png"), kW, kH, pixels());
  const std::string png = read_whole_file(dir.file("explorer.png"));
  EXPECT_EQ(png.substr(1, 3), "PNG");
  EXPECT_GT(png.size(), 10000u);
}

// The real 21,918-node nlp test graph, as a user opens it: at fit the view
// draws under 5,000 edge segments for its 36,278 edges, marks all 848
// configurable nodes, and hubs show as badges; search by pattern steps
// through matches; arrows walk to an operand; the model's view leaves out
// what no model reads; the SVG of the view holds the selected node.
TEST_F(ExplorerUi, TheRealNlpGraphStaysReadableAtFitAndSearchableByPattern) {
  TestHost host;
  App app(host);
  open_file(app, test::data_file("real/layout_nlp_default_test_3a0c5517a87df8d82fd637b83298a3ba.npz"), "nlp.npz");
  ASSERT_TRUE(app.doc);
  const Document& doc = *app.doc;
  frames(app, 1);
  app.graph.fit();
  frames(app, 2);
  auto graph_state = [&] { return nlohmann::json::parse(app.state_json())["graph"]; };
  nlohmann::json g = graph_state();
  EXPECT_EQ(g["nodes"], 21918);
  EXPECT_EQ(g["configurable_nodes"], 848);
  EXPECT_LT(g["edges_drawn"].get<int64_t>(), 5000);
  EXPECT_GT(g["edges_drawn"].get<int64_t>(), 500);
  EXPECT_EQ(g["configurable_marked"], 848);
  EXPECT_EQ(g["hubs"], 59);
  std::printf("nlp at fit: %lld edge segments drawn, %lld configurable marked\n",
              static_cast<long long>(g["edges_drawn"].get<int64_t>()), static_cast<long long>(g["configurable_marked"].get<int64_t>()));

  // A pattern: each match's first node is a dot whose output an add reads.
  app.graph.search("dot -> add");
  const NodeSearch found = app.graph.search_result();
  ASSERT_TRUE(app.graph.search_error().empty()) << app.graph.search_error();
  ASSERT_FALSE(found.starts.empty());
  app.graph.step_search(1, 1);
  const int64_t first = app.graph.selected();
  EXPECT_EQ(first, found.starts[0]);
  EXPECT_STREQ(opcode_name(doc.graph.node_opcode[first]), "dot");
  bool feeds_add = false;
  const auto& e = doc.graph.edge_index;
  for (size_t k = 0; k < e.size(); k += 2)
    feeds_add |= e[k + 1] == first && std::string(opcode_name(doc.graph.node_opcode[e[k]])) == "add";
  EXPECT_TRUE(feeds_add);
  EXPECT_FLOAT_EQ(app.graph.view().center_x, app.graph.display().drawing.x[app.graph.display().display_of[first]]);
  app.graph.step_search(-1, 1);  // back past the first: the last match
  EXPECT_EQ(app.graph.selected(), found.starts.back());
  app.graph.search("dot -> ");
  EXPECT_NE(app.graph.search_error().find("empty"), std::string::npos);

  // Up walks to an operand of the selection: an edge of the file says so.
  app.graph.select(first, 1);
  app.graph.walk(0, -1, 1);
  const int64_t up = app.graph.selected();
  bool operand = false;
  for (size_t k = 0; k < e.size(); k += 2) operand |= e[k] == first && e[k + 1] == up;
  EXPECT_TRUE(operand) << first << " -> " << up;
  frames(app, 2);
  g = graph_state();
  EXPECT_GT(g["overlay_edges"].get<int64_t>(), 0);  // the selection's edges drawn over the view

  // What a model reads (1 hop around the 848 configurable nodes): fewer
  // nodes, every configurable one still marked at fit.
  app.graph.set_node_set(NodeSet::ModelReads, 1);
  frames(app, 3);
  g = graph_state();
  EXPECT_EQ(g["node_set"], "model_reads");
  EXPECT_GT(g["hidden_nodes"].get<int64_t>(), 10000);
  EXPECT_EQ(g["display_nodes"].get<int64_t>() + g["hidden_nodes"].get<int64_t>(), 21918);
  EXPECT_EQ(g["configurable_marked"], 848);
  std::printf("nlp, what the model reads: %lld of 21918 nodes, %lld edge segments\n",
              static_cast<long long>(g["display_nodes"].get<int64_t>()), static_cast<long long>(g["edges_drawn"].get<int64_t>()));

  // Elementwise chains folded: one box per chain, the rest as they are;
  // clicking (opening) one box brings its nodes back.
  app.graph.set_node_set(NodeSet::All);
  const NodeGroups chains = elementwise_chains(doc.graph);
  const int64_t in_chains = std::accumulate(chains.size.begin(), chains.size.end(), int64_t{0});
  app.graph.set_chains_folded(true);
  frames(app, 2);
  g = graph_state();
  EXPECT_EQ(g["folded_chains"], chains.groups());
  EXPECT_EQ(g["display_nodes"].get<int64_t>(), 21918 - in_chains + chains.groups());
  app.graph.set_chain_folded(0, false);
  EXPECT_EQ(static_cast<int64_t>(app.graph.display().node_of.size()), 21918 - in_chains + chains.groups() - 1 + chains.size[0]);
  app.graph.set_chains_folded(false);
  EXPECT_EQ(app.graph.display().node_of.size(), 21918u);

  // The transformer's layers: one box per copy of the repeated block.
  // Opening one in place leaves every other node where it was (above the
  // box), straight below it (below the box) or moved aside (beside it), in
  // the same order in its layer.
  const NodeGroups blocks = repeated_blocks(doc.graph, doc.drawing.layer);
  ASSERT_GT(blocks.groups(), 2);
  const int64_t in_blocks = std::accumulate(blocks.size.begin(), blocks.size.end(), int64_t{0});
  app.graph.set_blocks_folded(true);
  frames(app, 2);
  g = graph_state();
  EXPECT_EQ(g["blocks"], blocks.groups());
  EXPECT_EQ(g["folded_blocks"], blocks.groups());
  EXPECT_EQ(g["display_nodes"].get<int64_t>(), 21918 - in_blocks + blocks.groups());
  std::printf("nlp, repeated blocks folded: %lld boxes, %lld display nodes, %lld edge segments\n",
              static_cast<long long>(blocks.groups()), static_cast<long long>(g["display_nodes"].get<int64_t>()),
              static_cast<long long>(g["edges_drawn"].get<int64_t>()));
  const Display before = app.graph.display();
  const int64_t box = app.graph.computations() + app.graph.chains() + 1;
  const int32_t at = static_cast<int32_t>(std::find(before.node_of.begin(), before.node_of.end(), -1 - box) - before.node_of.begin());
  ASSERT_LT(at, static_cast<int32_t>(before.node_of.size()));
  app.graph.open_box(box);
  const Display& after = app.graph.display();
  ASSERT_EQ(after.node_of.size(), before.node_of.size() - 1 + static_cast<size_t>(blocks.size[1]));
  EXPECT_EQ(app.graph.folded_blocks(), blocks.groups() - 1);
  std::map<int64_t, int32_t> now;
  for (size_t i = 0; i < after.node_of.size(); ++i) now[after.node_of[i]] = static_cast<int32_t>(i);
  const int32_t L = before.drawing.layer[at];
  const int32_t grow = after.drawing.num_layers() - before.drawing.num_layers();
  EXPECT_GT(grow, 0);
  int64_t above = 0, below = 0;
  for (size_t j = 0; j < before.node_of.size(); ++j) {
    if (static_cast<int32_t>(j) == at) continue;
    const int32_t i = now.at(before.node_of[j]);
    const int32_t l = before.drawing.layer[j];
    if (l < L) {
      ++above;
      EXPECT_EQ(after.drawing.x[i], before.drawing.x[j]);
      EXPECT_EQ(after.drawing.y[i], before.drawing.y[j]);
    } else if (l > L) {
      ++below;
      EXPECT_EQ(after.drawing.x[i], before.drawing.x[j]);
      EXPECT_EQ(after.drawing.layer[i], l + grow);
    } else {
      EXPECT_GE(std::abs(after.drawing.x[i] - before.drawing.x[at]), std::abs(before.drawing.x[j] - before.drawing.x[at]));
    }
  }
  EXPECT_GT(above, 0);
  EXPECT_GT(below, 0);
  app.graph.set_blocks_folded(false);
  EXPECT_EQ(app.graph.display().node_of.size(), 21918u);

  // Configs 0 and 1 side by side: the differing nodes are exactly those
  // whose rows differ, compared here value by value.
  const std::vector<float> r0 = doc.config_row(0), r1 = doc.config_row(1);
  const int64_t w = doc.config_width();
  std::vector<int64_t> differ;
  for (size_t slot = 0; slot < doc.config_nodes.size(); ++slot)
    for (int64_t k = 0; k < w; ++k)
      if (r0[slot * w + k] != r1[slot * w + k]) {
        differ.push_back(doc.config_nodes[slot]);
        break;
      }
  std::sort(differ.begin(), differ.end());
  app.compare_configs(0, 1);
  ASSERT_FALSE(differ.empty());
  EXPECT_EQ(app.compare.nodes, differ);
  EXPECT_EQ(nlohmann::json::parse(app.state_json())["compare"]["nodes"].size(), differ.size());
  EXPECT_EQ(app.graph.highlight(), differ);
  app.compare_configs(-1, -1);
  EXPECT_TRUE(app.graph.highlight().empty());
  EXPECT_NE(test::error_of([&] { app.compare_configs(0, 5000); }).find("config 5000 out of range"), std::string::npos);

  // The SVG of the view around a selected configurable node holds it.
  const int64_t conf = doc.config_nodes[10];
  app.graph.select(conf, 1);
  frames(app, 2);
  int64_t nodes = 0;
  const std::string svg = app.graph.svg(1, &nodes);
  EXPECT_GT(nodes, 0);
  EXPECT_NE(svg.find("data-node=\"" + std::to_string(conf) + "\""), std::string::npos);
  EXPECT_NE(svg.find("stroke=\"#ffe650\""), std::string::npos);  // configurable outline
}

// The open file against another: one graph under two config sets (the xla
// graph's default and random files), then another graph, whose nodes
// without a partner light up; a file that is not an npz is an error naming
// it, and the comparison before it stays.
TEST_F(ExplorerUi, ComparesTheOpenFileWithAnother) {
  TestHost host;
  App app(host);
  const std::string xla = "real/layout_xla_default_test_cd708819d3f5103afd6460b15e74eaf3.npz";
  open_file(app, test::data_file(xla), "xla_default.npz");
  auto compare_with = [&](const std::string& file, const std::string& name) {
    const std::string bytes = read_whole_file(test::data_file(file));
    auto* p = static_cast<uint8_t*>(std::malloc(std::max<size_t>(1, bytes.size())));
    std::memcpy(p, bytes.data(), bytes.size());
    app.compare_file(name, MallocBytes(p), bytes.size());
  };
  compare_with("real/layout_xla_random_test_cd708819d3f5103afd6460b15e74eaf3.npz", "xla_random.npz");
  frames(app, 2);  // the Summary tab shows it
  nlohmann::json c = nlohmann::json::parse(app.state_json())["file_compare"];
  EXPECT_EQ(c["other"], "xla_random.npz");
  EXPECT_TRUE(c["same_graph"].get<bool>());
  ASSERT_TRUE(c["configs"].is_object());
  EXPECT_EQ(c["configs"]["distinct"][0], app.doc->groups.num_groups());
  EXPECT_EQ(c["unmatched"], 0);

  compare_with("real/layout_nlp_random_test_23559853d9702baaaacbb0c83fd32266.npz", "nlp_random.npz");
  frames(app, 2);
  c = nlohmann::json::parse(app.state_json())["file_compare"];
  EXPECT_FALSE(c["same_graph"].get<bool>());
  EXPECT_TRUE(c["configs"].is_null());
  EXPECT_EQ(c["nodes"][0], app.doc->graph.num_nodes);
  EXPECT_EQ(c["matched"].get<int64_t>() + c["unmatched"].get<int64_t>(), app.doc->graph.num_nodes);
  app.show_unmatched();
  EXPECT_EQ(static_cast<int64_t>(app.graph.highlight().size()), c["unmatched"].get<int64_t>());

  auto* junk = static_cast<uint8_t*>(std::malloc(16));
  std::memset(junk, 7, 16);
  EXPECT_NE(test::error_of([&] { app.compare_file("junk.npz", MallocBytes(junk), 16); }).find("junk.npz"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(app.state_json())["file_compare"]["other"], "nlp_random.npz");
}

// What real unet3d's runtimes depend on, as the file opens (no model):
// the Summary's entries are `info --nodes`'s (node_effects on the archive),
// node 1022 first; the graph colours by share and the inspector of node
// 1022 draws; an explanation's colours replace them, and a test file has none.
TEST_F(ExplorerUi, ShowsWhatRealUnet3dsRuntimesDependOnAsItOpens) {
  TestHost host;
  App app(host);
  const std::string path = test::data_file("real/layout_xla_default_train_unet3d.npz");
  open_file(app, path, "unet3d.npz");
  frames(app, 2);
  nlohmann::json e = nlohmann::json::parse(app.state_json())["effects"];
  ASSERT_TRUE(e["found"].get<bool>());
  EXPECT_EQ(e["error"], "");
  const NodeEffects want = node_effects(NpzReader::open(path));
  ASSERT_EQ(e["entries"].size(), want.entries.size());
  for (size_t i = 0; i < want.entries.size(); ++i) {
    EXPECT_EQ(e["entries"][i]["nodes"].get<std::vector<int64_t>>(), want.entries[i].nodes);
    EXPECT_DOUBLE_EQ(e["entries"][i]["share"].get<double>(), want.entries[i].share);
  }
  EXPECT_EQ(e["entries"][0]["nodes"][0], 1022);
  EXPECT_EQ(e["configs"], 1159);
  EXPECT_FALSE(e["coloured"].get<bool>());
  app.show_effects(true);
  app.graph.select(1022, 1);
  frames(app, 2);  // the inspector's rows of node 1022
  e = nlohmann::json::parse(app.state_json())["effects"];
  EXPECT_TRUE(e["coloured"].get<bool>());
  EXPECT_FALSE(nlohmann::json::parse(app.state_json())["explain"]["coloured"].get<bool>());
  EXPECT_DOUBLE_EQ(app.graph.node_values().at(1022), want.entries[0].adds);
  // An entry the forward selection left out is coloured 0, however large its share alone.
  ASSERT_TRUE(std::isnan(want.entries.back().adds));
  EXPECT_EQ(app.graph.node_values().at(static_cast<size_t>(want.entries.back().nodes.front())), 0.0);
  EXPECT_TRUE(std::isnan(app.graph.node_values().at(0)));  // not configurable
  app.show_effects(false);
  EXPECT_TRUE(app.graph.node_values().empty());
  // The Configs tab's config read against them: the slowest (986) holds node 1022's 3x row.
  app.heatmap_config = 986;
  frames(app, 1);
  e = nlohmann::json::parse(app.state_json())["effects"];
  ASSERT_FALSE(e["config_rows"].empty());
  EXPECT_EQ(e["config_rows"][0]["nodes"][0], 1022);
  EXPECT_GT(e["config_rows"][0]["slower"].get<double>(), 3.0);

  // An explanation's colours replace them; colouring by effects again replaces those.
  app.show_effects(true);
  ASSERT_TRUE(app.effects_coloured());
  app.graph.set_node_values(std::vector<double>(static_cast<size_t>(app.doc->graph.num_nodes), 0.5), "share of config 3's score");
  EXPECT_FALSE(app.effects_coloured());
  EXPECT_TRUE(app.explanation_coloured());
  app.show_effects(true);
  EXPECT_TRUE(app.effects_coloured());
  EXPECT_FALSE(app.explanation_coloured());
  // Opened while coloured: the next file's graph is not (its checkbox unticked).
  open_file(app, test::data_file("real/layout_xla_default_test_cd708819d3f5103afd6460b15e74eaf3.npz"), "test.npz");
  frames(app, 1);
  e = nlohmann::json::parse(app.state_json())["effects"];
  EXPECT_FALSE(e["coloured"].get<bool>());
  EXPECT_FALSE(e["found"].get<bool>());
  EXPECT_TRUE(e["entries"].empty());
  app.show_effects(true);  // nothing to colour by: op families stay
  EXPECT_TRUE(app.graph.node_values().empty());
}

// Why is this config slow: the explanation runs as a ranking does (the
// host's job, the session's calls), scoring the occlusion rows; with an
// additive scorer (a sum of the row's values) each node's share is, by
// hand, its values' sum in the config minus in the file's most common
// layout of that node.
TEST_F(ExplorerUi, ExplainsAConfigThroughTheSameSessionCallsAndColoursTheGraph) {
  TestHost host;
  App app(host);
  const std::string card = open_alexnet_with_a_model(app);
  EXPECT_FALSE(app.start_explain(0, 7, 7));  // a config against itself
  EXPECT_FALSE(app.start_explain(0, app.doc->info.configs, -1));
  ASSERT_TRUE(app.start_explain(0, 7, -1));
  EXPECT_FALSE(app.start_rank(0));  // one job at a time
  ASSERT_EQ(host.requests.size(), 1u);
  std::unique_ptr<wasm::RankSession> s = app.open_rank_session(host.requests[0].ticket, card);
  const int64_t nc = static_cast<int64_t>(app.doc->config_nodes.size()), w = app.doc->config_width();
  EXPECT_EQ(s->count(), nc + 1);
  const std::vector<double> scores = score_session(*s);
  EXPECT_THROW(wasm::rank_session_finish(*s, std::vector<double>(3, 0.0), 0.1), Error);
  wasm::rank_session_finish(*s, scores, 0.25);
  const ExplainState& x = app.ranking.explain;
  ASSERT_EQ(x.status, RankStatus::Done) << x.message;
  ASSERT_EQ(static_cast<int64_t>(x.share.size()), nc);
  EXPECT_EQ(x.nodes, app.doc->config_nodes);
  // By hand: each node's most common row over every config of the file.
  const std::vector<float> row = app.doc->config_row(7);  // a copy: the row cache moves on
  std::vector<std::map<std::vector<float>, int64_t>> counts(static_cast<size_t>(nc));
  for (int64_t c = 0; c < app.doc->info.configs; ++c) {
    const std::vector<float>& r = app.doc->config_row(c);
    for (int64_t j = 0; j < nc; ++j) ++counts[static_cast<size_t>(j)][std::vector<float>(r.begin() + j * w, r.begin() + (j + 1) * w)];
  }
  for (int64_t j = 0; j < nc; ++j) {
    const auto& count = counts[static_cast<size_t>(j)];
    auto top = count.begin();
    for (auto it = count.begin(); it != count.end(); ++it)
      if (it->second > top->second) top = it;
    const double own = std::accumulate(row.begin() + j * w, row.begin() + (j + 1) * w, 0.0);
    const double common = std::accumulate(top->first.begin(), top->first.end(), 0.0);
    EXPECT_NEAR(x.share[static_cast<size_t>(j)], own - common, 1e-9) << "node " << x.nodes[static_cast<size_t>(j)];
  }
  EXPECT_DOUBLE_EQ(x.score, std::accumulate(row.begin(), row.end(), 0.0));
  // The next frame colours the graph: a value at each configurable node only.
  frames(app, 2);
  const std::vector<double>& v = app.graph.node_values();
  ASSERT_EQ(static_cast<int64_t>(v.size()), app.doc->graph.num_nodes);
  int64_t finite = 0;
  for (double d : v) finite += std::isfinite(d);
  EXPECT_EQ(finite, nc);
  const nlohmann::json st = nlohmann::json::parse(app.state_json())["explain"];
  EXPECT_EQ(st["status"], "done");
  EXPECT_EQ(st["config"], 7);
  EXPECT_TRUE(st["coloured"].get<bool>());
  // The rank job is free again; a new file clears the explanation.
  EXPECT_TRUE(app.start_rank(0));
}

// Tune: one host job per generation of the search, through the same
// session calls; with an additive scorer the proposals score better than
// every config of the file, are legal and new, and download as CSV; the
// file's runtimes replay what to measure next.
TEST_F(ExplorerUi, TunesThroughOneJobPerGenerationAndListsTheProposals) {
  TestHost host;
  App app(host);
  const std::string card = open_alexnet_with_a_model(app);
  EXPECT_FALSE(app.start_tune(0, 0, 100));
  ASSERT_TRUE(app.start_tune(0, 6, 1500));
  EXPECT_FALSE(app.start_explain(0, 1, -1));  // one job at a time
  size_t jobs = 0;
  while (app.ranking.tune.status == RankStatus::Running) {
    ASSERT_EQ(host.requests.size(), jobs + 1) << "one request per generation";
    std::unique_ptr<wasm::RankSession> s = app.open_rank_session(host.requests.back().ticket, card);
    wasm::rank_session_finish(*s, score_session(*s), 0.01);
    ++jobs;
  }
  const TuneState& t = app.ranking.tune;
  ASSERT_EQ(t.status, RankStatus::Done) << t.message;
  EXPECT_EQ(t.scored, 1500);
  EXPECT_EQ(static_cast<int64_t>(jobs), t.generations);
  ASSERT_EQ(t.proposals.size(), 6u);
  // The file's configs, their additive scores, and the space they span.
  const int64_t nc = static_cast<int64_t>(app.doc->config_nodes.size()), w = app.doc->config_width();
  std::set<std::vector<float>> file;
  double best_file = INFINITY;
  for (int64_t c = 0; c < app.doc->info.configs; ++c) {
    const std::vector<float>& r = app.doc->config_row(c);
    file.insert(r);
    best_file = std::min(best_file, std::accumulate(r.begin(), r.end(), 0.0));
  }
  EXPECT_DOUBLE_EQ(t.best_file_score, best_file);
  for (const ProposedConfig& p : t.proposals) {
    ASSERT_EQ(static_cast<int64_t>(p.config.size()), nc * w);
    EXPECT_EQ(file.count(p.config), 0u) << "a proposal the file measured";
    EXPECT_DOUBLE_EQ(p.score, std::accumulate(p.config.begin(), p.config.end(), 0.0));
    // Menu space: each node's row is one the file holds for that node.
    for (int64_t j = 0; j < nc; ++j) {
      bool seen = false;
      for (const std::vector<float>& r : file)
        if (std::equal(r.begin() + j * w, r.begin() + (j + 1) * w, p.config.begin() + j * w)) { seen = true; break; }
      ASSERT_TRUE(seen) << "node " << j;
    }
    EXPECT_GT(p.speedup, 0);
  }
  // New configs at least as good as the file's best, by the score: the
  // file holds the additive optimum already, so the search ties it.
  EXPECT_LE(t.proposals.front().score, best_file);
  EXPECT_GT(t.to_target_model, 0);
  EXPECT_GT(t.to_target_random, 0);
  const std::string csv = app.ranking.proposals_csv(*app.doc);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 6 * nc + 1);
  EXPECT_EQ(csv.rfind("proposal,score,predicted_speedup_over_best_measured,changed_from_measured,node,", 0), 0u);
  // Nodes off the nearest measured config, counted here.
  for (size_t k = 0; k < t.proposals.size(); ++k) {
    int64_t fewest = -1;
    for (int64_t c = 0; c < app.doc->info.configs; ++c) {
      if (!(app.doc->groups.best_runtime[static_cast<size_t>(app.doc->groups.group_of[static_cast<size_t>(c)])] > 0)) continue;
      const std::vector<float>& r = app.doc->config_row(c);
      int64_t d = 0;
      for (int64_t j = 0; j < nc; ++j)
        d += !std::equal(r.begin() + j * w, r.begin() + (j + 1) * w, t.proposals[k].config.begin() + j * w);
      fewest = fewest < 0 ? d : std::min(fewest, d);
    }
    EXPECT_EQ(t.proposals[k].changed, fewest) << "proposal " << k;
    EXPECT_GE(fewest, 1);
  }
  frames(app, 2);  // the Configs table with the proposals
  EXPECT_EQ(nlohmann::json::parse(app.state_json())["tune"]["proposals"].size(), 6u);
}

TEST_F(ExplorerUi, RanksThroughTheSessionCallsTheAppWatches) {
  TestHost host;
  App app(host);
  open_file(app, test::data_file("cleaned_alexnet.npz"), "cleaned_alexnet.npz");
  const std::string card = card_for(*app.doc);
  app.ranking.add_model("made-up", card);
  EXPECT_EQ(app.ranking.models[0].precision, "fp32");  // a card without precision
  // The model picker's line: the weights' precision and the file's size, from the card.
  nlohmann::json small = nlohmann::json::parse(card);
  small["precision"] = {{"weights", "int8"}};
  small["onnx"] = {{"bytes", 97707}};
  app.ranking.add_model("made-up-int8", small.dump());
  EXPECT_EQ(app.ranking.models[1].precision, "int8");
  EXPECT_EQ(app.ranking.models[1].onnx_bytes, 97707);
  ASSERT_TRUE(app.start_rank(0));
  EXPECT_FALSE(app.start_rank(0));  // one at a time
  ASSERT_EQ(host.requests.size(), 1u);
  std::unique_ptr<wasm::RankSession> s = app.open_rank_session(host.requests[0].ticket, card);
  ASSERT_GE(s->chunks, 2);  // 29,905 unique configs in batches of 4,096
  std::vector<double> scores;
  for (int64_t k = 0; k < s->chunks; ++k) {
    const std::optional<int64_t> count = wasm::rank_session_batch(*s, k);
    ASSERT_TRUE(count.has_value());
    EXPECT_EQ(app.ranking.rank.done, k);  // the app heard of the progress from the session itself
    const std::vector<double> part = score_batch(*s, *count);
    scores.insert(scores.end(), part.begin(), part.end());
  }
  frames(app, 1);  // the Rank tab's progress bar
  const wasm::RankResult r = wasm::rank_session_finish(*s, scores, 1.5);
  const RankState& rank = app.ranking.rank;
  ASSERT_EQ(rank.status, RankStatus::Done);
  EXPECT_EQ(rank.ranking.size(), 47712u);
  EXPECT_EQ(rank.group_scores.size(), 29905u);
  // The reference: the same scores ranked and scored by the core directly.
  const std::vector<int64_t> reference = rank_configs(app.doc->groups, s->groups, scores);
  EXPECT_EQ(rank.ranking, reference);
  const GraphMetrics m = evaluate_ranking(reference, app.doc->runtime, app.doc->groups);
  EXPECT_DOUBLE_EQ(rank.metrics.kendall, m.kendall);
  EXPECT_DOUBLE_EQ(rank.seconds, 1.5);
  EXPECT_EQ(r.ranking, reference);
  // The Rank tab with a result, and its downloads through the host.
  app.ranking.show_tab = true;
  frames(app, 2);
  EXPECT_EQ(app.config_scores().size(), 47712u);
  // The scatter as a figure: a circle per config, on the tab's axes.
  int64_t points = 0;
  const std::string scatter = app.rank_scatter(&points);
  EXPECT_EQ(points, 47712);
  size_t circles = 0;
  for (size_t at = scatter.find("<circle"); at != std::string::npos; at = scatter.find("<circle", at + 1)) ++circles;
  EXPECT_EQ(circles, 47712u);
  EXPECT_NE(scatter.find("measured runtime (log scale)"), std::string::npos);
  // The made-up card names no collection, and layout files have four: the user picks.
  EXPECT_EQ(nlohmann::json::parse(app.state_json())["rank"]["collection"], "");
  EXPECT_THROW(app.ranking.submission_csv(app.doc.get()), Error);
  app.ranking.pick_collection(app.doc.get(), "layout:xla:random");
  const std::string csv = app.ranking.submission_csv(app.doc.get());
  EXPECT_NE(csv.find("layout:xla:random:cleaned_alexnet,"), std::string::npos) << csv.substr(0, 200);

  // Cancelled mid-way: the next batch says so, and closing shows it.
  ASSERT_TRUE(app.start_rank(0));
  s = app.open_rank_session(host.requests.back().ticket, card);
  ASSERT_TRUE(wasm::rank_session_batch(*s, 0));
  app.ranking.cancel();
  EXPECT_FALSE(wasm::rank_session_batch(*s, 1));
  EXPECT_EQ(s->stopped, "cancelled");
  wasm::rank_session_abandon(*s, "");
  EXPECT_EQ(app.ranking.rank.status, RankStatus::Cancelled);

  // Superseded: another file opens while a ranking runs; the old session
  // stops and its reports change nothing.
  ASSERT_TRUE(app.start_rank(0));
  s = app.open_rank_session(host.requests.back().ticket, card);
  ASSERT_TRUE(wasm::rank_session_batch(*s, 0));
  open_file(app, test::data_file("cleaned_alexnet.npz"), "again.npz");
  EXPECT_FALSE(wasm::rank_session_batch(*s, 1));
  EXPECT_EQ(s->stopped, "superseded");
  wasm::rank_session_abandon(*s, "");
  EXPECT_EQ(app.ranking.rank.status, RankStatus::Idle);
  EXPECT_THROW(app.open_rank_session(host.requests.back().ticket, card), Error);  // a stale ticket

  // A card that does not fit: refused, and the app shows why.
  nlohmann::json wrong = nlohmann::json::parse(card);
  wrong["node_feat_width"] = 140;
  ASSERT_TRUE(app.start_rank(0));
  EXPECT_THROW(app.open_rank_session(host.requests.back().ticket, wrong.dump()), Error);
  EXPECT_EQ(app.ranking.rank.status, RankStatus::Failed);
  EXPECT_NE(app.ranking.rank.message.find("140"), std::string::npos) << app.ranking.rank.message;
  frames(app, 1);
}

}  // namespace
}  // namespace fastslow::explorer
