#include "search/study.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "fastslow/error.h"
#include "fastslow/search/pareto.h"
#include "search_test_util.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace fastslow::search {
namespace {

using namespace search_testing;
using test::TempDir;

Space space() {
  Space s;
  s.params = {float_param("x", 0, 1), int_param("h", 1, 8)};
  return s;
}

std::map<std::string, double> two(const nlohmann::json& p) {
  const double x = p["x"].get<double>(), h = static_cast<double>(p["h"].get<int64_t>());
  return {{"score", x + 0.05 * h}, {"latency", h * h + 3 * x}};
}

StudySettings settings(const std::string& out, int64_t trials) {
  StudySettings s;
  s.out = out;
  s.objectives = {{"score", Direction::Maximize}, {"latency", Direction::Minimize}};
  s.trials = trials;
  return s;
}

std::string read(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Study, WritesEveryTrialAndTheFrontMatchesBruteForce) {
  TempDir dir;
  auto sampler = make_random_sampler(space(), 1);
  FunctionRunner runner(two, "score");
  const auto r = run_study(settings(dir.path(), 25), *sampler, nullptr, runner);
  ASSERT_EQ(r.study.trials.size(), 25u);
  const StudyFile file = parse_trials_jsonl(read(dir.file("trials.jsonl")), "trials.jsonl");
  ASSERT_EQ(file.trials.size(), 25u);
  // Brute force: trials no other dominates.
  std::set<int64_t> brute;
  for (const Trial& a : file.trials) {
    bool dominated = false;
    for (const Trial& b : file.trials)
      dominated |= dominates({b.objectives.at("score"), b.objectives.at("latency")},
                             {a.objectives.at("score"), a.objectives.at("latency")},
                             {Direction::Maximize, Direction::Minimize});
    if (!dominated) brute.insert(a.number);
  }
  const nlohmann::json pareto = nlohmann::json::parse(read(dir.file("pareto.json")));
  std::set<int64_t> front;
  for (const auto& t : pareto["trials"]) front.insert(t["number"].get<int64_t>());
  EXPECT_EQ(front, brute);
  // Hypervolume after each trial, never falling (the default reference
  // moves out with the worst values, so it may only grow).
  double last = 0;
  for (const Trial& t : file.trials) {
    ASSERT_TRUE(t.hypervolume.has_value());
    EXPECT_GE(*t.hypervolume, last - 1e-12);
    last = *t.hypervolume;
  }
  EXPECT_DOUBLE_EQ(pareto["hypervolume"].get<double>(), last);
}

TEST(Study, InterruptedAndResumedAsksWhatAnUninterruptedStudyAsks) {
  TempDir a, b;
  TpeSettings ss;
  ss.startup = 4;
  const Space sp = space();
  const std::vector<Objective> obj = {{"score", Direction::Maximize}};
  auto one = [](const nlohmann::json& p) { return std::map<std::string, double>{{"score", two(p)["score"]}}; };
  StudySettings whole = settings(a.path(), 12);
  whole.objectives = obj;
  {
    auto tpe = make_tpe_sampler(sp, obj, 0, ss);
    FunctionRunner runner(one, "score");
    run_study(whole, *tpe, nullptr, runner);
  }
  StudySettings cut = whole;
  cut.out = b.path();
  int ended = 0;
  StudyHooks hooks;
  hooks.trial_end = [&](const Trial&, int64_t, int64_t) { ++ended; };
  hooks.stop = [&] { return ended >= 5; };
  {
    auto tpe = make_tpe_sampler(sp, obj, 0, ss);
    FunctionRunner runner(one, "score");
    const auto r = run_study(cut, *tpe, nullptr, runner, hooks);
    EXPECT_TRUE(r.interrupted);
    EXPECT_EQ(r.study.trials.size(), 5u);
  }
  {
    auto tpe = make_tpe_sampler(sp, obj, 0, ss);
    FunctionRunner runner(one, "score");
    const auto r = run_study(cut, *tpe, nullptr, runner);  // --resume
    EXPECT_FALSE(r.interrupted);
    EXPECT_EQ(runner.calls, 7);
  }
  const auto x = parse_trials_jsonl(read(a.file("trials.jsonl")), "a"), y = parse_trials_jsonl(read(b.file("trials.jsonl")), "b");
  ASSERT_EQ(x.trials.size(), 12u);
  ASSERT_EQ(y.trials.size(), 12u);
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(x.trials[i].params, y.trials[i].params) << "trial " << i;
  // A larger `trials` on resume goes on.
  cut.trials = 15;
  auto tpe = make_tpe_sampler(sp, obj, 0, ss);
  FunctionRunner runner(one, "score");
  EXPECT_EQ(run_study(cut, *tpe, nullptr, runner).study.trials.size(), 15u);
}

TEST(Study, ATrialCutMidwayResumesWithItsParameters) {
  TempDir dir;
  auto sampler = make_random_sampler(space(), 2);
  FunctionRunner runner(two, "score");
  // A runner reporting an interruption (Ctrl-C mid-trial) for trial 2.
  struct Cutting : TrialRunner {
    FunctionRunner& inner;
    explicit Cutting(FunctionRunner& r) : inner(r) {}
    TrialOutcome run(TrialContext& t) override {
      if (t.number == 2 && !t.resumed) {
        TrialOutcome o;
        o.interrupted = true;
        return o;
      }
      return inner.run(t);
    }
    int64_t checkpoints() const override { return 1; }
  } cutting(runner);
  auto r = run_study(settings(dir.path(), 6), *sampler, nullptr, cutting);
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.study.trials.size(), 2u);
  const nlohmann::json running = nlohmann::json::parse(read(dir.file("running.json")));
  ASSERT_TRUE(running.contains("2"));
  nlohmann::json resumed_params;
  bool resumed = false;
  runner.before = [&](TrialContext& t) {
    if (t.number == 2) resumed_params = t.params, resumed = t.resumed;
  };
  r = run_study(settings(dir.path(), 6), *sampler, nullptr, cutting);
  EXPECT_EQ(r.study.trials.size(), 6u);
  EXPECT_TRUE(resumed);
  EXPECT_EQ(resumed_params, running["2"]);
  EXPECT_EQ(nlohmann::json::parse(read(dir.file("running.json"))), nlohmann::json::object());
}

TEST(Study, AFailingTrialIsRecordedAndTheStudyGoesOn) {
  TempDir dir;
  auto sampler = make_random_sampler(space(), 3);
  FunctionRunner runner(two, "score");
  runner.before = [](TrialContext& t) {
    if (t.number == 1) throw Error("diverged: 50 non-finite steps");
  };
  const auto r = run_study(settings(dir.path(), 4), *sampler, nullptr, runner);
  ASSERT_EQ(r.study.trials.size(), 4u);
  EXPECT_EQ(r.study.trials[1].state, TrialState::Failed);
  EXPECT_NE(r.study.trials[1].message.find("diverged"), std::string::npos);
  EXPECT_EQ(r.study.trials[2].state, TrialState::Complete);
}

TEST(Study, PrunesWithCheckpointsAndRemovesRunFoldersOffTheFront) {
  TempDir dir;
  auto sampler = make_random_sampler(space(), 4);
  FunctionRunner runner([](const nlohmann::json& p) { return std::map<std::string, double>{{"score", two(p)["score"]}}; },
                        "score", 4);
  runner.before = [](TrialContext& t) {
    fs::create_directories(t.dir);
    std::ofstream(t.dir + "/config.json") << "{}";
  };
  PrunerSettings ps;
  ps.startup = 3;
  auto pruner = make_pruner(ps);
  StudySettings st = settings(dir.path(), 20);
  st.objectives = {{"score", Direction::Maximize}};
  const auto r = run_study(st, *sampler, pruner.get(), runner);
  int pruned = 0;
  for (const Trial& t : r.study.trials) {
    if (t.state != TrialState::Pruned) continue;
    ++pruned;
    EXPECT_LT(t.intermediate.back().first, 4);
    EXPECT_FALSE(t.message.empty());
  }
  EXPECT_GT(pruned, 0);
  // Only the best trial keeps its run folder.
  ASSERT_EQ(r.front.size(), 1u);
  std::set<std::string> left;
  for (const auto& e : fs::directory_iterator(dir.file("trials"))) left.insert(e.path().filename().string());
  EXPECT_EQ(left, (std::set<std::string>{std::to_string(r.study.trials[r.front[0]].number)}));
}

TEST(Study, ParallelTrialsAreAllRecordedOnce) {
  TempDir dir;
  auto sampler = make_random_sampler(space(), 5);
  FunctionRunner runner(two, "score");
  StudySettings st = settings(dir.path(), 16);
  st.parallel = 3;
  st.keep_all = true;
  const auto r = run_study(st, *sampler, nullptr, runner);
  std::set<int64_t> numbers;
  for (const Trial& t : r.study.trials) numbers.insert(t.number);
  EXPECT_EQ(numbers.size(), 16u);
  EXPECT_EQ(*numbers.rbegin(), 15);
}

TEST(Study, RefusesAnotherStudysFile) {
  TempDir dir;
  auto sampler = make_random_sampler(space(), 1);
  FunctionRunner runner(two, "score");
  run_study(settings(dir.path(), 2), *sampler, nullptr, runner);
  StudySettings other = settings(dir.path(), 4);
  other.objectives[1].direction = Direction::Maximize;
  EXPECT_THROW(run_study(other, *sampler, nullptr, runner), Error);
}

}  // namespace
}  // namespace fastslow::search
