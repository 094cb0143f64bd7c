// Autotuning one program (tune/): sessions replayed on the real AlexNet's
// measurements, measuring commands that fail or lie, few-measurement runs
// (--measured) and runs started from a prior (--init).
#include <gtest/gtest.h>

#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "fastslow/data/graph_cache.h"
#include "fastslow/data/holdout.h"
#include "fastslow/io/json_text.h"
#include "fastslow/io/read_file.h"
#include "models/registry.h"
#include "test_support.h"
#include "train/init_run.h"
#include "train/loaded_run.h"
#include "train/run_files.h"
#include "train/trainer.h"
#include "tune/session.h"

namespace fastslow::tune {
namespace {

namespace fs = std::filesystem;

TuneSettings ridge_session(const std::string& out, int64_t rounds) {
  TuneSettings s;
  s.graph = test::data_file("cleaned_alexnet.npz");
  s.out = out;
  s.predictor = "ridge";
  s.rounds = rounds;
  s.batch = 8;
  s.start = 16;
  s.seed = 5;
  return s;
}

TEST(TuneSession, ReplaysTheFileNeverMeasuresTwiceAndIsReproducible) {
  test::TempDir dir;
  const TuneOutcome a = run_session(ridge_session(dir.file("a"), 4));
  const TuneOutcome b = run_session(ridge_session(dir.file("b"), 4));
  ASSERT_EQ(a.trace.steps.size(), 16u + 4 * 8);
  std::set<int64_t> seen;
  const CachedGraph g = CachedGraph::open(test::data_file("cleaned_alexnet.npz"), {dir.file("a/.cache"), 1});
  for (size_t i = 0; i < a.trace.steps.size(); ++i) {
    const TuneStep& s = a.trace.steps[i];
    EXPECT_TRUE(seen.insert(s.candidate).second) << "config group " << s.candidate << " measured twice";
    EXPECT_EQ(s.runtime, g.groups.best_runtime[static_cast<size_t>(s.candidate)]);  // the file's measurement
    EXPECT_EQ(s.candidate, b.trace.steps[i].candidate);
  }
  EXPECT_DOUBLE_EQ(a.best_known, *std::min_element(g.groups.best_runtime.begin(), g.groups.best_runtime.end()));
  // The model-guided rounds find a better config than the random start.
  const TraceSummary sum = summarize_trace(a.trace, a.best_known);
  EXPECT_LT(sum.best_after_round.back(), sum.best_after_round.front());
  // Another seed, another session.
  TuneSettings other = ridge_session(dir.file("c"), 0);
  other.seed = 6;
  EXPECT_NE(run_session(other).trace.steps.front().candidate, a.trace.steps.front().candidate);
}

TEST(TuneSession, ACutSessionGoesOnAsTheUncutOneAndRefusesOtherSettings) {
  test::TempDir dir;
  const TuneOutcome whole = run_session(ridge_session(dir.file("whole"), 3));
  int rounds_seen = 0;
  const TuneOutcome cut =
      run_session(ridge_session(dir.file("cut"), 3), {}, [&] { return ++rounds_seen > 2; });  // stops before round 2
  EXPECT_TRUE(cut.interrupted);
  EXPECT_EQ(cut.trace.rounds(), 2);
  const TuneOutcome rest = run_session(ridge_session(dir.file("cut"), 3));
  ASSERT_EQ(rest.trace.steps.size(), whole.trace.steps.size());
  for (size_t i = 0; i < whole.trace.steps.size(); ++i)
    EXPECT_EQ(rest.trace.steps[i].candidate, whole.trace.steps[i].candidate) << i;
  // measured.csv lists each measurement with the file's config index.
  std::istringstream csv(read_whole_file(dir.file("whole/measured.csv")));
  std::string line;
  int64_t lines = 0;
  while (std::getline(csv, line)) ++lines;
  EXPECT_EQ(lines, 1 + static_cast<int64_t>(whole.trace.steps.size()));
  TuneSettings changed = ridge_session(dir.file("whole"), 3);
  changed.batch = 4;
  const std::string e = test::error_of([&] { run_session(changed); });
  EXPECT_NE(e.find("tune.json"), std::string::npos) << e;
  EXPECT_NE(e.find("batch"), std::string::npos) << e;
}

// A measuring script: runtime = 1000 + 7 x config (fake, exact), as the
// user's script would write it; and scripts that fail or lie.
std::string script(const test::TempDir& dir, const std::string& name, const std::string& body) {
  const std::string path = dir.file(name);
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  fs::permissions(path, fs::perms::owner_all);
  return path;
}

TEST(TuneMeasure, ACommandMeasuresWhatItIsAskedFor) {
  test::TempDir dir;
  const std::string honest = script(dir, "honest.sh",
                                    "awk -F, 'NR > 1 && !seen[$1]++ { print $1 \",\" 1000 + 7 * $1 } "
                                    "BEGIN { print \"config,runtime_ns\" }' \"$1\" > \"$2\"");
  TuneSettings s = ridge_session(dir.file("s"), 1);
  s.measure = honest;
  const TuneOutcome o = run_session(s);
  ASSERT_EQ(o.trace.steps.size(), 24u);
  const CachedGraph g = CachedGraph::open(s.graph, {dir.file("s/.cache"), 1});
  for (const TuneStep& t : o.trace.steps)
    EXPECT_DOUBLE_EQ(t.runtime, 1000.0 + 7.0 * static_cast<double>(g.groups.representative[static_cast<size_t>(t.candidate)]));
  EXPECT_EQ(o.best_known, 0);  // a command's runtimes are not the file's
  // The request: 26 configurable nodes per config, 10 features each.
  std::istringstream in(read_whole_file(dir.file("s/round-001/measure-in.csv")));
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(std::count(header.begin(), header.end(), ','), 1 + 10);
  int64_t rows = 0;
  for (std::string line; std::getline(in, line);) ++rows;
  EXPECT_EQ(rows, 8 * 26);
}

TEST(TuneMeasure, FailingOrLyingCommandsAreErrorsNamingTheConfig) {
  test::TempDir dir;
  auto error_with = [&](const std::string& name, const std::string& body, double timeout = 0) {
    TuneSettings s = ridge_session(dir.file("s-" + name), 0);
    s.measure = script(dir, name + ".sh", body);
    s.measure_timeout = timeout;
    return test::error_of([&] { run_session(s); });
  };
  EXPECT_NE(error_with("fails", "exit 3").find("exit code 3"), std::string::npos);
  const std::string first = "awk -F, 'NR == 2 { print \"config,runtime_ns\"; print $1 \",\" X }' \"$1\" > \"$2\"";
  auto lying = [&](const std::string& name, const std::string& x) {
    std::string b = first;
    b.replace(b.find('X'), 1, x);
    return error_with(name, b);
  };
  // Only the first config answered: the second one asked for is named.
  const std::string missing = lying("missing", "100");
  EXPECT_NE(missing.find("was asked for and has no runtime"), std::string::npos) << missing;
  const std::string negative = lying("negative", "\"-5\"");
  EXPECT_NE(negative.find("not a positive number"), std::string::npos) << negative;
  EXPECT_NE(negative.find("measure-out.csv"), std::string::npos) << negative;
  const std::string text = lying("text", "\"fast\"");
  EXPECT_NE(text.find("'fast' is not a number"), std::string::npos) << text;
  const std::string stranger = error_with("stranger", "printf 'config,runtime_ns\\n99999999,5\\n' > \"$2\"");
  EXPECT_NE(stranger.find("config 99999999 was not asked for"), std::string::npos) << stranger;
  const std::string hangs = error_with("hangs", "sleep 30", 0.5);
  EXPECT_NE(hangs.find("--measure-timeout"), std::string::npos) << hangs;
  const std::string nothing = error_with("nothing", "true");
  EXPECT_NE(nothing.find("wrote no runtimes"), std::string::npos) << nothing;
}

// One round with the fastslow predictor: the round's measured configs as a
// graph file, a run trained on it, and picks among the others.
TEST(TuneSession, TheFastslowPredictorTrainsARunOnTheRoundsMeasurements) {
  test::TempDir dir;
  TuneSettings s = ridge_session(dir.file("f"), 1);
  s.predictor = "fastslow";
  s.run.epochs = 2;
  s.run.seed = 5;
  const TuneOutcome o = run_session(s);
  ASSERT_EQ(o.trace.steps.size(), 24u);
  const CachedGraph m = CachedGraph::open(dir.file("f/round-001/measured.npz"), {dir.file("c"), 1});
  EXPECT_EQ(m.groups.num_groups(), 16);
  EXPECT_TRUE(fs::exists(dir.file("f/round-001/run/best.pt")));
  std::set<int64_t> seen;
  for (const TuneStep& t : o.trace.steps) EXPECT_TRUE(seen.insert(t.candidate).second);
}

// --measured N: N unique configs learn (and validate), all others are held out.
TEST(FewMeasurements, MeasuredRunsHoldOutEverythingElse) {
  test::TempDir dir;
  train::TrainOptions o;
  o.graph = test::data_file("real/layout_xla_default_train_unet3d.npz");
  o.measured = 32;
  o.epochs = 1;
  o.out = dir.file("m32");
  train::train(o);
  const train::LoadedRun run = train::load_run(dir.file("m32"), "cpu");
  const std::vector<train::GraphEntry> held = train::load_split(run, "holdout");
  const std::vector<train::GraphEntry> trained = train::load_split(run, "train");
  const std::vector<train::GraphEntry> valid = train::load_split(run, "valid");
  EXPECT_EQ(held.front().eval_groups.size(), 681u - 32u);
  EXPECT_EQ(trained.front().eval_groups.size() + valid.front().eval_groups.size(), 32u);
  EXPECT_EQ(valid.front().eval_groups.size(), 3u);  // round(0.1 x 32)
  const std::string e = test::error_of([&] {
    train::TrainOptions bad = o;
    bad.out = dir.file("m9999");
    bad.measured = 9999;
    train::train(bad);
  });
  EXPECT_NE(e.find("681 unique configs"), std::string::npos) << e;
}

// --init RUN: the new run's graph model starts as the prior's, under its own table.
TEST(FewMeasurements, InitCopiesThePriorsGraphModelAndRefusesAnotherShape) {
  test::TempDir dir;
  train::TrainOptions prior;
  prior.graph = test::data_file("real/layout_xla_default_train_unet3d.npz");
  prior.measured = 64;
  prior.epochs = 1;
  prior.out = dir.file("prior");
  train::train(prior);
  train::TrainOptions o = prior;
  o.out = dir.file("next");
  o.measured = 32;
  o.init = dir.file("prior");
  o.split_seed = 3;
  o = train::resolve_options(o);
  const train::LoadedRun p = train::load_run(dir.file("prior"), "cpu");
  o.config_feat_width = p.options.config_feat_width;
  o.wide_nodes = p.options.wide_nodes;
  models::RankModel fresh = models::make_model(train::model_options(o, train::init_normaliser(o)));
  const train::InitCopy c = train::copy_init_weights(*fresh, o);
  EXPECT_GT(c.tensors, 4);
  EXPECT_GE(c.skipped, 2);  // the prior's wide table and gate
  auto ours = fresh->named_parameters(true);
  int64_t compared = 0;
  for (const auto& item : p.model->named_parameters(true)) {
    if (item.key().rfind("deep.", 0) != 0) continue;
    EXPECT_TRUE(torch::equal(item.value(), ours[item.key()])) << item.key();
    ++compared;
  }
  EXPECT_GT(compared, 4);
  // Another width: refused, naming the prior.
  train::TrainOptions wider = prior;
  wider.out = dir.file("wider");
  wider.init = dir.file("prior");
  wider.hidden = 32;
  const std::string e = test::error_of([&] { train::train(wider); });
  EXPECT_NE(e.find("--hidden"), std::string::npos) << e;
  EXPECT_NE(e.find("prior"), std::string::npos) << e;
}

}  // namespace
}  // namespace fastslow::tune
