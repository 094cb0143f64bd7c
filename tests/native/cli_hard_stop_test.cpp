// Hard stops: `fastslow train` killed with SIGKILL at random points (no
// handler runs, nothing is flushed or saved on the way out) and resumed
// each time ends with the weights of a run never stopped, on the same
// machine and threads; between kills the run folder and the graph cache
// stay readable.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_run.h"
#include "log_lines.h"
#include "fastslow/io/byte_source.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/io/zip.h"
#include "test_support.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using fastslow::test::run_cli;
using fastslow::test::TempDir;
using Clock = std::chrono::steady_clock;

std::string text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `fastslow ARGS` as a child process of its own (popen's shell would take
// the kill in its place), stdout and stderr into `log`.
pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> all{FASTSLOW_CLI};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  posix_spawn_file_actions_addopen(&io, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&io, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0], &io, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&io);
  EXPECT_EQ(rc, 0) << "cannot start " << argv[0];
  return rc == 0 ? pid : -1;
}

// The child's status once it has ended, or nullopt while it runs.
std::optional<int> poll_exit(pid_t pid) {
  int status = 0;
  return ::waitpid(pid, &status, WNOHANG) == pid ? std::optional<int>(status) : std::nullopt;
}

int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

std::string describe(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "exit " + std::to_string(WEXITSTATUS(status));
}

bool parses(const std::string& json) {
  try {
    return !nlohmann::json::parse(json).is_discarded();
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

bool is_temp(const std::string& name) { return name.find(".tmp") != std::string::npos; }

// Every entry of a zip (a .pt archive, a cache .npz) read whole against its CRC-32.
std::string zip_problem(const std::string& path) {
  try {
    const auto src = fastslow::open_file_source(path);
    const std::vector<fastslow::ZipEntry> entries = fastslow::read_zip_directory(*src);
    if (entries.empty()) return "no entries";
    for (const fastslow::ZipEntry& e : entries) {
      fastslow::ZipEntryStream s(*src, e, e.name);
      s.track_crc();
      s.skip(e.size);
      s.verify_end();
    }
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// What a reader finds in the run folder and the cache right after a kill:
// whole files under the final names, every one readable, and the pairs
// resume needs.
void expect_readable(const std::string& run, const std::string& cache, const std::string& when) {
  SCOPED_TRACE(when);
  if (fs::exists(run)) {
    for (const auto& e : fs::directory_iterator(run)) {
      const std::string name = e.path().filename().string(), path = e.path().string();
      if (is_temp(name)) continue;  // never read: not under a final name
      const std::string ext = e.path().extension().string();
      if (ext == ".json") {
        EXPECT_TRUE(parses(text(path))) << path;
      } else if (name == "log.jsonl") {
        const std::string log = text(path);
        EXPECT_TRUE(log.empty() || log.back() == '\n') << "a cut last line in " << path;
        std::istringstream lines(log);
        for (std::string l; std::getline(lines, l);) EXPECT_TRUE(parses(l)) << path << ": " << l;
      } else if (ext == ".pt") {
        EXPECT_EQ(zip_problem(path), "") << path;
      } else {
        ADD_FAILURE() << "unexpected file " << path;
      }
    }
    // A state without its checkpoint, or a config without its statistics,
    // could not be resumed.
    if (fs::exists(run + "/state.json")) {
      EXPECT_TRUE(fs::exists(run + "/last.pt"));
    }
    if (fs::exists(run + "/config.json")) {
      EXPECT_TRUE(fs::exists(run + "/stats.json"));
    }
  }
  if (fs::exists(cache)) {
    for (const auto& e : fs::directory_iterator(cache)) {
      const std::string name = e.path().filename().string(), path = e.path().string();
      if (is_temp(name)) continue;
      EXPECT_EQ(zip_problem(path), "") << path;
      try {  // and as the trainer reads it: arrays by name
        const fastslow::NpzReader npz = fastslow::NpzReader::open(path);
        for (const std::string& a : npz.names()) npz.read(a);
      } catch (const std::exception& ex) {
        ADD_FAILURE() << path << ": " << ex.what();
      }
    }
  }
  // The model a reader takes from a run is best.pt: `eval` loads it with LibTorch.
  if (fs::exists(run + "/best.pt") && fs::exists(run + "/config.json")) {
    const auto r = run_cli("eval --run " + run + " --json");
    EXPECT_EQ(r.code, 0) << r.err;
  }
}

std::vector<std::string> temp_files(const std::string& dir) {
  std::vector<std::string> out;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (is_temp(e.path().filename().string())) out.push_back(e.path().string());
  return out;
}

// log.jsonl without what is measured (time, memory), which no two runs share.
std::vector<nlohmann::json> log_lines(const std::string& run) {
  return fastslow::test::unmeasured_log_lines(run);
}

constexpr int kEpochs = 40, kAttempts = 8;

TEST(HardStop, KilledAndResumedRunsEndWithTheWeightsOfAnUninterruptedOne) {
  TempDir dir;
  const std::string data = dir.file("data");
  ASSERT_EQ(run_cli("synth --scale tiny --seed 3 --out " + data).code, 0);
  // A final fit (--train-on-valid) keeps its last epoch as best.pt, so
  // best.pt holds the final weights, and every epoch saves best.pt,
  // metrics.json, log.jsonl, last.pt and state.json: many moments for a
  // kill to fall in. One thread: identical float reductions in every run.
  const std::vector<std::string> args = {"train", "--data", data, "--collection", "layout:xla:random",
                                         "--train-on-valid", "--epochs", std::to_string(kEpochs),
                                         "--steps-per-epoch", "10", "--hidden", "16", "--layers", "1",
                                         "--configs-per-graph", "8", "--threads", "1", "--seed", "5"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = args;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };

  const std::string ref = dir.file("ref"), ref_cache = dir.file("ref-cache");
  const auto t0 = Clock::now();
  const int ref_status = wait_exit(spawn(with({"--out", ref, "--cache", ref_cache}), dir.file("ref.log")));
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  ASSERT_TRUE(WIFEXITED(ref_status) && WEXITSTATUS(ref_status) == 0) << text(dir.file("ref.log"));

  // Where the time goes: start-up (loading, preparing the data) and epochs.
  double trained = 0;
  {
    std::istringstream lines(text(ref + "/log.jsonl"));
    for (std::string l; std::getline(lines, l);) trained += nlohmann::json::parse(l).at("seconds").get<double>();
  }
  const double epoch_seconds = trained / kEpochs, startup = std::max(0.05, seconds - trained);

  // The cut run has a cache of its own to build. Kill 0 lands while a cache
  // file is being written; kill 1 somewhere in the start-up; kill 2 while
  // a file of the run folder is being saved (or just renamed: between two
  // files of one save); the others at drawn epochs, a drawn time into them
  // (steps, validation, saves). The
  // epochs are watched in state.json rather than timed, so the kills spread
  // over the run however loaded the machine is.
  const std::string cut = dir.file("cut"), cache = dir.file("cut-cache");
  std::mt19937 rng(20);
  std::uniform_real_distribution<double> share(0.0, 1.0);
  std::vector<int> targets;  // one in each stretch of epochs 1..kEpochs-1
  const double stretch = static_cast<double>(kEpochs - 1) / (kAttempts - 3);
  for (int i = 0; i < kAttempts - 3; ++i) targets.push_back(1 + static_cast<int>((i + share(rng)) * stretch));
  auto saved_epoch = [&] {
    if (!fs::exists(cut + "/state.json")) return -1;
    const std::string s = text(cut + "/state.json");
    EXPECT_TRUE(parses(s)) << "state.json read while training: " << s;
    return parses(s) ? nlohmann::json::parse(s).at("epoch").get<int>() : -1;
  };
  auto next = [&] {
    return fs::exists(cut + "/config.json") ? std::vector<std::string>{"train", "--resume", "--out", cut}
                                            : with({"--out", cut, "--cache", cache});
  };
  int killed = 0;
  std::string landed;  // where each attempt ended, for the log
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    // A folder with a config.json is a run to resume; before that (killed
    // preparing its data) the same command starts it afresh: --resume on
    // it is refused, naming the missing file, and writes nothing.
    if (fs::exists(cut) && !fs::exists(cut + "/config.json")) {
      const auto r = run_cli("train --resume --out " + cut);
      EXPECT_EQ(r.code, 2) << r.err;
      EXPECT_NE(r.err.find("config.json"), std::string::npos) << r.err;
      EXPECT_FALSE(fs::exists(cut + "/config.json"));
    }
    const std::string log = dir.file("attempt-" + std::to_string(attempt) + ".log");
    const pid_t pid = spawn(next(), log);
    ASSERT_GT(pid, 0);
    std::optional<int> status;
    std::string aim;
    auto wait_until = [&](auto done) {
      while (!(status = poll_exit(pid)) && !done()) std::this_thread::sleep_for(std::chrono::microseconds(500));
    };
    auto wait_for = [&](double s) {
      const auto until = Clock::now() + std::chrono::duration<double>(s);
      wait_until([&] { return Clock::now() >= until; });
    };
    if (attempt == 0) {
      aim = "a cache write";  // its temporary name shows
      wait_until([&] { return !temp_files(cache).empty() || fs::exists(cut + "/config.json"); });
      if (temp_files(cache).empty()) aim += " (missed: built before it was seen)";
    } else if (attempt == 1) {
      const double d = share(rng) * startup * 0.5;  // rather early: often before the run has a config.json
      aim = std::to_string(static_cast<int>(d * 1000)) + " ms into start-up";
      wait_for(d);
    } else if (attempt == 2) {
      aim = "a save in the run folder";  // a temporary name shows: a file is being written
      wait_until([&] { return !temp_files(cut).empty(); });
      // Listed once: the file seen a moment ago may have been renamed since.
      const std::vector<std::string> seen = temp_files(cut);
      if (!status) aim += " (" + (seen.empty() ? std::string("?") : fs::path(seen.front()).filename().string()) + ")";
    } else {
      const int target = targets[static_cast<size_t>(attempt - 3)];
      const double d = share(rng) * epoch_seconds;
      aim = "epoch " + std::to_string(target) + " + " + std::to_string(static_cast<int>(d * 1000)) + " ms";
      wait_until([&] { return saved_epoch() >= target; });
      wait_for(d);
    }
    if (!status) {
      ::kill(pid, SIGKILL);
      status = wait_exit(pid);
    }
    if (WIFSIGNALED(*status)) {
      EXPECT_EQ(WTERMSIG(*status), SIGKILL);
      ++killed;
    } else {  // finished before the kill: a kill after the end
      EXPECT_EQ(WEXITSTATUS(*status), 0) << text(log);
    }
    expect_readable(cut, cache, "after attempt " + std::to_string(attempt) + " (" + describe(*status) + ")");
    landed += "\n  aimed at " + aim + ": " + (WIFSIGNALED(*status) ? "killed" : "ended") + ", saved " +
              (!fs::exists(cut + "/config.json") ? std::string("nothing")
               : saved_epoch() < 0               ? std::string("its config, no checkpoint yet")
                                                 : "epoch " + std::to_string(saved_epoch()));
    const size_t temps = temp_files(cut).size() + temp_files(cache).size();
    if (temps > 0) landed += ", " + std::to_string(temps) + " temporary file(s) left";
  }
  std::fprintf(stderr, "uninterrupted run %.2f s (start-up %.2f s, %.0f ms an epoch)%s\n", seconds, startup,
               epoch_seconds * 1000, landed.c_str());
  // The draws must have cut the run several times, or it proved nothing.
  EXPECT_GE(killed, kAttempts - 3);

  // To the end, then once more: a finished run resumed changes nothing.
  for (int i = 0; i < 2; ++i) {
    const int status = wait_exit(spawn(next(), dir.file("end.log")));
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << text(dir.file("end.log"));
  }
  expect_readable(cut, cache, "after the end");
  // Nothing left behind by the kills either.
  EXPECT_EQ(temp_files(cut), std::vector<std::string>{});
  EXPECT_EQ(temp_files(cache), std::vector<std::string>{});

  // The final weights: best.pt (the last epoch's model, see above) is
  // written by LibTorch from the model alone, byte for byte the same for
  // equal tensors (two uninterrupted runs give identical files), so equal
  // bytes mean equal weights. last.pt is not compared as bytes: it also
  // holds AdamW's state, which LibTorch keys by tensor address and lays
  // out in that hash's order, so two uninterrupted runs already differ
  // there. What it holds shows in every epoch after a resume instead: the
  // train losses and scores of the log, and these final weights.
  EXPECT_TRUE(text(ref + "/best.pt") == text(cut + "/best.pt")) << "best.pt differs";
  EXPECT_EQ(nlohmann::json::parse(text(ref + "/metrics.json")), nlohmann::json::parse(text(cut + "/metrics.json")));
  EXPECT_EQ(nlohmann::json::parse(text(ref + "/state.json")), nlohmann::json::parse(text(cut + "/state.json")));
  // Every epoch once, with the same train loss and validation scores.
  const std::vector<nlohmann::json> a = log_lines(ref), b = log_lines(cut);
  ASSERT_EQ(a.size(), static_cast<size_t>(kEpochs));
  ASSERT_EQ(b.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << "log line " << i;
}

}  // namespace
