// Studies whose trials train on the tiny generated dataset.
#include "search/train_trials.h"

#include "export/export_onnx.h"
#include "search/precision_trials.h"
#include "train/evaluate.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "search/model_costs.h"
#include "tiny_data.h"
#include "train/loaded_run.h"

namespace fs = std::filesystem;

namespace fastslow::search {
namespace {

using test::TempDir;

SearchConfig tiny_study(const std::string& objectives = "score = \"maximize\"\nparams = \"minimize\"\n") {
  return parse_search_config("[data]\ndata = \"" + train::tiny_data() +
                                 "\"\ncollection = \"layout:xla:random\"\n"
                                 "[train]\nconfigs_per_graph = 16\nlayers = 1\n"
                                 "[space]\nhidden = [8, 24]\nlr = { low = 1e-3, high = 1e-2, log = true }\n"
                                 "[objectives]\n" + objectives +
                                 "[search]\nsampler = \"random\"\ntrials = 3\n"
                                 "[budget]\nsteps = 4\ncheckpoints = 2\n[latency]\nconfigs = 64\nrepeats = 2\n",
                             "tiny.toml");
}

TEST(TrainTrials, OptionsCarryTheParametersAndTheBudget) {
  TempDir dir;
  TrainTrialRunner runner(tiny_study(), 1, true);
  const auto o = runner.trial_options({{"hidden", 24}, {"lr", 0.004}}, dir.file("trials/0"));
  EXPECT_EQ(*o.hidden, 24);
  EXPECT_DOUBLE_EQ(*o.lr, 0.004);
  EXPECT_EQ(*o.layers, 1);
  EXPECT_EQ(*o.configs_per_graph, 16);
  EXPECT_EQ(*o.epochs, 2);
  EXPECT_EQ(*o.steps_per_epoch, 2);
  EXPECT_EQ(o.cache, dir.file(".cache"));
  // Options the study leaves out take train's defaults. Per-program: a valid
  // share of its own (trials never validate on the held-out configs) and the
  // wide table.
  SearchConfig program = tiny_study();
  program.train = {{"graph", find_collection(train::tiny_data(), "layout:xla:random").split("train").front()}};
  const auto p = TrainTrialRunner(program, 1, true).trial_options({{"hidden", 8}, {"lr", 0.004}}, dir.file("trials/1"));
  EXPECT_DOUBLE_EQ(*p.valid_share, 0.1);
  EXPECT_EQ(*p.wide, 1);
  runner.check_space();
  // A value the trainer refuses fails before any trial, naming it.
  SearchConfig bad = tiny_study();
  bad.space.params[0].choices.push_back(0);
  EXPECT_NE(test::error_of([&] { TrainTrialRunner(bad, 1, true).check_space(); }).find("\"hidden\":0"),
            std::string::npos);
}

TEST(TrainTrials, AStudyTrainsMeasuresAndKeepsTheFrontsRuns) {
  TempDir dir;
  const SearchConfig c = tiny_study("score = \"maximize\"\nparams = \"minimize\"\nonnx_bytes = \"minimize\"\nlatency = \"minimize\"\n");
  TrainTrialRunner runner(c, 1, true);
  auto sampler = make_sampler(c.sampler, c.space, c.objectives);
  StudySettings st;
  st.out = dir.path();
  st.objectives = c.objectives;
  st.trials = 3;
  const StudyResult r = run_study(st, *sampler, nullptr, runner);
  ASSERT_EQ(r.study.trials.size(), 3u);
  for (const Trial& t : r.study.trials) {
    ASSERT_EQ(t.state, TrialState::Complete) << t.message;
    EXPECT_EQ(t.intermediate.size(), 2u);  // one validation per checkpoint
    EXPECT_DOUBLE_EQ(t.objectives.at("score"), std::max(t.intermediate[0].second, t.intermediate[1].second));
    EXPECT_GT(t.objectives.at("latency"), 0);
    EXPECT_GT(t.objectives.at("onnx_bytes"), t.objectives.at("params") * 4 * 0.9);  // float32 weights, and the graph
  }
  // The parameter count against the model rebuilt from a kept run.
  ASSERT_FALSE(r.front.empty());
  const Trial& best = r.study.trials[r.front[0]];
  ASSERT_TRUE(fs::exists(dir.file(best.run + "/best.pt")));
  train::LoadedRun run = train::load_run(dir.file(best.run));
  EXPECT_EQ(static_cast<double>(parameter_count(*run.model)), best.objectives.at("params"));
  EXPECT_EQ(*run.options.hidden, best.params["hidden"].get<int64_t>());
  // Runs of trials off the front are gone.
  for (const Trial& t : r.study.trials) {
    bool on_front = false;
    for (size_t i : r.front) on_front |= r.study.trials[i].number == t.number;
    EXPECT_EQ(fs::exists(dir.file(t.run)), on_front) << t.run;
  }
}

TEST(TrainTrials, AnInterruptedTrialResumesItsRun) {
  TempDir dir;
  const SearchConfig c = tiny_study("score = \"maximize\"\n");
  TrainTrialRunner runner(c, 1, true);
  TrialContext t;
  t.number = 0;
  t.params = {{"hidden", 8}, {"lr", 0.003}};
  t.dir = dir.file("trials/0");
  int reported = 0;
  t.report = [&](int64_t, double) { return false; };
  t.stop = [&] { return reported++ >= 2; };  // after two steps
  TrialOutcome first = runner.run(t);
  EXPECT_TRUE(first.interrupted);
  ASSERT_TRUE(fs::exists(dir.file("trials/0/state.json")));
  t.resumed = true;
  t.stop = [] { return false; };
  std::vector<int64_t> checkpoints;
  t.report = [&](int64_t k, double) {
    checkpoints.push_back(k);
    return false;
  };
  const TrialOutcome second = runner.run(t);
  EXPECT_FALSE(second.interrupted);
  EXPECT_EQ(second.state, TrialState::Complete);
  EXPECT_EQ(checkpoints, (std::vector<int64_t>{1, 2}));
}

TEST(TrainTrials, PruningStopsTheRunAtACheckpoint) {
  TempDir dir;
  TrainTrialRunner runner(tiny_study("score = \"maximize\"\n"), 1, true);
  TrialContext t;
  t.params = {{"hidden", 8}, {"lr", 0.003}};
  t.dir = dir.file("trials/0");
  std::vector<int64_t> seen;
  t.report = [&](int64_t k, double) {
    seen.push_back(k);
    return true;
  };
  const TrialOutcome o = runner.run(t);
  EXPECT_EQ(o.state, TrialState::Pruned);
  EXPECT_EQ(seen, (std::vector<int64_t>{1}));
}

// A precision study on a trained run. Its space is the run's lowerable
// weight tensors. Every tensor fp32 scores what the run's own model scores
// on its validation graphs and weighs its fp32 export; every one int8 weighs
// what the uniform int8 export does, scores what the run's model lowered by
// the trial's plan.json scores, and that plan.json is what export
// --per-layer reads.
// A study of such trials writes each front trial's plan.
TEST(PrecisionTrials, ATrialLowersTheRunsWeightsAndScoresThem) {
  TempDir dir;
  TrainTrialRunner trainer(tiny_study("score = \"maximize\"\n"), 1, true);
  TrialContext t;
  t.params = {{"hidden", 24}, {"lr", 0.004}};
  t.dir = dir.file("run");
  t.report = [](int64_t, double) { return false; };
  ASSERT_EQ(trainer.run(t).state, TrialState::Complete);

  SearchConfig c = parse_search_config("[precision]\nrun = \"" + dir.file("run") +
                                           "\"\n[objectives]\nscore = \"maximize\"\nonnx_bytes = \"minimize\"\n"
                                           "[search]\nsampler = \"nsga2\"\ntrials = 6\n",
                                       "p.toml");
  c.space = precision_space(c.precision_run);
  ASSERT_GE(c.space.params.size(), 3u);
  PrecisionTrialRunner runner(c);
  train::LoadedRun run = train::load_run(dir.file("run"), "cpu");
  const std::vector<train::GraphEntry> valid = train::load_split(run, "valid");
  const auto score_of = [&](models::RankModelImpl& m) {
    return train::collection_score(run.kind(), *train::evaluate_entries(m, valid, run.norm, *run.options.eval_chunk, run.device));
  };

  TrialContext fp32;
  fp32.params = nlohmann::json::object();
  fp32.dir = dir.file("p/0");
  const TrialOutcome a = runner.run(fp32);
  ASSERT_EQ(a.state, TrialState::Complete) << a.message;
  EXPECT_DOUBLE_EQ(a.objectives.at("score"), score_of(*run.model));
  EXPECT_EQ(a.objectives.at("onnx_bytes"),
            static_cast<double>(exporter::export_onnx(*run.model, run.model_options).ByteSizeLong()));

  TrialContext low;
  for (const Param& p : c.space.params) low.params[p.name] = "int8";
  low.dir = dir.file("p/1");
  const TrialOutcome b = runner.run(low);
  ASSERT_EQ(b.state, TrialState::Complete) << b.message;
  EXPECT_LT(b.objectives.at("onnx_bytes"), a.objectives.at("onnx_bytes"));
  EXPECT_EQ(b.objectives.at("onnx_bytes"),  // every lowerable tensor int8: the uniform int8 export
            static_cast<double>(
                exporter::export_onnx(*run.model, run.model_options, exporter::WeightPrecision::Int8).ByteSizeLong()));
  const exporter::PrecisionPlan plan = exporter::PrecisionPlan::read(dir.file("p/1/plan.json"));
  EXPECT_EQ(static_cast<double>(exporter::export_onnx(*run.model, run.model_options, plan).ByteSizeLong()),
            b.objectives.at("onnx_bytes"));
  exporter::lower_weights(*run.model, run.model_options, plan);
  EXPECT_DOUBLE_EQ(b.objectives.at("score"), score_of(*run.model));
  EXPECT_NE(test::error_of([&] { runner.plan({{"tensor_999", "int8"}}); }).find("tensor_999"), std::string::npos);
  EXPECT_NE(test::error_of([&] { runner.plan({{"tensor_x", "int8"}}); }).find("unknown parameter tensor_x"),
            std::string::npos);
  // Zero-padded names: the tensors sort in order.
  for (size_t i = 1; i < c.space.params.size(); ++i) EXPECT_LT(c.space.params[i - 1].name, c.space.params[i].name);

  auto sampler = make_sampler(c.sampler, c.space, c.objectives);
  StudySettings st;
  st.out = dir.file("study");
  st.objectives = c.objectives;
  st.trials = 6;
  const StudyResult r = run_study(st, *sampler, nullptr, runner);
  ASSERT_EQ(r.study.trials.size(), 6u);
  ASSERT_FALSE(r.front.empty());
  for (size_t i : r.front) EXPECT_TRUE(fs::exists(dir.file("study/" + r.study.trials[i].run + "/plan.json")));
}

}  // namespace
}  // namespace fastslow::search
