#include "fastslow/data/folds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "fastslow/error.h"

namespace fastslow {
namespace {

std::vector<std::string> files_of(const std::map<std::string, int>& families) {
  std::vector<std::string> out;
  for (const auto& [family, count] : families)
    for (int i = 0; i < count; ++i) out.push_back("npz/layout/xla/random/train/" + family + "_" + std::to_string(i) + ".npz");
  return out;
}

TEST(ModelFamily, LeadingLettersOfTheStem) {
  EXPECT_EQ(model_family("a/b/resnet50.2x2.fp16.npz"), "resnet");
  EXPECT_EQ(model_family("transformer_0002.npz"), "transformer");
  EXPECT_EQ(model_family("x/Inception_v3_batch_128_train.npz"), "inception");
  EXPECT_EQ(model_family("0abc.npz"), "");
}

TEST(AssignFolds, EveryGraphInExactlyOneFoldAndSizesBalanced) {
  const auto files = files_of({{"mlp", 7}, {"rnn", 5}, {"transformer", 11}, {"cnn", 1}});
  for (int k : {2, 3, 5}) {
    const std::vector<int> fold = assign_folds(files, k, 7);
    ASSERT_EQ(fold.size(), files.size());
    std::vector<int> size(static_cast<size_t>(k), 0);
    for (int f : fold) {
      ASSERT_GE(f, 0);
      ASSERT_LT(f, k);
      ++size[static_cast<size_t>(f)];
    }
    EXPECT_LE(*std::max_element(size.begin(), size.end()) - *std::min_element(size.begin(), size.end()), 1) << k;
  }
}

TEST(AssignFolds, EachFamilySpreadOverTheFolds) {
  const auto files = files_of({{"mlp", 10}, {"rnn", 6}, {"transformer", 4}});
  const std::vector<int> fold = assign_folds(files, 4, 3);
  std::map<std::string, std::vector<int>> per;
  for (size_t i = 0; i < files.size(); ++i) {
    auto& v = per[model_family(files[i])];
    v.resize(4, 0);
    ++v[static_cast<size_t>(fold[i])];
  }
  for (const auto& [family, counts] : per)
    EXPECT_LE(*std::max_element(counts.begin(), counts.end()) - *std::min_element(counts.begin(), counts.end()), 1)
        << family;
}

TEST(AssignFolds, DependsOnNamesAndSeedNotOrder) {
  auto files = files_of({{"mlp", 6}, {"rnn", 7}});
  const std::vector<int> a = assign_folds(files, 3, 11);
  std::vector<std::string> reversed(files.rbegin(), files.rend());
  const std::vector<int> b = assign_folds(reversed, 3, 11);
  for (size_t i = 0; i < files.size(); ++i) EXPECT_EQ(a[i], b[files.size() - 1 - i]);
  EXPECT_NE(a, assign_folds(files, 3, 12));  // another seed, another assignment
}

TEST(AssignFolds, AGraphInTwoCollectionsSitsInOneFold) {
  // xla:random and xla:default publish the same graphs under one name.
  std::vector<std::string> files = files_of({{"mlp", 5}, {"rnn", 4}});
  for (const std::string& f : files_of({{"mlp", 5}, {"rnn", 4}})) files.push_back("default/" + f);
  const std::vector<int> fold = assign_folds(files, 3, 2);
  const size_t half = files.size() / 2;
  for (size_t i = 0; i < half; ++i) EXPECT_EQ(fold[i], fold[i + half]) << files[i];
  std::map<int, int> size;
  for (size_t i = 0; i < half; ++i) ++size[fold[i]];
  EXPECT_EQ(size.size(), 3u);
  for (const auto& [f, n] : size) EXPECT_EQ(n, 3) << f;
}

TEST(AssignFolds, RefusesTooFewGraphs) {
  EXPECT_THROW(assign_folds(files_of({{"mlp", 2}}), 3, 0), Error);
  auto twice = files_of({{"mlp", 2}});
  for (const std::string& f : files_of({{"mlp", 2}})) twice.push_back("b/" + f);
  EXPECT_THROW(assign_folds(twice, 3, 0), Error);  // 4 files, 2 graphs
  EXPECT_THROW(assign_folds(files_of({{"mlp", 4}}), 1, 0), Error);
}

TEST(SplitProgramFold, FoldsPartitionTheConfigsOutsideTheHoldout) {
  const int64_t n = 103;
  const int k = 5;
  const HoldoutSplit held = split_holdout(n, 0.2, 9);
  std::set<int64_t> seen_valid;
  for (int f = 0; f < k; ++f) {
    const HoldoutSplit s = split_program_fold(n, 0.2, k, f, 9);
    EXPECT_EQ(s.holdout, held.holdout);
    std::set<int64_t> train(s.train.begin(), s.train.end());
    for (int64_t g : s.valid) {
      EXPECT_EQ(train.count(g), 0u) << "group " << g << " trains and validates in fold " << f;
      EXPECT_TRUE(seen_valid.insert(g).second) << "group " << g << " validates in two folds";
    }
    for (int64_t g : s.holdout) EXPECT_EQ(train.count(g), 0u);
    EXPECT_EQ(s.train.size() + s.valid.size() + s.holdout.size(), static_cast<size_t>(n));
    EXPECT_NEAR(static_cast<double>(s.valid.size()), static_cast<double>(held.train.size()) / k, 1.0);
  }
  EXPECT_EQ(seen_valid, std::set<int64_t>(held.train.begin(), held.train.end()));
}

TEST(SplitProgramFold, RefusesBadFolds) {
  EXPECT_THROW(split_program_fold(50, 0.2, 5, 5, 0), Error);
  EXPECT_THROW(split_program_fold(50, 0.2, 1, 0, 0), Error);
  EXPECT_THROW(split_program_fold(4, 0.2, 5, 0, 0), Error);
}

}  // namespace
}  // namespace fastslow
