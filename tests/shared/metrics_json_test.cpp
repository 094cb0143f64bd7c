#include "fastslow/rank/metrics_json.h"

#include <gtest/gtest.h>

namespace fastslow {
namespace {

TEST(MetricsJson, AGraphsSixMetricsWithNaNAsNull) {
  GraphMetrics m;
  m.configs = 40;
  m.kendall = 0.5;
  m.opa = 0.75;
  m.top1 = 0;
  m.top5 = 0.25;
  m.tile_score = 0.75;  // top10 stays NaN
  EXPECT_EQ(metrics_json(m).dump(),
            R"({"kendall":0.5,"opa":0.75,"tile_score":0.75,"top10_error":null,"top1_error":0.0,"top5_error":0.25})");
}

TEST(MetricsJson, ACollectionsMeansUnderTheSameKeys) {
  // Two graphs: Kendall 0.5 and undefined (NaN, skipped), OPA 0.5 and 1,
  // top-1 error 0.5 and 0, every other metric undefined in both.
  GraphMetrics a, b;
  a.kendall = 0.5;
  a.opa = 0.5;
  a.top1 = 0.5;
  b.opa = 1.0;
  b.top1 = 0.0;
  const nlohmann::json j = metrics_json(summarize({a, b}));
  EXPECT_EQ(j.dump(),
            R"({"kendall":0.5,"opa":0.75,"tile_score":null,"top10_error":null,"top1_error":0.25,"top5_error":null})");
}

TEST(MetricsJson, AMeasuredRankingRoundTripsThroughJson) {
  // Runtimes 3, 1, 2 scored 1, 2, 0: of the three pairs only (0, 2) is in
  // order (Kendall -1/3, OPA 1/3); the top-1 pick (config 2, runtime 2) is
  // twice the best (error 1); the top 5 hold the best (tile score 1).
  const GraphMetrics m = evaluate_graph({1, 2, 0}, {3, 1, 2});
  const nlohmann::json j = nlohmann::json::parse(metrics_json(m).dump());
  EXPECT_DOUBLE_EQ(j.at("kendall").get<double>(), -1.0 / 3.0);
  EXPECT_DOUBLE_EQ(j.at("opa").get<double>(), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(j.at("top1_error").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j.at("tile_score").get<double>(), 1.0);
}

}  // namespace
}  // namespace fastslow
