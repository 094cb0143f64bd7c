// The explorer built natively, driven without a browser: a hidden GLFW
// window (Xvfb in CI: tests/CMakeLists.txt runs this suite under xvfb-run),
// the real AlexNet file, frames drawn and read back, and a ranking run
// through the same rank session calls the page makes, with a test host in
// place of ONNX Runtime Web.
#include <GLES3/gl3.h>
#include <GLFW/glfw3.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "app.h"
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

TEST_F(ExplorerUi, RanksThroughTheSessionCallsTheAppWatches) {
  TestHost host;
  App app(host);
  open_file(app, test::data_file("cleaned_alexnet.npz"), "cleaned_alexnet.npz");
  const std::string card = card_for(*app.doc);
  app.ranking.add_model("made-up", card);
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
