#include "fastslow/graph/joint_share.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/graph/node_effects.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/rng.h"
#include "test_support.h"

namespace fastslow {
namespace {

// Omega squared of the crossing of `picked` factors, from its definition:
// cells keyed by the tuple of groups (a std::map), between over total sums
// of squares, (SSb - (k-1) MSw) / (SSt + MSw), 0 at least.
double direct_crossed(const std::vector<double>& y, const std::vector<std::vector<int32_t>>& factors,
                      const std::vector<size_t>& picked) {
  std::map<std::vector<int32_t>, std::vector<double>> cells;
  for (size_t i = 0; i < y.size(); ++i) {
    std::vector<int32_t> key;
    for (size_t f : picked) key.push_back(factors[f][i]);
    cells[key].push_back(y[i]);
  }
  const double n = static_cast<double>(y.size()), k = static_cast<double>(cells.size());
  double mean = 0, total = 0, between = 0;
  for (double v : y) mean += v / n;
  for (double v : y) total += (v - mean) * (v - mean);
  for (const auto& [key, ys] : cells) {
    double m = 0;
    for (double v : ys) m += v / static_cast<double>(ys.size());
    between += static_cast<double>(ys.size()) * (m - mean) * (m - mean);
  }
  if (n <= k) return 0;
  const double within = (total - between) / (n - k);
  return std::max(0.0, (between - (k - 1) * within) / (total + within));
}

// Random factors and a runtime that two of them drive: each pick's gain is
// the crossed share of the picks so far minus that of the ones before, and
// no factor left out would have gained more at its step.
TEST(JointShare, EachPickGainsWhatTheCrossingOfThePicksExplainsMore) {
  Rng rng(5);
  const size_t n = 400;
  std::vector<std::vector<int32_t>> factors(6, std::vector<int32_t>(n));
  std::vector<double> y(n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t f = 0; f < factors.size(); ++f) factors[f][i] = static_cast<int32_t>(rng.uniform_int(0, static_cast<int64_t>(f % 3) + 1));
    y[i] = 1.5 * factors[4][i] + 0.5 * factors[1][i] * factors[4][i] + 0.3 * rng.uniform();
  }
  const JointShare j = joint_share(y, factors, 4, 0.001, 0.05);
  ASSERT_GE(j.picks.size(), 2u);
  EXPECT_EQ(j.picks[0].factor, 4u);
  EXPECT_EQ(j.picks[1].factor, 1u);
  std::vector<size_t> picked;
  double before = 0, sum = 0;
  for (const JointPick& p : j.picks) {
    for (size_t f = 0; f < factors.size(); ++f) {
      if (std::find(picked.begin(), picked.end(), f) != picked.end()) continue;
      std::vector<size_t> with = picked;
      with.push_back(f);
      EXPECT_LE(direct_crossed(y, factors, with) - before, p.gain + 1e-12) << "factor " << f;
    }
    picked.push_back(p.factor);
    const double now = direct_crossed(y, factors, picked);
    EXPECT_NEAR(p.gain, now - before, 1e-12);
    EXPECT_GE(p.gain, 0.001);
    before = now;
    sum += p.gain;
  }
  EXPECT_NEAR(j.adjusted, sum, 1e-12);
  // It stopped before its 4 picks: the rest explain noise, none adds 0.1 % more.
  ASSERT_LT(j.picks.size(), 4u);
  EXPECT_EQ(j.stop, JointStop::SmallGain);
  for (size_t f = 0; f < factors.size(); ++f) {
    if (std::find(picked.begin(), picked.end(), f) != picked.end()) continue;
    std::vector<size_t> with = picked;
    with.push_back(f);
    EXPECT_LT(direct_crossed(y, factors, with) - before, 0.001) << "factor " << f;
  }
}

// Pure noise among a tuning session's few configs: fifty candidate nodes of
// 2 to 8 rows. The crossing soon leaves a degree of freedom or two within
// its cells, where the best of fifty looks decisive by omega squared alone;
// the F test at 0.05 over the candidates picks in few draws, and little.
TEST(JointShare, NoiseAmongFewConfigsIsRarelyPicked) {
  Rng rng(9);
  for (const size_t n : {16u, 64u, 512u}) {
    int with_picks = 0;
    double joint = 0;
    const int draws = 40;
    for (int d = 0; d < draws; ++d) {
      std::vector<double> y(n);
      for (double& v : y) v = rng.uniform();
      std::vector<std::vector<int32_t>> factors(50, std::vector<int32_t>(n));
      for (auto& f : factors) {
        const int64_t k = rng.uniform_int(2, 8);
        for (int32_t& g : f) g = static_cast<int32_t>(rng.uniform_int(0, k - 1));
      }
      const JointShare j = joint_share(y, factors, 8, 0.001, 0.05);
      with_picks += !j.picks.empty();
      joint += j.adjusted / draws;
      if (j.picks.empty()) {
        EXPECT_NE(j.stop, JointStop::MostPicks);
        EXPECT_FALSE(std::isnan(j.next_p));
      }
    }
    EXPECT_LE(with_picks, draws / 5) << n << " configs";
    EXPECT_LT(joint, 0.05) << n << " configs";
  }
}

// Crossings of many groups go through the hash (past the dense table's
// range): the same gains as the definition's cells.
TEST(JointShare, ManyGroupsCrossAsTheDefinitionSays) {
  Rng rng(2);
  const size_t n = 20000;
  std::vector<std::vector<int32_t>> factors(3, std::vector<int32_t>(n));
  std::vector<double> y(n);
  for (size_t i = 0; i < n; ++i) {
    for (auto& f : factors) f[i] = static_cast<int32_t>(rng.uniform_int(0, 299));
    y[i] = 0.01 * factors[0][i] + 0.004 * factors[2][i] + rng.uniform();
  }
  const JointShare j = joint_share(y, factors, 2, 0.0, 1.0);  // no test: picks two, the second crossing 300 x 300 ways
  ASSERT_EQ(j.picks.size(), 2u);
  EXPECT_GT(j.picks[1].cells, 15000);
  std::vector<size_t> picked = {j.picks[0].factor};
  EXPECT_NEAR(j.picks[0].gain, direct_crossed(y, factors, picked), 1e-12);
  picked.push_back(j.picks[1].factor);
  EXPECT_NEAR(j.adjusted, direct_crossed(y, factors, picked), 1e-12);
  EXPECT_EQ(j.stop, JointStop::MostPicks);
  EXPECT_TRUE(std::isnan(j.next_gain));
}

TEST(JointShare, FactorsOfAnotherLengthAreRefusedAndAConstantRuntimeHasNoPicks) {
  EXPECT_THROW(joint_share({1, 2, 3}, {{0, 1}}, 3, 0.001, 0.05), Error);
  EXPECT_THROW(joint_share({1, 2}, {{0, -1}}, 3, 0.001, 0.05), Error);
  EXPECT_TRUE(joint_share({2, 2, 2}, {{0, 1, 0}}, 3, 0.001, 0.05).picks.empty());
  EXPECT_EQ(omega_squared(5, 10, 4, 4), 0.0);  // as many groups as observations
}

// Node 2's effect hidden alone: runtime 2^(2a + b) over configs where the
// two nodes' slow rows come apart and together unevenly, so that node 2's
// rows have the same mean log runtime. Alone it explains nothing; once
// node 1 is known it explains the rest. Node 3 is noise.
TEST(NodeEffects, ANodeMaskedAloneIsPickedForWhatItAddsToTheOneAboveIt) {
  const std::vector<std::vector<int>> cells = {{0, 0, 4}, {0, 1, 12}, {1, 0, 12}, {1, 1, 4}};  // a, b, configs
  std::vector<float> rows;
  std::vector<double> rt;
  Rng rng(3);
  for (const auto& c : cells)
    for (int k = 0; k < c[2]; ++k) {
      rows.insert(rows.end(), {static_cast<float>(c[0]), static_cast<float>(c[1]), static_cast<float>(rng.uniform_int(0, 1))});
      rt.push_back(1000.0 * std::exp2(2 * c[0] + c[1]));
    }
  NodeEffectsBuilder b({1, 2, 3}, 1, rt, "masked.npz");
  b.add(rows.data(), static_cast<int64_t>(rt.size()));
  const NodeEffects e = b.finish();
  ASSERT_EQ(e.entries.size(), 3u);
  EXPECT_EQ(e.entries[0].nodes, (std::vector<int64_t>{1}));
  EXPECT_EQ(e.entries[1].nodes, (std::vector<int64_t>{2}));
  EXPECT_NEAR(e.entries[1].share, 0.0, 1e-12);
  EXPECT_GT(e.entries[1].adds, 0.1);
  EXPECT_NEAR(e.entries[0].adds + e.entries[1].adds, 1.0, 1e-12);  // exact: the two explain all
  EXPECT_NEAR(e.joint, 1.0, 1e-12);
  EXPECT_TRUE(std::isnan(e.entries[2].adds));
  EXPECT_NE(e.joint_stopped.find("under 0.1 %"), std::string::npos) << e.joint_stopped;
}

// Real AlexNet: each pick's gain against the crossing of the picked nodes'
// rows from the definition; #86, under 1 % alone, adds more than 3 % once
// #254 and #95 are known, and the three explain almost all of the file.
TEST(NodeEffects, RealAlexNetsPicksAddWhatTheirCrossedRowsExplain) {
  const std::string path = test::data_file("cleaned_alexnet.npz");
  const LayoutGraph g = load_layout_graph(NpzReader::open(path));
  const NodeEffects e = node_effects(g, path);
  const int64_t nc = g.num_configurable(), w = g.config_feat_width;
  std::vector<double> y;
  for (int64_t r : g.config_runtime) y.push_back(std::log(static_cast<double>(r)));
  std::vector<std::vector<int32_t>> factors;  // per picked entry, its rows' groups from a std::map
  std::vector<size_t> picked;
  double before = 0;
  size_t k = 0;
  for (; k < e.entries.size() && !std::isnan(e.entries[k].adds); ++k) {
    const auto j = std::find(g.node_config_ids.begin(), g.node_config_ids.end(), e.entries[k].rows_node) -
                   g.node_config_ids.begin();
    std::map<std::vector<float>, int32_t> ids;
    std::vector<int32_t> f;
    for (int64_t c = 0; c < g.num_configs; ++c) {
      const float* row = g.node_config_feat.data() + (c * nc + j) * w;
      f.push_back(ids.emplace(std::vector<float>(row, row + w), static_cast<int32_t>(ids.size())).first->second);
    }
    factors.push_back(f);
    picked.push_back(k);
    const double now = direct_crossed(y, factors, picked);
    EXPECT_NEAR(e.entries[k].adds, now - before, 1e-9) << "entry " << k;
    before = now;
  }
  ASSERT_GE(k, 3u);
  EXPECT_EQ(e.entries[0].nodes, (std::vector<int64_t>{254}));
  EXPECT_EQ(e.entries[2].nodes, (std::vector<int64_t>{86}));
  EXPECT_LT(e.entries[2].share, 0.01);
  EXPECT_GT(e.entries[2].adds, 0.03);
  EXPECT_NEAR(e.joint, before, 1e-9);
  EXPECT_GT(e.joint, 0.99);
  for (size_t i = k + 1; i < e.entries.size(); ++i) EXPECT_LE(e.entries[i].share, e.entries[i - 1].share);
}

}  // namespace
}  // namespace fastslow
