#include "fastslow/data/submission.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "test_support.h"

namespace fastslow {
namespace {

namespace fs = std::filesystem;

using test::TempDir;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

using test::error_of;

// Parses `text` named "sub.csv" and checks the error names the file and line.
void expect_parse_error(const std::string& text, int line, const std::string& part) {
  std::string msg = error_of([&] { parse_submission_csv(text, "sub.csv"); });
  ASSERT_FALSE(msg.empty()) << "no error for: " << text;
  EXPECT_NE(msg.find("sub.csv"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line " + std::to_string(line) + ":"), std::string::npos) << msg;
  EXPECT_NE(msg.find(part), std::string::npos) << msg;
}

std::vector<SubmissionRow> sample_rows() {
  return {{"tile:xla:conv_1", {4, 0, 2, 1, 3}},
          {"layout:xla:random:alexnet_train_batch_32", {2, 0, 1}},
          {"layout:nlp:default:bert_base", {0}}};
}

void expect_same(const std::vector<SubmissionRow>& a, const std::vector<SubmissionRow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].top_configs, b[i].top_configs);
  }
}

TEST(SubmissionId, BuildsAndInverts) {
  EXPECT_EQ(submission_id("layout:xla:random", "alexnet_train_batch_32"),
            "layout:xla:random:alexnet_train_batch_32");
  EXPECT_EQ(submission_id("tile:xla", "x"), "tile:xla:x");
  EXPECT_EQ(collection_of_id("layout:xla:random:alexnet_train_batch_32"),
            "layout:xla:random");
  EXPECT_EQ(collection_of_id("tile:xla:conv_1"), "tile:xla");
  EXPECT_EQ(collection_of_id("layout:nlp:default:a:b"), "layout:nlp:default");
}

TEST(SubmissionId, RejectsBadInput) {
  std::string msg = error_of([] { submission_id("layout:xla", "a"); });
  EXPECT_NE(msg.find("layout:xla:random"), std::string::npos) << msg;
  EXPECT_FALSE(error_of([] { submission_id("tile:xla", ""); }).empty());
  EXPECT_FALSE(error_of([] { submission_id("tile:xla", "a,b"); }).empty());
  EXPECT_FALSE(error_of([] { collection_of_id(""); }).empty());
  EXPECT_FALSE(error_of([] { collection_of_id("tile:xla"); }).empty());
  EXPECT_FALSE(error_of([] { collection_of_id("tile:xla:"); }).empty());
  EXPECT_FALSE(error_of([] { collection_of_id("layout:tpu:random:a"); }).empty());
  EXPECT_FALSE(error_of([] { collection_of_id("layout:xla:a"); }).empty());
}

TEST(SubmissionRow, TileRowsKeepTheBestFiveLayoutRowsEveryConfig) {
  const std::vector<int64_t> ranking = {6, 2, 0, 5, 1, 3, 4};
  const SubmissionRow tile = submission_row("tile:xla", "conv_1", ranking);
  EXPECT_EQ(tile.id, "tile:xla:conv_1");
  EXPECT_EQ(tile.top_configs, (std::vector<int64_t>{6, 2, 0, 5, 1}));
  const SubmissionRow layout = submission_row("layout:nlp:default", "bert", ranking);
  EXPECT_EQ(layout.id, "layout:nlp:default:bert");
  EXPECT_EQ(layout.top_configs, ranking);
  EXPECT_EQ(submission_row("tile:xla", "k", {3, 1}).top_configs, (std::vector<int64_t>{3, 1}));
  EXPECT_FALSE(error_of([&] { submission_row("layout:xla", "a", ranking); }).empty());
}

TEST(SubmissionCsv, Formats) {
  EXPECT_EQ(format_submission_csv(sample_rows()),
            "ID,TopConfigs\n"
            "tile:xla:conv_1,4;0;2;1;3\n"
            "layout:xla:random:alexnet_train_batch_32,2;0;1\n"
            "layout:nlp:default:bert_base,0\n");
  EXPECT_EQ(format_submission_csv({}), "ID,TopConfigs\n");
}

TEST(SubmissionCsv, FormatRejectsRowsThatWouldNotReadBack) {
  EXPECT_FALSE(error_of([] { format_submission_csv({{"tile:xla:a", {}}}); }).empty());
  EXPECT_FALSE(error_of([] { format_submission_csv({{"tile:xla:a", {1, -1}}}); }).empty());
  EXPECT_FALSE(error_of([] { format_submission_csv({{"tile:xla:a", {1, 1}}}); }).empty());
  EXPECT_FALSE(error_of([] { format_submission_csv({{"bogus:a", {1}}}); }).empty());
  EXPECT_FALSE(
      error_of([] { format_submission_csv({{"tile:xla:a", {1}}, {"tile:xla:a", {2}}}); })
          .empty());
}

TEST(SubmissionCsv, RoundTrip) {
  std::vector<SubmissionRow> rows = sample_rows();
  rows.push_back({"layout:xla:default:big", {9223372036854775807LL, 7}});
  expect_same(parse_submission_csv(format_submission_csv(rows), "x"), rows);
}

TEST(SubmissionCsv, AcceptsCrlfBomAndNoTrailingNewline) {
  std::vector<SubmissionRow> want = {{"tile:xla:a", {1, 2}}, {"tile:xla:b", {3}}};
  expect_same(parse_submission_csv("ID,TopConfigs\r\ntile:xla:a,1;2\r\ntile:xla:b,3\r\n", "x"),
              want);
  expect_same(parse_submission_csv("\xEF\xBB\xBFID,TopConfigs\ntile:xla:a,1;2\ntile:xla:b,3",
                                   "x"),
              want);
  EXPECT_TRUE(parse_submission_csv("ID,TopConfigs\n", "x").empty());
  EXPECT_TRUE(parse_submission_csv("ID,TopConfigs", "x").empty());
}

TEST(SubmissionCsv, HeaderErrors) {
  expect_parse_error("", 1, "missing header");
  expect_parse_error("\xEF\xBB\xBF", 1, "missing header");
  expect_parse_error("tile:xla:a,1\n", 1, "expected header");
  expect_parse_error("id,topconfigs\ntile:xla:a,1\n", 1, "expected header");
  expect_parse_error("ID,TopConfigs,Extra\n", 1, "expected header");
}

TEST(SubmissionCsv, FieldCountErrors) {
  expect_parse_error("ID,TopConfigs\ntile:xla:a\n", 2, "expected 2 fields");
  expect_parse_error("ID,TopConfigs\ntile:xla:a,1,2\n", 2, "expected 2 fields");
  expect_parse_error("ID,TopConfigs\ntile:xla:a,1\n\n", 3, "empty line");
  expect_parse_error("ID,TopConfigs\n\ntile:xla:a,1\n", 2, "empty line");
}

TEST(SubmissionCsv, IdErrors) {
  expect_parse_error("ID,TopConfigs\n,1;2\n", 2, "empty ID");
  expect_parse_error("ID,TopConfigs\ntile:xla:a,1\nlayout:foo:random:b,1\n", 3,
                     "known collection");
  expect_parse_error("ID,TopConfigs\ntile:xla:,1\n", 2, "empty file stem");
  expect_parse_error("ID,TopConfigs\ntile:xla:a,1\ntile:xla:a,2\n", 3, "already on line 2");
}

TEST(SubmissionCsv, IndexErrors) {
  expect_parse_error("ID,TopConfigs\ntile:xla:a,\n", 2, "no config indices");
  expect_parse_error("ID,TopConfigs\ntile:xla:a,1;x\n", 2, "not a non-negative integer");
  expect_parse_error("ID,TopConfigs\ntile:xla:a,1.5\n", 2, "not a non-negative integer");
  expect_parse_error("ID,TopConfigs\ntile:xla:a,1; 2\n", 2, "not a non-negative integer");
  expect_parse_error("ID,TopConfigs\ntile:xla:a,+2\n", 2, "not a non-negative integer");
  expect_parse_error("ID,TopConfigs\ntile:xla:a,1;-2\n", 2, "negative");
  expect_parse_error("ID,TopConfigs\ntile:xla:a,1;;2\n", 2, "empty config index");
  expect_parse_error("ID,TopConfigs\ntile:xla:a,1;\n", 2, "empty config index");
  expect_parse_error("ID,TopConfigs\ntile:xla:a,99999999999999999999\n", 2, "too large");
  expect_parse_error("ID,TopConfigs\ntile:xla:a,3;1;3\n", 2, "listed twice");
}

TEST(SubmissionFile, WriteThenRead) {
  TempDir dir;
  std::string path = dir.file("out.csv");
  write_submission_csv(path, sample_rows());
  EXPECT_TRUE(test::temp_files_beside(path).empty());
  expect_same(read_submission_csv(path), sample_rows());

  // Overwriting replaces the whole file.
  std::vector<SubmissionRow> one = {{"tile:xla:z", {5}}};
  write_submission_csv(path, one);
  expect_same(read_submission_csv(path), one);
}

TEST(SubmissionFile, BadRowLeavesExistingFileAlone) {
  TempDir dir;
  std::string path = dir.file("out.csv");
  write_submission_csv(path, sample_rows());
  EXPECT_FALSE(error_of([&] { write_submission_csv(path, {{"tile:xla:a", {}}}); }).empty());
  expect_same(read_submission_csv(path), sample_rows());
  EXPECT_TRUE(test::temp_files_beside(path).empty());
}

TEST(SubmissionFile, IoErrorsNameThePath) {
  TempDir dir;
  std::string missing = dir.file("nope/out.csv");
  std::string msg = error_of([&] { write_submission_csv(missing, sample_rows()); });
  EXPECT_NE(msg.find(missing), std::string::npos) << msg;
  msg = error_of([&] { read_submission_csv(missing); });
  EXPECT_NE(msg.find(missing), std::string::npos) << msg;
}

TEST(SubmissionFile, ReadErrorNamesFileAndLine) {
  TempDir dir;
  std::string path = dir.file("bad.csv");
  write_text(path, "ID,TopConfigs\r\ntile:xla:a,1\r\ntile:xla:b,1;1\r\n");
  std::string msg = error_of([&] { read_submission_csv(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 3:"), std::string::npos) << msg;
}

TEST(MergeSubmissions, KeepsOrderOfFiveFiles) {
  TempDir dir;
  const std::vector<std::string> collections = {"tile:xla", "layout:xla:random",
                                                "layout:xla:default", "layout:nlp:random",
                                                "layout:nlp:default"};
  std::vector<std::string> paths;
  std::vector<SubmissionRow> want;
  for (size_t c = 0; c < collections.size(); ++c) {
    std::vector<SubmissionRow> rows;
    for (int k = 0; k < 3; ++k) {
      // Stems out of alphabetical order so a sort would show.
      rows.push_back({submission_id(collections[c], "g" + std::to_string(2 - k)),
                      {int64_t(k), int64_t(c + 10)}});
    }
    paths.push_back(dir.file("part" + std::to_string(c) + ".csv"));
    write_submission_csv(paths.back(), rows);
    want.insert(want.end(), rows.begin(), rows.end());
  }
  expect_same(merge_submissions(paths), want);
}

TEST(MergeSubmissions, DuplicateIdAcrossFilesNamesBoth) {
  TempDir dir;
  std::string a = dir.file("a.csv"), b = dir.file("b.csv");
  write_text(a, "ID,TopConfigs\ntile:xla:x,1\ntile:xla:y,2\n");
  write_text(b, "ID,TopConfigs\nlayout:xla:random:z,0\ntile:xla:y,3\n");
  std::string msg = error_of([&] { merge_submissions({a, b}); });
  EXPECT_NE(msg.find(a), std::string::npos) << msg;
  EXPECT_NE(msg.find(b), std::string::npos) << msg;
  EXPECT_NE(msg.find("tile:xla:y"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 3"), std::string::npos) << msg;
}

TEST(MergeSubmissions, RejectsMalformedAndEmpty) {
  TempDir dir;
  std::string a = dir.file("a.csv"), b = dir.file("b.csv");
  write_text(a, "ID,TopConfigs\ntile:xla:x,1\n");
  write_text(b, "ID,TopConfigs\ntile:xla:y,1;oops\n");
  std::string msg = error_of([&] { merge_submissions({a, b}); });
  EXPECT_NE(msg.find(b), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 2:"), std::string::npos) << msg;
  EXPECT_FALSE(error_of([] { merge_submissions({}); }).empty());
  EXPECT_FALSE(error_of([&] { merge_submissions({dir.file("missing.csv")}); }).empty());
}

}  // namespace
}  // namespace fastslow
