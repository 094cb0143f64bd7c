// Training on a GPU (skipped without one): the step replayed as CUDA graphs
// computes what the same step launched op by op computes, and both agree
// with the CPU within float tolerance.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test_support.h"
#include "tiny_data.h"
#include "train/trainer.h"

namespace fastslow::train {
namespace {

std::vector<nlohmann::json> log_of(const std::string& run) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(run + "/log.jsonl");
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

TEST(CudaTraining, GraphsReplayWhatEagerComputesAndTheCpuAgrees) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  test::TempDir dir;
  struct Variant {
    const char* name;
    const char* device;
    int graphs;
  };
  const std::vector<Variant> variants = {{"cpu", "cpu", 0}, {"eager", "cuda", 0}, {"graphs", "cuda", 1}};
  std::vector<std::vector<nlohmann::json>> logs;
  for (const Variant& v : variants) {
    TrainOptions o = small_layout_run(dir.file(v.name));
    o.epochs = 3;
    o.steps_per_epoch = 12;
    o.device = v.device;
    o.cuda_graphs = v.graphs;
    const TrainResult r = train(o);
    ASSERT_EQ(r.reason, StopReason::Finished) << v.name << ": " << r.message;
    logs.push_back(log_of(dir.file(v.name)));
    ASSERT_EQ(logs.back().size(), 3u) << v.name;
  }
  // CUDA's index_add_ sums in no fixed order: trajectories part by float
  // noise, which training amplifies; a wrong replay (stale inputs, a
  // learning rate baked in) parts them by far more.
  for (size_t e = 0; e < 3; ++e) {
    const double cpu = logs[0][e].at("train_loss"), eager = logs[1][e].at("train_loss"),
                 graphs = logs[2][e].at("train_loss");
    std::printf("epoch %zu train loss: cpu %.6f, cuda eager %.6f, cuda graphs %.6f\n", e, cpu, eager, graphs);
    EXPECT_NEAR(graphs, eager, 2e-3 * std::abs(eager) + 1e-6) << "epoch " << e;
    EXPECT_NEAR(eager, cpu, 2e-3 * std::abs(cpu) + 1e-5) << "epoch " << e;
    EXPECT_NEAR(logs[2][e].at("score").get<double>(), logs[1][e].at("score").get<double>(), 0.02) << "epoch " << e;
  }
  // The graphs were captured and replayed, not silently turned off.
  const std::string how = logs[2].back().at("cuda_graphs");
  EXPECT_EQ(how.rfind("CUDA graphs: ", 0), 0u) << how;
  EXPECT_EQ(how.find(" 0 captured"), std::string::npos) << how;
  EXPECT_EQ(logs[1].back().at("cuda_graphs"), "eager");
}

}  // namespace
}  // namespace fastslow::train
