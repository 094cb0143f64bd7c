#include "train/many_runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "test_support.h"
#include "tiny_data.h"
#include "train/loaded_run.h"
#include "train/run_dir.h"

namespace fastslow::train {
namespace {

std::vector<torch::Tensor> best_weights(const std::string& run) {
  LoadedRun r = load_run(run, "cpu");
  std::vector<torch::Tensor> out;
  for (const auto& p : r.model->parameters()) out.push_back(p.detach().clone());
  return out;
}

TEST(Folds, AGraphValidatesInExactlyOneFoldAndNeverTrainsThere) {
  TrainOptions o = small_layout_run("unused/out");
  const Collection c = find_collection(o.data, o.collection);
  std::set<std::string> all;
  for (const char* split : {"train", "valid"})
    for (const auto& f : c.split(split)) all.insert(f);
  o.folds = 2;
  std::set<std::string> validated;
  for (int f = 0; f < 2; ++f) {
    o.fold = f;
    const DataSpec s = data_spec(o);
    std::set<std::string> train(s.train_files.begin(), s.train_files.end());
    for (const std::string& v : s.valid_files) {
      EXPECT_EQ(train.count(v), 0u) << v << " trains and validates in fold " << f;
      EXPECT_TRUE(validated.insert(v).second) << v << " validates in two folds";
    }
    EXPECT_EQ(train.size() + s.valid_files.size(), all.size());
    EXPECT_TRUE(s.norm_on_valid);  // every fold reads the same inputs
  }
  EXPECT_EQ(validated, all);
}

TEST(Folds, OneGraphsConfigGroupsNeverCrossFolds) {
  TrainOptions o;
  o.graph = find_collection(tiny_data(), "layout:xla:random").split("train").front();
  o.out = "unused/out";
  o.folds = 3;
  const int64_t groups = 40;
  std::set<int64_t> validated, held;
  for (int f = 0; f < 3; ++f) {
    o.fold = f;
    const HoldoutSplit h = data_spec(o).split_groups(groups, {});
    std::set<int64_t> train(h.train.begin(), h.train.end());
    for (int64_t g : h.valid) {
      EXPECT_EQ(train.count(g), 0u);
      EXPECT_TRUE(validated.insert(g).second) << "group " << g << " validates in two folds";
    }
    for (int64_t g : h.holdout) EXPECT_EQ(train.count(g) + std::count(h.valid.begin(), h.valid.end(), g), 0u);
    if (f == 0) held.insert(h.holdout.begin(), h.holdout.end());
    EXPECT_EQ(std::set<int64_t>(h.holdout.begin(), h.holdout.end()), held);  // one held-out share for every fold
  }
  EXPECT_EQ(validated.size() + held.size(), static_cast<size_t>(groups));
}

TEST(Folds, ResumeAcrossFoldsEqualsAnUninterruptedRunAndWritesTheOutOfFoldScore) {
  test::TempDir dir;
  const ManyResult full = train_many(small_layout_run(dir.file("full")), {"folds", 2, std::nullopt});
  ASSERT_EQ(full.members.size(), 2u);
  ASSERT_TRUE(full.oof.has_value());
  EXPECT_TRUE(RunDir(dir.file("full")).has("oof.json"));

  // Cut in the second fold (12 steps + 1 validation graph per epoch x 2 epochs for fold 0, then 3 more checks).
  int checks = 0;
  const ManyResult cut = train_many(small_layout_run(dir.file("cut")), {"folds", 2, std::nullopt},
                                    {std::make_shared<StopWhen>([&] { return ++checks == 30; })});
  EXPECT_TRUE(cut.last.interrupted());
  EXPECT_FALSE(cut.oof.has_value());
  EXPECT_FALSE(RunDir(dir.file("cut")).has("oof.json"));
  EXPECT_GE(cut.members.size(), 1u);
  const ManyResult rest = resume_many(dir.file("cut"), std::nullopt, std::nullopt);
  ASSERT_TRUE(rest.oof.has_value());
  EXPECT_FALSE(rest.last.interrupted());

  for (int f = 0; f < 2; ++f) {
    const auto a = best_weights(member_dir(dir.file("full"), "folds", f));
    const auto b = best_weights(member_dir(dir.file("cut"), "folds", f));
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i], b[i])) << "fold " << f << " parameter " << i;
  }
  EXPECT_EQ((*full.oof)["score"], (*rest.oof)["score"]);
  // Every fold normalises with the same statistics, to the last bit: their models export as one.
  EXPECT_EQ(RunDir(member_dir(dir.file("full"), "folds", 0)).read_json("stats.json"),
            RunDir(member_dir(dir.file("full"), "folds", 1)).read_json("stats.json"));
  EXPECT_EQ((*full.oof)["fold_scores"], (*rest.oof)["fold_scores"]);
  // Every graph of the collection scored once, by the fold that validated it.
  const Collection c = find_collection(tiny_data(), "layout:xla:random");
  EXPECT_EQ((*full.oof)["graphs"].size(), c.split("train").size() + c.split("valid").size());
  double sum = 0;
  for (const auto& g : (*full.oof)["graphs"]) sum += g["kendall"].get<double>();
  EXPECT_NEAR((*full.oof)["score"].get<double>(), sum / static_cast<double>((*full.oof)["graphs"].size()), 1e-12);
}

TEST(Folds, FoldsTrainedOneByOneWriteTheOutOfFoldScoreWhenTheLastFinishes) {
  test::TempDir dir;
  const TrainOptions o = small_layout_run(dir.file("cv"));
  const ManyResult first = train_many(o, {"folds", 2, 1});
  EXPECT_EQ(first.members.size(), 1u);
  EXPECT_FALSE(first.oof.has_value());  // fold 0 has not run
  EXPECT_FALSE(RunDir(member_dir(dir.file("cv"), "folds", 0)).has("config.json"));
  const ManyResult second = train_many(o, {"folds", 2, 0});  // the same command, the other fold
  EXPECT_EQ(second.members.size(), 1u);
  ASSERT_TRUE(second.oof.has_value());
  EXPECT_TRUE(RunDir(dir.file("cv")).has("oof.json"));
  EXPECT_THROW(train_many(o, {"folds", 3, 0}), Error);  // another plan in the same folder
}

TEST(Folds, FoldsStartedFromThePlanGetTheDefaultsOfAFreshRun) {
  // Options left out are stored unresolved in runs.json; a fold begun from
  // it (--fold, or --resume reaching it) must resolve them as fold 0 did.
  test::TempDir dir;
  const TrainOptions t = quick_tile_run(dir.file("tile"));
  train_many(t, {"folds", 2, 0});
  train_many(t, {"folds", 2, 1});
  const nlohmann::json a = RunDir(member_dir(t.out, "folds", 0)).read_json("config.json");
  const nlohmann::json b = RunDir(member_dir(t.out, "folds", 1)).read_json("config.json");
  EXPECT_EQ(a["tile_features"], 1);
  EXPECT_EQ(b["tile_features"], a["tile_features"]);
  EXPECT_EQ(RunDir(member_dir(t.out, "folds", 0)).read_json("stats.json"),
            RunDir(member_dir(t.out, "folds", 1)).read_json("stats.json"));

  // Per-program seeds: the second member begun by --resume keeps its wide table and valid share.
  TrainOptions p;
  p.graph = find_collection(tiny_data(), "layout:xla:random").split("train").front();
  p.out = dir.file("program");
  p.epochs = 1;
  p.threads = 1;
  int checks = 0;
  EXPECT_TRUE(train_many(p, {"seeds", 2, std::nullopt}, {std::make_shared<StopWhen>([&] { return ++checks == 1; })})
                  .last.interrupted());
  resume_many(p.out, std::nullopt, std::nullopt);
  const nlohmann::json s1 = RunDir(member_dir(p.out, "seeds", 1)).read_json("config.json");
  EXPECT_EQ(s1["wide"], 1);
  EXPECT_EQ(s1["valid_share"], 0.1);
}

TEST(Folds, AGraphOfTwoCollectionsValidatesInOneFoldOnly) {
  TrainOptions o = small_layout_run("unused/out");
  o.collection = "layout:xla:random,layout:xla:default";
  o.folds = 2;
  for (int f = 0; f < 2; ++f) {
    o.fold = f;
    const DataSpec s = data_spec(o);
    std::set<std::string> train;
    for (const std::string& t : s.train_files) train.insert(file_stem(t));
    for (const std::string& v : s.valid_files) EXPECT_EQ(train.count(file_stem(v)), 0u) << v << " in fold " << f;
  }
}

TEST(Seeds, MembersDifferOnlyInSeedAndShareTheSplit) {
  test::TempDir dir;
  TrainOptions o;
  o.graph = find_collection(tiny_data(), "layout:xla:random").split("train").front();
  o.out = dir.file("seeds");
  o.epochs = 1;
  o.threads = 1;
  o.seed = 5;
  const ManyResult r = train_many(o, {"seeds", 2, std::nullopt});
  ASSERT_EQ(r.members.size(), 2u);
  nlohmann::json a = RunDir(r.members[0]).read_json("config.json");
  nlohmann::json b = RunDir(r.members[1]).read_json("config.json");
  EXPECT_EQ(a["seed"], 5);
  EXPECT_EQ(b["seed"], 6);
  EXPECT_EQ(a["split_seed"], 5);
  EXPECT_EQ(b["split_seed"], 5);
  for (const char* differ : {"seed", "out"}) {
    a.erase(differ);
    b.erase(differ);
  }
  EXPECT_EQ(a, b);
  // One held-out share: both members rank the same configs.
  const auto ha = load_split(load_run(r.members[0], "cpu"), "holdout");
  const auto hb = load_split(load_run(r.members[1], "cpu"), "holdout");
  EXPECT_EQ(ha.front().eval_groups, hb.front().eval_groups);
  EXPECT_THROW(train_many(o, {"seeds", 2, std::nullopt}), Error);  // the folder holds runs already
}

TEST(TrainOnValid, ValidGraphsTrainAndEarlyStoppingIsRefused) {
  TrainOptions o = small_layout_run("unused/out");
  o.train_on_valid = 1;
  const DataSpec s = data_spec(o);
  for (const std::string& v : s.valid_files)
    EXPECT_NE(std::find(s.train_files.begin(), s.train_files.end(), v), s.train_files.end()) << v;
  o.patience = 3;
  EXPECT_THROW(resolve_options(o), Error);
  o.patience.reset();
  EXPECT_EQ(*resolve_options(o).patience, 0);
}

}  // namespace
}  // namespace fastslow::train
