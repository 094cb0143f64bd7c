#include "fastslow/search/trials.h"

#include <gtest/gtest.h>

#include "fastslow/error.h"
#include "test_support.h"

namespace fastslow::search {
namespace {

const std::vector<Objective> kObjectives = {{"score", Direction::Maximize}, {"latency", Direction::Minimize}};

Trial sample_trial() {
  Trial t;
  t.number = 4;
  t.state = TrialState::Pruned;
  t.params = {{"hidden", 32}, {"lr", 0.002}, {"model", "sage"}};
  t.objectives = {{"score", 0.25}};
  t.intermediate = {{1, 0.2}, {2, 0.25}};
  t.seconds = 3.5;
  t.run = "trials/4";
  t.message = "median stopping at checkpoint 2";
  t.distributions["lr"] = Distribution::from_json({{"type", "float"}, {"low", 1e-4}, {"high", 1e-2}, {"log", true}}, "d");
  return t;
}

TEST(Trials, JsonRoundTrip) {
  const Trial t = sample_trial();
  const auto j = trial_json(t, kObjectives);
  EXPECT_EQ(j["state"], "pruned");
  EXPECT_EQ(j["directions"]["latency"], "minimize");
  EXPECT_FALSE(j["objectives"].contains("latency"));  // not measured: left out
  const Trial back = parse_trial(nlohmann::json(j), "x");
  EXPECT_EQ(back.number, 4);
  EXPECT_EQ(back.state, TrialState::Pruned);
  EXPECT_EQ(back.params, t.params);
  EXPECT_EQ(back.objectives, t.objectives);
  EXPECT_EQ(back.intermediate, t.intermediate);
  EXPECT_DOUBLE_EQ(back.seconds, 3.5);
  EXPECT_FALSE(back.hypervolume.has_value());
  EXPECT_EQ(back.run, "trials/4");
  EXPECT_EQ(back.message, t.message);
  ASSERT_EQ(back.distributions.count("lr"), 1u);
  EXPECT_EQ(back.distributions.at("lr").to_json(), t.distributions.at("lr").to_json());
  EXPECT_TRUE(back.distributions.at("lr").log);
  // Distributions that cannot be: refused, naming the file and parameter.
  auto bad = [](nlohmann::json d) {
    nlohmann::json j = nlohmann::json(trial_json(sample_trial(), kObjectives));
    j["distributions"]["lr"] = std::move(d);
    return test::error_of([&] { parse_trial(j, "f.jsonl:2"); });
  };
  EXPECT_NE(bad({{"type", "float"}, {"low", 0.0}, {"high", 1.0}, {"log", true}}).find("f.jsonl:2: parameter lr"), std::string::npos);
  EXPECT_NE(bad({{"type", "normal"}}).find("must be categorical, int or float"), std::string::npos);
  EXPECT_NE(bad({{"type", "categorical"}, {"choices", nlohmann::json::array()}}).find("needs its choices"), std::string::npos);
  EXPECT_NE(bad({{"type", "int"}, {"low", 5}, {"high", 1}}).find("low must not be above high"), std::string::npos);
}

TEST(Trials, ParsesAFileAndKeepsItsDirections) {
  Trial a = sample_trial(), b = sample_trial();
  b.number = 5;
  b.state = TrialState::Complete;
  b.objectives = {{"score", 0.5}, {"latency", 1.25}};
  b.hypervolume = 0.75;
  const std::string text = trial_json(a, kObjectives).dump() + "\n\n" + trial_json(b, kObjectives).dump() + "\n";
  const StudyFile s = parse_trials_jsonl(text, "trials.jsonl");
  ASSERT_EQ(s.trials.size(), 2u);
  ASSERT_EQ(s.objectives.size(), 2u);
  EXPECT_EQ(s.trials[1].hypervolume, 0.75);
  EXPECT_EQ(objective_values(s.trials[1], s.objectives), (std::vector<double>{0.5, 1.25}));
  EXPECT_FALSE(objective_values(s.trials[0], s.objectives).has_value());  // pruned
}

TEST(Trials, BadFilesNameTheLine) {
  const std::string good = trial_json(sample_trial(), kObjectives).dump();
  try {
    parse_trials_jsonl(good + "\n{\"number\": 5, \"sta", "s/trials.jsonl");
    FAIL() << "a cut line was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "s/trials.jsonl:2");
  }
  EXPECT_THROW(parse_trials_jsonl(good + "\n" + good, "t"), Error);  // number twice
  auto other = trial_json(sample_trial(), {{"score", Direction::Minimize}});
  other["number"] = 9;
  EXPECT_THROW(parse_trials_jsonl(good + "\n" + other.dump(), "t"), Error);  // another study's directions
  auto bad_state = trial_json(sample_trial(), kObjectives);
  bad_state["state"] = "running";
  EXPECT_THROW(parse_trials_jsonl(bad_state.dump(), "t"), Error);
  EXPECT_THROW(parse_direction("max", "t"), Error);
}

}  // namespace
}  // namespace fastslow::search
