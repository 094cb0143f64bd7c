// `fastslow search` as a user runs it, on tiny generated data.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_run.h"
#include "test_support.h"

namespace {

using fastslow::test::run_cli;
using fastslow::test::TempDir;

std::string text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write(const std::string& path, const std::string& s) { std::ofstream(path) << s; }

size_t lines(const std::string& path) {
  size_t n = 0;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);) n += !l.empty();
  return n;
}

std::string study(const std::string& data, int trials, const std::string& hidden = "[8, 16]") {
  return "[data]\ndata = \"" + data + "\"\ncollection = \"layout:xla:random\"\n[train]\nlayers = 1\nconfigs_per_graph = 8\n"
         "[space]\nhidden = " + hidden + "\nlr = { low = 1e-3, high = 1e-2, log = true }\n"
         "[objectives]\nscore = \"maximize\"\nparams = \"minimize\"\n"
         "[search]\nsampler = \"nsga2\"\ntrials = " + std::to_string(trials) + "\n[budget]\nsteps = 4\ncheckpoints = 2\n";
}

TEST(CliSearch, RunsResumesReportsAndRefuses) {
  TempDir dir;
  const std::string data = dir.file("data");
  ASSERT_EQ(run_cli("synth --scale tiny --seed 3 --out " + data).code, 0);
  write(dir.file("s.toml"), study(data, 3));
  const std::string out = dir.file("studies/a");
  const auto r = run_cli("search --config " + dir.file("s.toml") + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("Best trial(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("trial 2 complete"), std::string::npos) << r.err;
  EXPECT_EQ(lines(out + "/trials.jsonl"), 3u);
  // Each trial says how its parameters were drawn: the page plots them so.
  const std::string first = text(out + "/trials.jsonl").substr(0, text(out + "/trials.jsonl").find('\n'));
  const nlohmann::json d = nlohmann::json::parse(first).at("distributions");
  EXPECT_EQ(d.at("lr"), (nlohmann::json{{"type", "float"}, {"low", 1e-3}, {"high", 1e-2}, {"log", true}}));
  EXPECT_EQ(d.at("hidden"), (nlohmann::json{{"type", "categorical"}, {"choices", {8, 16}}}));
  const nlohmann::json pareto = nlohmann::json::parse(text(out + "/pareto.json"));
  ASSERT_FALSE(pareto["trials"].empty());
  EXPECT_TRUE(std::filesystem::exists(out + "/" + pareto["trials"][0]["run"].get<std::string>() + "/best.pt"));

  // The same command again is refused; --resume with more trials goes on.
  const auto again = run_cli("search --config " + dir.file("s.toml") + " --out " + out);
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find("--resume"), std::string::npos) << again.err;
  write(dir.file("s.toml"), study(data, 5));
  const auto more = run_cli("search --config " + dir.file("s.toml") + " --out " + out + " --resume");
  ASSERT_EQ(more.code, 0) << more.err;
  EXPECT_EQ(lines(out + "/trials.jsonl"), 5u);
  // Another space is another study.
  write(dir.file("t.toml"), study(data, 6, "[8, 32]"));
  const auto other = run_cli("search --config " + dir.file("t.toml") + " --out " + out + " --resume");
  EXPECT_EQ(other.code, 2);
  EXPECT_NE(other.err.find("space differs"), std::string::npos) << other.err;

  const auto report = run_cli("search --report " + out + " --figures " + dir.file("fig"));
  ASSERT_EQ(report.code, 0) << report.err;
  EXPECT_NE(report.out.find("Best trial(s)"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir.file("fig/front.svg")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("fig/params.svg")));

  // A broken file names itself and the line.
  write(dir.file("bad.toml"), "[data]\ndata = \n");
  const auto bad = run_cli("search --config " + dir.file("bad.toml") + " --out " + dir.file("studies/b"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("bad.toml:2"), std::string::npos) << bad.err;
  const auto none = run_cli("search --report " + dir.file("nothing"));
  EXPECT_EQ(none.code, 2);
}

TEST(CliSearch, ParallelTrialsKeepingEveryRun) {
  TempDir dir;
  const std::string data = dir.file("data");
  ASSERT_EQ(run_cli("synth --scale tiny --seed 5 --out " + data).code, 0);
  write(dir.file("s.toml"), study(data, 4));
  const std::string out = dir.file("p");
  const auto r = run_cli("search --config " + dir.file("s.toml") + " --out " + out + " --parallel 2 --keep-all");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(out + "/trials.jsonl"), 4u);
  for (int n = 0; n < 4; ++n) EXPECT_TRUE(std::filesystem::exists(out + "/trials/" + std::to_string(n) + "/best.pt")) << n;
  EXPECT_EQ(nlohmann::json::parse(text(out + "/running.json")), nlohmann::json::object());
}

}  // namespace
