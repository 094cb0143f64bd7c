// The CLI as a user runs it: a real process, exit codes, stdout/stderr.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.h"

namespace {

struct Result {
  int code;
  std::string out, err;
};

Result run(const std::string& args) {
  fastslow::test::TempDir dir;
  const std::string err_path = dir.file("stderr");
  FILE* p = popen((std::string(FASTSLOW_CLI) + " " + args + " 2>" + err_path).c_str(), "r");
  Result r{-1, "", ""};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const std::vector<uint8_t> e = fastslow::test::read_bytes(err_path);
  r.err.assign(e.begin(), e.end());
  return r;
}

}  // namespace

TEST(CliInfo, JsonOnTheRealSample) {
  const Result r = run("info " + fastslow::test::shared_data("cleaned_alexnet.npz") + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("kind"), "layout");
  EXPECT_EQ(j.at("nodes"), 372);
  EXPECT_EQ(j.at("edges"), 597);
  EXPECT_EQ(j.at("configurable_nodes"), 26);
  EXPECT_EQ(j.at("configs"), 47712);
  EXPECT_EQ(j.at("unique_configs"), 29905);
  EXPECT_EQ(j.at("node_feat_width"), 70);
  EXPECT_EQ(j.at("config_feat_width"), 10);
  EXPECT_LT(j.at("runtime_min").get<double>(), j.at("runtime_max").get<double>());
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(CliInfo, TextOnTheRealSample) {
  const Result r = run("info " + fastslow::test::shared_data("cleaned_alexnet.npz"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("unique configs      29905"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("validation          ok"), std::string::npos) << r.out;
}

TEST(CliInfo, BadFileExitsTwoWithTheFileNamed) {
  fastslow::test::TempDir dir;
  const std::vector<uint8_t> real = fastslow::test::read_bytes(fastslow::test::shared_data("cleaned_alexnet.npz"));
  const std::string cut = dir.file("cut.npz");
  fastslow::test::write_bytes(cut, std::vector<uint8_t>(real.begin(), real.begin() + real.size() / 2));
  const std::string text = dir.file("notes.npz");
  fastslow::test::write_bytes(text, {'h', 'e', 'l', 'l', 'o'});
  for (const std::string& f : {cut, text, dir.file("missing.npz")}) {
    const Result r = run("info " + f + " --json");
    EXPECT_EQ(r.code, 2) << f;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find(f), std::string::npos) << r.err;
  }
}

TEST(CliInfo, HelpExplainsItself) {
  Result r = run("--help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("info"), std::string::npos);
  r = run("info --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--json"), std::string::npos);
  EXPECT_NE(r.out.find("FILE"), std::string::npos);
  r = run("info");  // FILE missing: a usage error, not a crash
  EXPECT_EQ(r.code, 1);
  EXPECT_FALSE(r.err.empty());
  r = run("frobnicate");
  EXPECT_EQ(r.code, 1);
}

TEST(CliSynth, WritesATinyDatasetThatInfoReads) {
  fastslow::test::TempDir dir;
  const std::string out = dir.file("d");
  Result r = run("synth --out " + out + " --scale tiny --seed 3");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("synth"), std::string::npos);  // progress goes to stderr
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(out + "/npz")) {
    if (e.path().extension() != ".npz") continue;
    const Result info = run("info " + e.path().string() + " --json");
    ASSERT_EQ(info.code, 0) << info.err;
    EXPECT_TRUE(nlohmann::json::parse(info.out).at("valid").get<bool>()) << e.path();
    ++files;
  }
  EXPECT_EQ(files, 30u);
  // Same options again: everything is there already.
  r = run("synth --out " + out + " --scale tiny --seed 3");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("already there"), std::string::npos) << r.err;
  // Other options on the same folder: refused, the folder named.
  r = run("synth --out " + out + " --scale tiny --seed 4");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(out), std::string::npos) << r.err;
  r = run("synth --out " + out + " --scale huge");
  EXPECT_EQ(r.code, 1);
}
