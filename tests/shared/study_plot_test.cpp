#include "fastslow/search/study_plot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "fastslow/error.h"
#include "fastslow/search/pareto.h"

namespace fastslow::search {
namespace {

const std::string kStudy =
    R"({"number":0,"state":"complete","params":{"lr":0.01,"model":"sage"},"objectives":{"score":0.5,"latency":1},"directions":{"score":"maximize","latency":"minimize"}})"
    "\n"
    R"({"number":1,"state":"complete","params":{"lr":0.001,"model":"gcn"},"objectives":{"score":0.7,"latency":3},"directions":{"score":"maximize","latency":"minimize"}})"
    "\n"
    R"({"number":2,"state":"complete","params":{"lr":0.1,"model":"sage"},"objectives":{"score":0.6,"latency":4},"directions":{"score":"maximize","latency":"minimize"}})"
    "\n"
    R"({"number":3,"state":"pruned","params":{"lr":0.0001,"model":"mlp"},"objectives":{},"directions":{"score":"maximize","latency":"minimize"}})"
    "\n"
    R"({"number":4,"state":"failed","params":{"lr":1,"model":"mlp"},"objectives":{"score":0.9,"latency":0.5},"directions":{"score":"maximize","latency":"minimize"},"message":"diverged"})"
    "\n"
    R"({"number":5,"state":"complete","params":{"lr":0.01,"model":"gcn"},"objectives":{"score":0.8,"latency":6},"directions":{"score":"maximize","latency":"minimize"}})"
    "\n";

std::vector<int64_t> numbers(const StudyFile& s, const StudyScatter& sc, const std::vector<size_t>& at) {
  std::vector<int64_t> out;
  for (size_t k : at) out.push_back(s.trials[sc.trials[k]].number);
  return out;
}

TEST(StudyPlot, AxesAreTheObjectivesThenTheTrialNumber) {
  const StudyFile s = parse_trials_jsonl(kStudy, "t.jsonl");
  const auto axes = study_axes(s);
  ASSERT_EQ(axes.size(), 3u);
  EXPECT_EQ(axes[0].name, "score");
  EXPECT_EQ(axes[1].direction, Direction::Minimize);
  EXPECT_TRUE(axes[2].trial_number);
  const auto d = default_axes(s);
  EXPECT_EQ(axes[d[0]].name, "latency");  // across
  EXPECT_EQ(axes[d[1]].name, "score");    // up
  const StudyFile one = parse_trials_jsonl(R"({"number":0,"state":"complete","params":{},"objectives":{"loss":1},"directions":{"loss":"minimize"}})", "o");
  EXPECT_EQ(study_axes(one)[default_axes(one)[0]].name, "trial");
}

TEST(StudyPlot, ScatterKeepsTrialsWithBothValuesAndTheFrontOfCompleteOnes) {
  const StudyFile s = parse_trials_jsonl(kStudy, "t.jsonl");
  const auto axes = study_axes(s);
  const StudyScatter sc = study_scatter(s, axes[1], axes[0]);
  // The pruned trial has no values; the failed one has, but cannot be on the front.
  EXPECT_EQ(numbers(s, sc, {0, 1, 2, 3, 4}), (std::vector<int64_t>{0, 1, 2, 4, 5}));
  EXPECT_EQ(sc.complete, (std::vector<char>{1, 1, 1, 0, 1}));
  EXPECT_EQ(numbers(s, sc, sc.front), (std::vector<int64_t>{0, 1, 5}));
  // Latency across (minimised), score up (maximised): it turns at the corner worse than both.
  const std::vector<std::array<double, 2>> steps = {{1, 0.5}, {3, 0.5}, {3, 0.7}, {6, 0.7}, {6, 0.8}};
  EXPECT_EQ(sc.steps, steps);
  // Against the trial number the front is the best score so far.
  const StudyScatter history = study_scatter(s, axes[2], axes[0]);
  EXPECT_EQ(numbers(s, history, history.front), (std::vector<int64_t>{0, 1, 5}));
}

TEST(StudyPlot, FrontOverBothObjectivesIsTheCoresParetoTrials) {
  std::mt19937 rng(11);
  for (int rep = 0; rep < 30; ++rep) {
    std::string text;
    for (int i = 0; i < 25; ++i) {
      const char* state = rng() % 5 == 0 ? "pruned" : "complete";
      text += R"({"number":)" + std::to_string(i) + R"(,"state":")" + state + R"(","params":{},"objectives":{"a":)" +
              std::to_string(rng() % 7) + R"(,"b":)" + std::to_string(rng() % 7) +
              R"(},"directions":{"a":"minimize","b":"maximize"}})" + "\n";
    }
    const StudyFile s = parse_trials_jsonl(text, "r");
    const auto axes = study_axes(s);
    const StudyScatter sc = study_scatter(s, axes[0], axes[1]);
    std::vector<size_t> front;
    for (size_t k : sc.front) front.push_back(sc.trials[k]);
    EXPECT_EQ(front, pareto_trials(s)) << "rep " << rep;
  }
}

TEST(StudyPlot, StepsTurnAtTheCornerWorseThanBothNeighboursInAnyDirection) {
  // Both maximised: along x ascending, y falls; the corner is (lower x, lower y).
  const auto steps = front_steps({{3, 1}, {1, 3}, {2, 2}}, Direction::Maximize, Direction::Maximize);
  const std::vector<std::array<double, 2>> want = {{1, 3}, {1, 2}, {2, 2}, {2, 1}, {3, 1}};
  EXPECT_EQ(steps, want);
  EXPECT_TRUE(front_steps({}, Direction::Minimize, Direction::Minimize).empty());
  EXPECT_EQ(front_steps({{1, 1}}, Direction::Minimize, Direction::Minimize).size(), 1u);
}

TEST(StudyPlot, StepsReachTheEdgesTheFrontDominatesTowards) {
  // Latency across (minimised), score up (maximised): down to the bottom edge, right to the right one.
  const std::vector<std::array<double, 2>> steps = {{1, 0.5}, {3, 0.5}, {3, 0.7}};
  const std::vector<std::array<double, 2>> min_max = {{1, 0}, {1, 0.5}, {3, 0.5}, {3, 0.7}, {10, 0.7}};
  EXPECT_EQ(steps_to_edges(steps, Direction::Minimize, 10, 0), min_max);
  // Both maximised (x ascending, y falling): from the left edge, down to the bottom one.
  const std::vector<std::array<double, 2>> max_max = {{0, 3}, {1, 3}, {1, 2}, {2, 2}, {2, 0}};
  EXPECT_EQ(steps_to_edges({{1, 3}, {1, 2}, {2, 2}}, Direction::Maximize, 0, 0), max_max);
  EXPECT_TRUE(steps_to_edges({}, Direction::Minimize, 1, 1).empty());
}

TEST(StudyPlot, NumericParametersKeepTheirValues) {
  const StudyFile s = parse_trials_jsonl(kStudy, "t.jsonl");
  EXPECT_EQ(param_names(s), (std::vector<std::string>{"lr", "model"}));
  const ParamPlot p = param_plot(s, "lr", study_axes(s)[0]);
  EXPECT_FALSE(p.categorical);
  EXPECT_EQ(p.x, (std::vector<double>{0.01, 0.001, 0.1, 1, 0.01}));  // trial 3 has no score
  EXPECT_EQ(p.y, (std::vector<double>{0.5, 0.7, 0.6, 0.9, 0.8}));
  EXPECT_EQ(p.complete, (std::vector<char>{1, 1, 1, 0, 1}));
  EXPECT_EQ(p.x_axis().scale, AxisScale::Log);  // 0.001 to 1
}

TEST(StudyPlot, OtherParametersTakeLabelledSlots) {
  const StudyFile s = parse_trials_jsonl(kStudy, "t.jsonl");
  const ParamPlot p = param_plot(s, "model", study_axes(s)[0]);
  EXPECT_TRUE(p.categorical);
  EXPECT_EQ(p.labels, (std::vector<std::string>{"gcn", "mlp", "sage"}));
  EXPECT_EQ(p.x, (std::vector<double>{2, 0, 2, 1, 0}));
  EXPECT_EQ(p.x_axis().scale, AxisScale::Categorical);
  // Numbers among words: numbers first, by value; booleans as words.
  const StudyFile mixed = parse_trials_jsonl(
      R"({"number":0,"state":"complete","params":{"h":"auto"},"objectives":{"s":1},"directions":{"s":"maximize"}})"
      "\n"
      R"({"number":1,"state":"complete","params":{"h":64},"objectives":{"s":2},"directions":{"s":"maximize"}})"
      "\n"
      R"({"number":2,"state":"complete","params":{"h":8},"objectives":{"s":3},"directions":{"s":"maximize"}})"
      "\n"
      R"({"number":3,"state":"complete","params":{"h":true},"objectives":{"s":4},"directions":{"s":"maximize"}})"
      "\n"
      R"({"number":4,"state":"complete","params":{},"objectives":{"s":5},"directions":{"s":"maximize"}})",
      "m");
  const ParamPlot h = param_plot(mixed, "h", study_axes(mixed)[0]);
  EXPECT_EQ(h.labels, (std::vector<std::string>{"8", "64", "auto", "true"}));
  EXPECT_EQ(h.x, (std::vector<double>{2, 1, 0, 3}));
  EXPECT_EQ(h.trials.size(), 4u);  // trial 4 has no h
}

TEST(StudyPlot, ParametersArePlottedOnTheScaleTheStudyDrewThemFrom) {
  // The values alone would mislead: lr spans 3x (a guess says linear, the
  // study searched it on a log scale); hidden's numbers are choices, not a range.
  const std::string d =
      R"("distributions":{"lr":{"type":"float","low":0.0001,"high":0.1,"log":true},"hidden":{"type":"categorical","choices":[64,8,32]}})";
  const std::string text =
      R"({"number":0,"state":"complete","params":{"lr":0.01,"hidden":8},"objectives":{"s":1},"directions":{"s":"maximize"},)" + d + "}\n" +
      R"({"number":1,"state":"complete","params":{"lr":0.03,"hidden":64},"objectives":{"s":2},"directions":{"s":"maximize"},)" + d + "}\n";
  const StudyFile s = parse_trials_jsonl(text, "t.jsonl");
  ASSERT_EQ(s.distributions.size(), 2u);
  const ParamPlot lr = param_plot(s, "lr", study_axes(s)[0]);
  EXPECT_FALSE(lr.categorical);
  EXPECT_EQ(lr.x_axis().scale, AxisScale::Log);
  const StudyFile guessed = parse_trials_jsonl(
      R"({"number":0,"state":"complete","params":{"lr":0.01},"objectives":{"s":1},"directions":{"s":"maximize"}})" "\n"
      R"({"number":1,"state":"complete","params":{"lr":0.03},"objectives":{"s":2},"directions":{"s":"maximize"}})",
      "g");
  EXPECT_EQ(param_plot(guessed, "lr", study_axes(guessed)[0]).x_axis().scale, AxisScale::Linear);
  const ParamPlot h = param_plot(s, "hidden", study_axes(s)[0]);
  EXPECT_TRUE(h.categorical);
  EXPECT_EQ(h.labels, (std::vector<std::string>{"64", "8", "32"}));  // the study's order, unused 32 included
  EXPECT_EQ(h.x, (std::vector<double>{1, 0}));
  // A parameter drawn two ways in one file is refused, naming the line.
  const std::string other =
      R"({"number":2,"state":"complete","params":{"lr":0.02},"objectives":{"s":3},"directions":{"s":"maximize"},"distributions":{"lr":{"type":"float","low":0.0,"high":1.0,"log":false}}})";
  try {
    parse_trials_jsonl(text + other, "t.jsonl");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("t.jsonl:3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("parameter lr is drawn from"), std::string::npos) << e.what();
  }
}

TEST(StudyPlot, ParameterValuesAreWrittenShort) {
  EXPECT_EQ(param_text("sage"), "sage");
  EXPECT_EQ(param_text(64), "64");
  EXPECT_EQ(param_text(0.0022917123345470615), "0.00229171");
  EXPECT_EQ(param_text(1.4478607127134226e-05), "1.44786e-05");
  EXPECT_EQ(param_text(true), "true");
}

TEST(StudyPlot, CountsPerState) {
  const StateCounts c = state_counts(parse_trials_jsonl(kStudy, "t.jsonl"));
  EXPECT_EQ(c.complete, 4u);
  EXPECT_EQ(c.pruned, 1u);
  EXPECT_EQ(c.failed, 1u);
}

}  // namespace
}  // namespace fastslow::search
