#include "fastslow/rank/ranking_csv.h"

#include <gtest/gtest.h>

#include "fastslow/error.h"

namespace fastslow {
namespace {

// Four configs, configs 0 and 2 copies of each other (group 0).
const std::vector<int64_t> kGroupOf = {0, 1, 0, 2};
const std::vector<double> kGroupScores = {0.5, -1.25, static_cast<double>(0.1f)};
const std::vector<int64_t> kRanking = {1, 3, 0, 2};

TEST(RankingCsv, OneRowPerConfigBestFirstWithItsGroupScoreAndRuntime) {
  const std::vector<double> runtime = {10, 20.5, 11, 1e-7};
  EXPECT_EQ(ranking_csv(kRanking, kGroupOf, kGroupScores, runtime),
            "rank,config,group,score,runtime\n"
            "1,1,1,-1.25,20.5\n"
            "2,3,2,0.100000001,1e-07\n"  // 9 digits: a float32 score reads back exactly
            "3,0,0,0.5,10\n"
            "4,2,0,0.5,11\n");
}

TEST(RankingCsv, WithoutRuntimesTheColumnIsBlank) {
  EXPECT_EQ(ranking_csv({2, 0}, kGroupOf, kGroupScores, {}),
            "rank,config,group,score,runtime\n"
            "1,2,0,0.5,\n"
            "2,0,0,0.5,\n");
  EXPECT_EQ(ranking_csv({}, kGroupOf, kGroupScores, {}), "rank,config,group,score,runtime\n");
}

TEST(RankingCsv, AnIndexOutsideItsVectorIsAnErrorNotARead) {
  EXPECT_THROW(ranking_csv({4}, kGroupOf, kGroupScores, {}), Error);
  EXPECT_THROW(ranking_csv({-1}, kGroupOf, kGroupScores, {}), Error);
  EXPECT_THROW(ranking_csv({1}, kGroupOf, {0.5}, {}), Error);                // group 1 has no score
  EXPECT_THROW(ranking_csv({3}, kGroupOf, kGroupScores, {1, 2, 3}), Error);  // config 3 has no runtime
}

}  // namespace
}  // namespace fastslow
