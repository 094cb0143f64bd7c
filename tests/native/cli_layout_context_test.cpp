// A model trained on an older layout context (LayoutContext::kVersion) is
// refused wherever it would score or train, naming the file that records
// it; models that do not read the context are not held to it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_run.h"
#include "test_support.h"

namespace {

using fastslow::test::run_cli;

nlohmann::json read_json(const std::string& path) {
  const std::vector<uint8_t> bytes = fastslow::test::read_bytes(path);
  return nlohmann::json::parse(std::string(bytes.begin(), bytes.end()));
}

void write_json(const std::string& path, const nlohmann::json& j) { std::ofstream(path) << j.dump(2); }

// As a run or card written before versions were recorded.
void forget_version(const std::string& path, bool card) {
  nlohmann::json j = read_json(path);
  ASSERT_EQ((card ? j["normalization"] : j).erase("layout_context"), 1u) << path;
  write_json(path, j);
}

void expect_refused(const fastslow::test::CliResult& r, const std::string& file) {
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("records no layout-context version"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("train it again"), std::string::npos) << r.err;
}

TEST(CliLayoutContext, AnOlderVersionIsRefusedWhereverTheModelWouldReadIt) {
  fastslow::test::TempDir dir;
  const std::string data = dir.file("data");
  ASSERT_EQ(run_cli("synth --scale tiny --seed 3 --collection layout:xla:random --out " + data).code, 0);
  const std::string base = "train --data " + data + " --collection layout:xla:random --epochs 1 --steps-per-epoch 3 "
                           "--hidden 16 --layers 1";
  const std::string old = dir.file("old");
  const fastslow::test::CliResult t = run_cli(base + " --out " + old);
  ASSERT_EQ(t.code, 0) << t.err;
  ASSERT_EQ(read_json(old + "/config.json").at("model"), "focus");  // the default reads the context
  EXPECT_EQ(read_json(old + "/stats.json").at("layout_context"), 2);
  ASSERT_EQ(run_cli("export --run " + old + " -o " + dir.file("model")).code, 0);
  EXPECT_EQ(read_json(dir.file("model/model.json")).at("normalization").at("layout_context"), 2);
  std::string graph;
  for (const auto& f : std::filesystem::directory_iterator(data + "/npz/layout/xla/random/valid"))
    if (graph.empty() || f.path().string() < graph) graph = f.path().string();
  ASSERT_FALSE(graph.empty());
  const fastslow::test::CliResult ranked = run_cli("rank --model " + dir.file("model") + " " + graph);
  ASSERT_EQ(ranked.code, 0) << ranked.err;

  // A child of it (--init) takes its statistics, and so its version.
  const fastslow::test::CliResult child = run_cli(base + " --init " + old + " --out " + dir.file("child"));
  ASSERT_EQ(child.code, 0) << child.err;
  EXPECT_EQ(read_json(dir.file("child/stats.json")).at("layout_context"), 2);

  forget_version(old + "/stats.json", false);
  forget_version(dir.file("model/model.json"), true);
  expect_refused(run_cli("eval --run " + old), old + "/stats.json");
  expect_refused(run_cli("export --run " + old + " -o " + dir.file("again")), old + "/stats.json");
  expect_refused(run_cli(base + " --init " + old + " --out " + dir.file("child2")), old + "/stats.json");
  expect_refused(run_cli("distill --data " + data + " --collection layout:xla:random --epochs 1 --steps-per-epoch 2 "
                         "--teacher " + old + " --out " + dir.file("student")),
                 old + "/stats.json");
  expect_refused(run_cli("train --resume --out " + old + " --epochs 2"), old + "/stats.json");
  expect_refused(run_cli("rank --model " + dir.file("model") + " " + graph), dir.file("model/model.json"));

  // sage reads no context: a run without the record still loads.
  const std::string sage = dir.file("sage");
  ASSERT_EQ(run_cli(base + " --model sage --out " + sage).code, 0);
  forget_version(sage + "/stats.json", false);
  const fastslow::test::CliResult e = run_cli("eval --run " + sage);
  EXPECT_EQ(e.code, 0) << e.err;
}

}  // namespace
