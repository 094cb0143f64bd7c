#include "train/ensemble.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "test_support.h"
#include "tiny_data.h"
#include "train/many_runs.h"
#include "train/run_dir.h"

namespace fastslow::train {
namespace {

// Two seed members of a small run, trained once for the suite.
const std::string& members_dir() {
  static test::TempDir* dir = new test::TempDir;
  static bool made = false;
  if (!made) {
    TrainOptions o = small_layout_run(dir->file("seeds"));
    o.epochs = 1;
    train_many(o, {"seeds", 2, std::nullopt});
    made = true;
  }
  return dir->path();
}

std::vector<double> z(const std::vector<double>& s) {  // written out here, not the core's
  double mean = 0, ss = 0;
  for (double x : s) mean += x / static_cast<double>(s.size());
  for (double x : s) ss += (x - mean) * (x - mean);
  const double sd = std::sqrt(ss / static_cast<double>(s.size()));
  std::vector<double> out;
  for (double x : s) out.push_back(sd > 0 ? (x - mean) / sd : 0.0);
  return out;
}

TEST(Ensemble, MeanCombinesEachMembersStandardisedScoresPerGraph) {
  const std::string seeds = members_dir() + "/seeds";
  const EnsembleSpec spec = build_ensemble({seeds}, Combine::Mean, "cpu");
  ASSERT_EQ(spec.members.size(), 2u);
  EXPECT_DOUBLE_EQ(spec.members[0].weight, 0.5);
  std::vector<LoadedRun> runs = {load_run(seeds + "/seed-0", "cpu"), load_run(seeds + "/seed-1", "cpu")};
  const MemberScores s = score_members(runs, "valid");
  ASSERT_FALSE(s.graphs.empty());
  const std::vector<GraphResult> combined = combined_results(s, Combine::Mean, {0.5, 0.5});
  for (size_t g = 0; g < s.graphs.size(); ++g) {
    const GraphEntry& e = s.graphs[g];
    // Each member on its own, through the single-run path.
    const std::vector<double> a = score_groups(*runs[0].model, e, e.eval_groups, runs[0].norm, *runs[0].options.eval_chunk, torch::kCPU);
    const std::vector<double> b = score_groups(*runs[1].model, e, e.eval_groups, runs[1].norm, *runs[1].options.eval_chunk, torch::kCPU);
    const std::vector<double> za = z(a), zb = z(b);
    std::vector<double> by_hand;
    for (size_t i = 0; i < a.size(); ++i) by_hand.push_back(0.5 * za[i] + 0.5 * zb[i]);
    EXPECT_EQ(combined[g].ranking, rank_configs(e.cache.groups, e.eval_groups, by_hand)) << e.cache.source;
    // The scale is the member's within-graph spread (one valid graph here).
    if (s.graphs.size() == 1) {
      double mean = std::accumulate(a.begin(), a.end(), 0.0) / static_cast<double>(a.size()), ss = 0;
      for (double x : a) ss += (x - mean) * (x - mean);
      EXPECT_NEAR(spec.members[0].scale, std::sqrt(ss / static_cast<double>(a.size())), 1e-9);
    }
  }
}

TEST(Ensemble, WeightedNeverScoresBelowEqualWeightsOnItsValidGraphs) {
  const std::string seeds = members_dir() + "/seeds";
  const EnsembleSpec mean = build_ensemble({seeds}, Combine::Mean, "cpu");
  const EnsembleSpec weighted = build_ensemble({seeds}, Combine::Weighted, "cpu");
  EXPECT_GE(weighted.fitted_on["score"].get<double>(), mean.fitted_on["score"].get<double>() - 1e-12);
  double sum = 0;
  for (const EnsembleMember& m : weighted.members) {
    EXPECT_GE(m.weight, 0);
    sum += m.weight;
  }
  EXPECT_NEAR(sum, 1, 1e-9);
}

TEST(Ensemble, FolderRoundTripsWithRelativeMembersAndRanksTheSplit) {
  const std::string seeds = members_dir() + "/seeds";
  test::TempDir dir;
  const EnsembleSpec spec = build_ensemble({seeds + "/seed-0", seeds + "/seed-1"}, Combine::Rank, "cpu");
  spec.write(dir.file("ens"));
  const nlohmann::json j = RunDir(dir.file("ens")).read_json("ensemble.json");
  EXPECT_FALSE(std::filesystem::path(j["members"][0]["run"].get<std::string>()).is_absolute());
  const LoadedEnsemble e = load_ensemble(dir.file("ens"), "cpu");
  EXPECT_EQ(e.spec.combine, Combine::Rank);
  EXPECT_TRUE(std::filesystem::equivalent(e.spec.members[1].run, seeds + "/seed-1"));
  EXPECT_TRUE(e.same_split);
}

TEST(Ensemble, RefusesMalformedSpecsAndMembersThatDoNotFit) {
  test::TempDir dir;
  const RunDir d(dir.file("bad"));
  d.create();
  d.write_json("ensemble.json", {{"format", 1}, {"kind", "layout"}, {"combine", "mean"},
                                 {"members", {{{"run", "a"}, {"weight", 0.7}, {"scale", 1}}, {{"run", "b"}, {"weight", 0.7}, {"scale", 1}}}}});
  EXPECT_THROW(EnsembleSpec::read(dir.file("bad")), Error);  // weights sum to 1.4
  d.write_json("ensemble.json", {{"format", 9}});
  EXPECT_THROW(EnsembleSpec::read(dir.file("bad")), Error);
  EXPECT_THROW(parse_combine("median"), Error);

  // A tile run beside layout runs.
  const TrainOptions t = quick_tile_run(dir.file("tile"));
  train(t);
  EXPECT_THROW(build_ensemble({members_dir() + "/seeds/seed-0", dir.file("tile")}, Combine::Mean, "cpu"), Error);
}

}  // namespace
}  // namespace fastslow::train
