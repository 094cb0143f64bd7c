// The autotuning core: which configs a round measures next, the session's
// record and what a TPU owner counts of it, and the graph written back
// with the measured (or proposed) configs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/graph/graph.h"
#include "fastslow/graph/graph_write.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/tune/pick.h"
#include "fastslow/tune/trace.h"
#include "test_support.h"

namespace fastslow {
namespace {

TEST(PickBatch, GreedyTakesThePredictedBestNotYetMeasured) {
  const std::vector<double> score = {5, 1, 3, 0, 2, 4};
  std::vector<char> measured = {0, 0, 0, 1, 0, 0};  // 3 is the best, but measured
  Rng rng(1);
  PickSettings greedy{PickStrategy::Greedy};
  EXPECT_EQ(pick_batch(score, {}, measured, 3, greedy, rng), (std::vector<int64_t>{1, 4, 2}));
  // Fewer left than the batch: what is left.
  measured = {1, 1, 0, 1, 1, 1};
  EXPECT_EQ(pick_batch(score, {}, measured, 3, greedy, rng), (std::vector<int64_t>{2}));
  measured.assign(6, 1);
  EXPECT_TRUE(pick_batch(score, {}, measured, 3, greedy, rng).empty());
}

TEST(PickBatch, DisagreeIsALowerConfidenceBound) {
  const std::vector<double> score = {1.0, 1.5, 3.0};
  const std::vector<double> spread = {0.0, 1.0, 0.1};
  const std::vector<char> measured(3, 0);
  Rng rng(1);
  PickSettings lcb{PickStrategy::Disagree, 0.05, 1.0};
  // 1.5 - 1.0 = 0.5 comes before 1.0 - 0.
  EXPECT_EQ(pick_batch(score, spread, measured, 2, lcb, rng), (std::vector<int64_t>{1, 0}));
  lcb.kappa = 0;
  EXPECT_EQ(pick_batch(score, spread, measured, 2, lcb, rng), (std::vector<int64_t>{0, 1}));
}

TEST(PickBatch, EpsilonExploresAtItsRateAndNeverRepeats) {
  const int64_t n = 1000;
  std::vector<double> score(n);
  for (int64_t i = 0; i < n; ++i) score[static_cast<size_t>(i)] = static_cast<double>(i);
  const std::vector<char> measured(n, 0);
  Rng rng(3);
  PickSettings eps{PickStrategy::Epsilon, 0.2};
  int64_t explored = 0, total = 0;
  for (int rep = 0; rep < 200; ++rep) {
    const std::vector<int64_t> b = pick_batch(score, {}, measured, 10, eps, rng);
    EXPECT_EQ(std::set<int64_t>(b.begin(), b.end()).size(), b.size());
    // Greedy picks come in order 0, 1, 2, ...; anything else is a random pick.
    int64_t next = 0;
    for (int64_t c : b) {
      if (c == next) ++next;
      else ++explored;
      ++total;
    }
  }
  const double rate = static_cast<double>(explored) / static_cast<double>(total);
  EXPECT_NEAR(rate, 0.2, 0.04);
  // Same seed, same picks.
  Rng a(9), b(9);
  EXPECT_EQ(pick_batch(score, {}, measured, 10, eps, a), pick_batch(score, {}, measured, 10, eps, b));
}

TEST(PickBatch, RandomIsUniformAndBadInputsAreErrors) {
  const std::vector<char> measured(4, 0);
  Rng rng(5);
  std::vector<int> count(4, 0);
  for (int rep = 0; rep < 4000; ++rep) ++count[static_cast<size_t>(pick_batch({}, {}, measured, 1, {PickStrategy::Random}, rng)[0])];
  for (int c : count) EXPECT_NEAR(c, 1000, 120);
  EXPECT_NE(test::error_of([&] { pick_batch({1, 2}, {}, measured, 1, {}, rng); }).find("2 scores for 4"), std::string::npos);
  EXPECT_NE(test::error_of([&] { pick_batch({1, 2, 3, 4}, {}, measured, 0, {}, rng); }).find("at least 1"), std::string::npos);
  EXPECT_NE(test::error_of([] { parse_pick_strategy("best"); }).find("greedy, epsilon, disagree, random"), std::string::npos);
  for (const char* s : {"greedy", "epsilon", "disagree", "random"}) EXPECT_STREQ(pick_strategy_name(parse_pick_strategy(s)), s);
}

// A hand-counted session: best 100; target within 0.1 %; tail over 105.
TEST(TuneTrace, CountsTimeToTargetBestPerRoundAndTail) {
  TuneTrace t;
  t.steps = {{0, 200, 0}, {1, 104, 0}, {2, 130, 1}, {3, 100.05, 1}, {4, 100, 2}};
  const TraceSummary s = summarize_trace(t, 100.0);
  EXPECT_EQ(s.to_target, 4);
  EXPECT_DOUBLE_EQ(s.time_to_target, 200 + 104 + 130 + 100.05);
  EXPECT_DOUBLE_EQ(s.time_total, 200 + 104 + 130 + 100.05 + 100);
  EXPECT_EQ(s.best_after_round, (std::vector<double>{104, 100.05, 100}));
  EXPECT_EQ(s.tail_per_round, (std::vector<int64_t>{1, 1, 0}));
  EXPECT_EQ(t.measured_mask(6), (std::vector<char>{1, 1, 1, 1, 1, 0}));
  TuneTrace never;
  never.steps = {{0, 150, 0}};
  EXPECT_EQ(summarize_trace(never, 100.0).to_target, -1);
  EXPECT_EQ(summarize_trace(never, 100.0).time_to_target, -1);
  // Written and read back whole; broken lists are errors naming the file.
  const TuneTrace back = trace_from_json(trace_json(t), "tune.json");
  ASSERT_EQ(back.steps.size(), t.steps.size());
  EXPECT_EQ(back.steps[3].candidate, 3);
  EXPECT_DOUBLE_EQ(back.steps[3].runtime, 100.05);
  EXPECT_NE(test::error_of([] { trace_from_json(nlohmann::json::parse(R"([{"candidate":1,"runtime":-5,"round":0}])"), "tune.json"); })
                .find("tune.json"),
            std::string::npos);
  EXPECT_NE(test::error_of([] { trace_from_json(nlohmann::json::parse(R"({"a":1})"), "tune.json"); }).find("not a list"),
            std::string::npos);
}

// The real AlexNet written back with 3 of its configs: everything but the
// configs is the file's, and it loads as a layout graph again.
TEST(GraphWrite, LayoutGraphWithChosenConfigsReadsBack) {
  const std::string src = test::data_file("cleaned_alexnet.npz");
  const LayoutGraph g = load_layout_graph(NpzReader::open(src));
  const int64_t row = g.num_configurable() * g.config_feat_width;
  std::vector<float> feat;
  std::vector<int64_t> rt;
  for (int64_t c : {7, 0, 123}) {
    feat.insert(feat.end(), g.node_config_feat.begin() + c * row, g.node_config_feat.begin() + (c + 1) * row);
    rt.push_back(g.config_runtime[static_cast<size_t>(c)]);
  }
  test::TempDir dir;
  write_layout_graph(dir.file("m.npz"), g, feat, rt);
  const LayoutGraph back = load_layout_graph(NpzReader::open(dir.file("m.npz")));
  EXPECT_EQ(back.num_configs, 3);
  EXPECT_EQ(back.node_feat, g.node_feat);
  EXPECT_EQ(back.node_opcode, g.node_opcode);
  EXPECT_EQ(back.edge_index, g.edge_index);
  EXPECT_EQ(back.node_config_ids, g.node_config_ids);
  EXPECT_EQ(back.node_splits, g.node_splits);
  EXPECT_EQ(back.node_config_feat, feat);
  EXPECT_EQ(back.config_runtime, rt);
  EXPECT_NE(test::error_of([&] { write_layout_graph(dir.file("bad.npz"), g, feat, {1, 2}); }).find("bad.npz"),
            std::string::npos);
}

}  // namespace
}  // namespace fastslow
