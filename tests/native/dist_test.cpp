// Data-parallel training through the CLI, as a user runs it: `--nproc 2`
// on loopback (gloo), compared with one process that averages the same
// graphs' gradients per step (--graphs-per-step 2).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli_run.h"
#include "tiny_data.h"
#include "train/loaded_run.h"
#include "train/run_dir.h"

namespace fastslow::train {
namespace {

using test::run_cli;

std::string run_args(const std::string& out, int epochs = 2) {
  return "train --data " + tiny_data() + " --collection layout:xla:random --hidden 32 --layers 2 --epochs " +
         std::to_string(epochs) + " --steps-per-epoch 6 --configs-per-graph 16 --threads 1 --seed 5 --out " + out;
}

// The weights and AdamW state a run left in last.pt.
std::vector<torch::Tensor> last_weights(const std::string& run) {
  LoadedRun r = load_run(run, "cpu");
  torch::optim::AdamW opt(r.model->trained_parameters(), torch::optim::AdamWOptions(1e-3));
  RunDir(run).load_checkpoint(*r.model, opt, "last.pt");
  std::vector<torch::Tensor> out;
  for (const torch::Tensor& p : r.model->parameters()) out.push_back(p.detach().clone());
  return out;
}

double max_difference(const std::vector<torch::Tensor>& a, const std::vector<torch::Tensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    worst = std::max(worst, (a[i] - b[i]).abs().max().item<double>());
  return worst;
}

size_t log_lines(const std::string& run) {
  std::ifstream f(run + "/log.jsonl");
  size_t n = 0;
  for (std::string line; std::getline(f, line);) ++n;
  return n;
}

// Starts `fastslow ARGS` without waiting; extra environment first.
pid_t spawn(const std::string& args, const std::vector<std::pair<std::string, std::string>>& env,
            const std::string& err_file) {
  const pid_t pid = fork();
  if (pid == 0) {
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    const std::string cmd = std::string(FASTSLOW_CLI) + " " + args + " >/dev/null 2>" + err_file;
    execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// The exit status of `pid`, or -1 when it is still running after `limit`.
int wait_for(pid_t pid, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return -1;
}

bool wait_until(const std::function<bool()>& ready, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

int free_port() {
  // A port from the ephemeral range unlikely to clash between test runs.
  return 20000 + static_cast<int>(getpid() % 20000);
}

TEST(DataParallel, TwoProcessesMatchOneAveragingTheSameGraphs) {
  test::TempDir dir;
  const std::string two = dir.file("two"), one = dir.file("one");
  const test::CliResult a = run_cli(run_args(two) + " --nproc 2");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_NE(a.err.find("data-parallel: 2 processes"), std::string::npos) << a.err;
  const test::CliResult b = run_cli(run_args(one) + " --graphs-per-step 2");
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(load_run_options(two).graphs_per_step.value_or(0), 2);
  const double diff = max_difference(last_weights(two), last_weights(one));
  std::fprintf(stderr, "largest weight difference, 2 processes vs 1 accumulating: %.3g\n", diff);
  EXPECT_LT(diff, 1e-5);
  // Small buckets: many all-reduces, started while backward runs, in order.
  const std::string buckets = dir.file("buckets");
  const test::CliResult c = run_cli(run_args(buckets) + " --nproc 2 --bucket-mb 0.01");
  ASSERT_EQ(c.code, 0) << c.err;
  const double diff_buckets = max_difference(last_weights(buckets), last_weights(one));
  std::fprintf(stderr, "largest weight difference, 2 processes in 10 KB buckets vs 1 accumulating: %.3g\n",
               diff_buckets);
  EXPECT_LT(diff_buckets, 1e-5);
  // Not trivially equal: a run of one graph per step ends elsewhere.
  const std::string single = dir.file("single");
  ASSERT_EQ(run_cli(run_args(single)).code, 0);
  const double apart = max_difference(last_weights(single), last_weights(one));
  std::fprintf(stderr, "largest weight difference, 1 graph per step vs 2: %.3g\n", apart);
  EXPECT_GT(apart, 1e-3);
  // Rank 0 alone wrote the folder, and validation covered every valid graph.
  EXPECT_EQ(log_lines(two), 2u);
  const nlohmann::json m = RunDir(two).read_json("metrics.json");
  const nlohmann::json m1 = RunDir(one).read_json("metrics.json");
  EXPECT_EQ(m["graphs"].size(), m1["graphs"].size());
  EXPECT_NEAR(m["score"].get<double>(), m1["score"].get<double>(), 1e-4);
}

TEST(DataParallel, ResumesATwoProcessRunInOneProcess) {
  test::TempDir dir;
  const std::string two = dir.file("two"), one = dir.file("one");
  ASSERT_EQ(run_cli(run_args(one, 6) + " --graphs-per-step 2").code, 0);
  const std::string err = dir.file("launcher.err");
  const pid_t launcher = spawn(run_args(two, 6) + " --nproc 2", {}, err);
  // Ctrl-C once the first epoch is logged: every worker saves and stops.
  ASSERT_TRUE(wait_until([&] { return log_lines(two) >= 1; }, std::chrono::seconds(120))) << read_text(err);
  kill(launcher, SIGINT);
  const int code = wait_for(launcher, std::chrono::seconds(60));
  ASSERT_TRUE(code == 130 || code == 0) << code << read_text(err);
  if (code == 0) GTEST_SKIP() << "the run finished before Ctrl-C reached it";
  EXPECT_LT(log_lines(two), 6u);
  const test::CliResult r = run_cli("train --resume --out " + two);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(log_lines(two), 6u);
  const double diff = max_difference(last_weights(two), last_weights(one));
  std::fprintf(stderr, "largest weight difference, resumed in 1 process vs uninterrupted: %.3g\n", diff);
  EXPECT_LT(diff, 1e-5);
}

TEST(DataParallel, AKilledRankEndsTheRunWithAnError) {
  test::TempDir dir;
  const std::string out = dir.file("run");
  const std::string port = std::to_string(free_port());
  std::vector<pid_t> ranks;
  for (int r = 0; r < 2; ++r)
    ranks.push_back(spawn(run_args(out, 50) + " --dist-timeout 5",
                          {{"RANK", std::to_string(r)}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", std::to_string(r)},
                           {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port}},
                          dir.file("err" + std::to_string(r))));
  ASSERT_TRUE(wait_until([&] { return log_lines(out) >= 1; }, std::chrono::seconds(120)))
      << read_text(dir.file("err0"));
  kill(ranks[1], SIGKILL);
  waitpid(ranks[1], nullptr, 0);
  const auto t0 = std::chrono::steady_clock::now();
  const int code = wait_for(ranks[0], std::chrono::seconds(30));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(code, 2) << read_text(dir.file("err0"));
  std::fprintf(stderr, "rank 0 stopped %.1f s after rank 1 was killed\n", took);
  EXPECT_LT(took, 20.0);
  EXPECT_NE(read_text(dir.file("err0")).find("rank 0 of 2"), std::string::npos) << read_text(dir.file("err0"));
  // What was saved survives: the run resumes (in one process, accumulating).
  ASSERT_TRUE(RunDir(out).has("state.json"));
  const test::CliResult r = run_cli("train --resume --out " + out + " --epochs 2");
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST(DataParallel, TheLauncherNamesAWorkerThatDied) {
  test::TempDir dir;
  const std::string out = dir.file("run");
  const std::string err = dir.file("launcher.err");
  const pid_t launcher = spawn(run_args(out, 50) + " --nproc 2 --dist-timeout 5", {}, err);
  ASSERT_TRUE(wait_until([&] { return log_lines(out) >= 1; }, std::chrono::seconds(120))) << read_text(err);
  // Either worker: the launcher names whichever died.
  const std::string children =
      read_text("/proc/" + std::to_string(launcher) + "/task/" + std::to_string(launcher) + "/children");
  std::istringstream in(children);
  pid_t first = 0, second = 0;
  in >> first >> second;
  ASSERT_GT(second, 0) << children;
  kill(second, SIGKILL);
  const int code = wait_for(launcher, std::chrono::seconds(40));
  EXPECT_EQ(code, 2) << read_text(err);
  EXPECT_NE(read_text(err).find(" of 2 was killed by signal 9"), std::string::npos) << read_text(err);
}

// A launcher killed outright cannot pass Ctrl-C on: its workers get SIGTERM
// from the kernel and stop, saved, instead of training on unattended.
TEST(DataParallel, WorkersStopWhenTheLauncherIsKilled) {
  test::TempDir dir;
  const std::string out = dir.file("run");
  const std::string err = dir.file("launcher.err");
  const pid_t launcher = spawn(run_args(out, 100000) + " --nproc 2", {}, err);  // hours: it must be stopped
  ASSERT_TRUE(wait_until([&] { return log_lines(out) >= 1; }, std::chrono::seconds(120))) << read_text(err);
  std::istringstream in(
      read_text("/proc/" + std::to_string(launcher) + "/task/" + std::to_string(launcher) + "/children"));
  std::vector<pid_t> workers;
  for (pid_t p = 0; in >> p;) workers.push_back(p);
  ASSERT_EQ(workers.size(), 2u);
  kill(launcher, SIGKILL);
  waitpid(launcher, nullptr, 0);
  // Orphans are reaped by init (or a subreaper), not by this test: watch
  // /proc for them to go, zombies counting as gone.
  const auto gone = [](pid_t p) {
    const std::string stat = read_text("/proc/" + std::to_string(p) + "/stat");
    const size_t paren = stat.rfind(')');
    return stat.empty() || (paren != std::string::npos && stat.compare(paren + 2, 1, "Z") == 0);
  };
  EXPECT_TRUE(wait_until([&] { return gone(workers[0]) && gone(workers[1]); }, std::chrono::seconds(30)))
      << "workers still running after the launcher was killed";
  for (pid_t p : workers)
    if (!gone(p)) kill(p, SIGKILL);
  EXPECT_TRUE(RunDir(out).has("state.json"));  // rank 0 saved where it stopped
}

// Under torchrun the agent hosts the store and every worker is a client
// with its keys under /worker/attempt_N (Debian's torchrun 1.13 fails on
// Python 3.11 before starting workers, so PyTorch's own TCPStore stands in
// for the agent here).
TEST(DataParallel, WorkersUseATorchrunAgentsStore) {
  if (const std::string why = test::python_torch_skip_reason(); !why.empty()) GTEST_SKIP() << why;
  test::TempDir dir;
  const std::string out = dir.file("run");
  const std::string port = std::to_string(free_port() + 1);
  const pid_t agent = fork();
  if (agent == 0) {
    const std::string script = "import torch.distributed as d, datetime, time\n"
                               "s = d.TCPStore('127.0.0.1', " + port +
                               ", 2, True, datetime.timedelta(seconds=60), wait_for_workers=False)\n"
                               "time.sleep(120)\n";
    execl("/usr/bin/python3", "python3", "-c", script.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));  // python3 importing torch
  std::vector<pid_t> ranks;
  for (int r = 0; r < 2; ++r)
    ranks.push_back(spawn(run_args(out, 1),
                          {{"RANK", std::to_string(r)}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", std::to_string(r)},
                           {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", port},
                           {"TORCHELASTIC_USE_AGENT_STORE", "True"}, {"TORCHELASTIC_RESTART_COUNT", "0"}},
                          dir.file("err" + std::to_string(r))));
  EXPECT_EQ(wait_for(ranks[0], std::chrono::seconds(120)), 0) << read_text(dir.file("err0"));
  EXPECT_EQ(wait_for(ranks[1], std::chrono::seconds(30)), 0) << read_text(dir.file("err1"));
  kill(agent, SIGKILL);
  waitpid(agent, nullptr, 0);
  EXPECT_EQ(log_lines(out), 1u);
  EXPECT_NE(read_text(dir.file("err0")).find("data-parallel: 2 processes"), std::string::npos);
}

TEST(DataParallel, RefusesBadLaunchSettings) {
  test::TempDir dir;
  const test::CliResult a = test::run_cli_after("RANK=0 ", run_args(dir.file("a")));
  EXPECT_EQ(a.code, 2);
  EXPECT_NE(a.err.find("WORLD_SIZE"), std::string::npos) << a.err;
  const test::CliResult b = test::run_cli_after("RANK=3 WORLD_SIZE=2 ", run_args(dir.file("b")));
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.err.find("RANK='3'"), std::string::npos) << b.err;
  const test::CliResult c = run_cli(run_args(dir.file("c")) + " --nproc 2 --seeds 2");
  EXPECT_EQ(c.code, 2);
  EXPECT_NE(c.err.find("--nproc with --folds or --seeds"), std::string::npos) << c.err;
  // A run of 2 graphs per step cannot be shared by 3 processes.
  ASSERT_EQ(run_cli(run_args(dir.file("d"), 1) + " --graphs-per-step 2").code, 0);
  const test::CliResult d = run_cli("train --resume --out " + dir.file("d") + " --epochs 2 --nproc 3");
  EXPECT_EQ(d.code, 2);
  EXPECT_NE(d.err.find("cannot share evenly"), std::string::npos) << d.err;
}

}  // namespace
}  // namespace fastslow::train
