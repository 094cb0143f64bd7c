// The C++ side of the training-step benchmark (bench/train_step_bench.py is
// the driver and PyTorch the reference): a layout model (default: the
// default, focus) on a generated layout-sized graph, forward + backward +
// AdamW per step.
//   fastslow_bench_train_step OUT.npz [--model focus|attn] [--threads T] [--steps N] [--warmup W]
//                             [--nodes N] [--configurable K] [--batch B]
//                             [--hidden H] [--layers L] [--keep-memory 0|1]
//                             [--dense 0|1]  (1: every node x every config,
//                                             no shared rows for far nodes)
//                             [--profile TRACE.json]
//                             [--device cpu|cuda] [--engine torch|fastslow]
// --engine torch: torch::optim::AdamW, the loss read back every step (the
// plain LibTorch loop); fastslow: the trainer's step (train/step_engine.h's
// parts: FlatAdamW, clipping, the masked update, CUDA graphs on a GPU),
// nothing read back between timed blocks. On a GPU each timed block of
// steps ends with one synchronisation.
// Writes the graph, the first batch, its targets and the initial weights to
// OUT.npz; prints one JSON object: first-step loss, seconds per step, configs/s.
#include <ATen/Parallel.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fastslow/features/layout_context.h"
#include "fastslow/io/npz_writer.h"
#include "models/layout_attn.h"
#include "models/registry.h"
#include "models/model.h"
#include "models/graph_tensors.h"
#include "train/flat_adamw.h"
#include "train/step_graphs.h"

using namespace fastslow;

namespace {

struct Args {
  std::string out, profile;  // profile: a chrome trace of two timed steps
  std::string model = "focus";
  std::string device = "cpu", engine = "torch";
  int threads = 1, steps = 15, warmup = 2, keep_memory = 1, dense = 0;
  int64_t nodes = 5000, configurable = 300, batch = 16, hidden = 64, layers = 3;
  int64_t feat = 140, config_width = 18;
};

Args parse(int argc, char** argv) {
  Args a;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.npz [--model focus|attn] [--threads T] [--steps N] [--warmup W] [--nodes N] "
                 "[--configurable K] [--batch B] [--hidden H] [--layers L] [--keep-memory 0|1] "
                 "[--dense 0|1] [--profile TRACE.json] [--device cpu|cuda] [--engine torch|fastslow]\n", argv[0]);
    std::exit(1);
  }
  a.out = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const bool text = k == "--profile" || k == "--model" || k == "--device" || k == "--engine";
    const long long v = text ? 0 : std::stoll(argv[i + 1]);
    if (k == "--threads") a.threads = static_cast<int>(v);
    else if (k == "--steps") a.steps = static_cast<int>(v);
    else if (k == "--warmup") a.warmup = static_cast<int>(v);
    else if (k == "--nodes") a.nodes = v;
    else if (k == "--configurable") a.configurable = v;
    else if (k == "--batch") a.batch = v;
    else if (k == "--hidden") a.hidden = v;
    else if (k == "--layers") a.layers = v;
    else if (k == "--profile") a.profile = argv[i + 1];
    else if (k == "--model") a.model = argv[i + 1];
    else if (k == "--device") a.device = argv[i + 1];
    else if (k == "--engine") a.engine = argv[i + 1];
    else if (k == "--keep-memory") a.keep_memory = static_cast<int>(v);
    else if (k == "--dense") a.dense = static_cast<int>(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      std::exit(1);
    }
  }
  return a;
}

std::vector<float> floats(const torch::Tensor& t) {
  auto c = t.detach().to(torch::kFloat32).contiguous();
  return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

std::vector<int64_t> shape_of(const torch::Tensor& t) { return t.sizes().vec(); }

// A layout context with plausible values (fastslow/layout_context.h): rank 2
// to 4 tensors with sizes around the TPU's tile edges, some size-1 dims,
// row-major or permuted built layouts, a third of the operands produced by
// another configurable node.
std::vector<float> random_context(std::mt19937& rng, int64_t nc) {
  using C = LayoutContext;
  const std::vector<float> sizes = {1, 3, 8, 16, 64, 100, 128, 224, 256, 512};
  std::vector<float> ctx(static_cast<size_t>(nc * C::kWidth), -1.0f);
  for (int64_t i = 0; i < nc; ++i) {
    float* row = ctx.data() + i * C::kWidth;
    for (int t = 0; t < 3; ++t) {
      float* block = row + t * C::kTensorWidth;
      const int rank = t == 2 && rng() % 3 == 0 ? 0 : 2 + static_cast<int>(rng() % 3);
      std::vector<int> perm(static_cast<size_t>(rank));
      for (int d = 0; d < rank; ++d) perm[static_cast<size_t>(d)] = rank - 1 - d;
      if (rng() % 2) std::shuffle(perm.begin(), perm.end(), rng);
      for (int s = 0; s < C::kSlots; ++s) {
        block[C::kDims + s] = s < rank ? sizes[rng() % sizes.size()] : 0.0f;
        block[C::kLayout + s] = s < rank ? static_cast<float>(perm[static_cast<size_t>(s)]) : -1.0f;
      }
      block[C::kBits] = rank ? 32.0f : 0.0f;
      for (int k : {C::kPrefer0, C::kPrefer1, C::kAvoid})
        block[k] = rank && rng() % 2 ? static_cast<float>(rng() % static_cast<unsigned>(rank)) : -1.0f;
    }
    row[C::kInProducer] = i > 0 && rng() % 3 == 0 ? static_cast<float>(rng() % i) : -1.0f;
    row[C::kKernelProducer] = i > 0 && rng() % 3 == 0 ? static_cast<float>(rng() % i) : -1.0f;
  }
  return ctx;
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  at::set_num_threads(a.threads);
  if (a.keep_memory) models::keep_freed_cpu_memory();
  torch::manual_seed(0);

  // A random DAG shaped like an HLO graph: each node reads one or two
  // earlier nodes, mostly recent ones (~1.5 edges per node).
  std::mt19937 rng(42);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<double> unit(0, 1);
  const int64_t n = a.nodes;
  std::vector<float> feat(n * a.feat);
  for (auto& f : feat) f = normal(rng);
  std::vector<int32_t> opcode(n);
  for (auto& o : opcode) o = static_cast<int32_t>(rng() % 121);
  std::vector<int64_t> edges;
  for (int64_t u = 1; u < n; ++u) {
    const int k = unit(rng) < 0.5 ? 2 : 1;
    for (int j = 0; j < k; ++j) {
      const int64_t back = 1 + static_cast<int64_t>(std::min<double>(u - 1, -std::log(1 - unit(rng)) * 20));
      edges.push_back(u);
      edges.push_back(u - back);
    }
  }
  std::set<int64_t> picked;
  while (static_cast<int64_t>(picked.size()) < std::min(a.configurable, n)) picked.insert(rng() % n);
  const std::vector<int64_t> config_nodes(picked.begin(), picked.end());
  auto g = models::make_graph_tensors(n, a.feat, feat, opcode, edges, config_nodes);
  const auto nc = static_cast<int64_t>(config_nodes.size());
  const std::vector<float> context = random_context(rng, nc);
  models::set_config_context(g, context, LayoutContext::kWidth);

  models::ModelOptions o;
  o.kind = "layout";
  o.name = a.model;
  o.node_feat_width = a.feat;
  o.config_feat_width = a.config_width;
  o.hidden = a.hidden;
  o.layers = a.layers;
  auto model = models::make_model(o);
  auto attn = std::dynamic_pointer_cast<models::LayoutAttnImpl>(model);
  if (a.dense && !attn) {
    std::fprintf(stderr, "--dense 1 is an attn option\n");
    return 1;
  }
  auto forward = [&](const torch::Tensor& c) { return a.dense ? attn->forward_dense(g, c) : model->forward(g, c); };

  auto configs = torch::randint(-1, 6, {a.batch, nc, a.config_width}, torch::kFloat32);
  auto target = torch::randn({a.batch});

  {
    NpzWriter w(a.out, Compression::Stored);
    w.add("node_feat", feat, {n, a.feat});
    w.add("node_opcode", opcode, {n});
    w.add("edge_index", edges, {static_cast<int64_t>(edges.size() / 2), 2});
    w.add("config_nodes", config_nodes, {nc});
    w.add("config_context", context, {nc, LayoutContext::kWidth});
    w.add("configs", floats(configs), shape_of(configs));
    w.add("target", floats(target), shape_of(target));
    for (const auto& p : model->named_parameters()) w.add("param/" + p.key(), floats(p.value()), shape_of(p.value()));
    w.close();
  }

  const torch::Device device(a.device);
  model->to(device);
  g = g.to(device);
  configs = configs.to(device);
  target = target.to(device);
  auto sync = [&] {
    if (device.is_cuda()) torch::zeros({1}, torch::TensorOptions().device(device)).cpu();
  };
  double loss0 = 0;
  std::vector<double> secs;
  int64_t params = 0;
  for (const auto& p : model->parameters()) params += p.numel();
  std::function<void()> train_step;
  std::unique_ptr<torch::optim::AdamW> torch_opt;
  std::unique_ptr<train::FlatAdamW> flat;
  std::unique_ptr<train::StepGraphs> graphs;
  std::unique_ptr<train::DeviceStream> stream;
  torch::Tensor step_loss;
  if (a.engine == "torch") {
    torch_opt = std::make_unique<torch::optim::AdamW>(model->parameters(), torch::optim::AdamWOptions(1e-3).weight_decay(0.01));
    train_step = [&] {
      model->zero_grad(true);
      auto loss = torch::mse_loss(forward(configs), target);
      loss.backward();
      torch_opt->step();
      if (loss0 == 0) loss0 = loss.item<double>();
    };
  } else if (a.engine == "fastslow") {
    stream = std::make_unique<train::DeviceStream>(device);
    flat = std::make_unique<train::FlatAdamW>(model->parameters(), torch::optim::AdamWOptions(1e-3).weight_decay(0.01));
    graphs = train::make_step_graphs(device, true, [](const std::string& m) { std::fprintf(stderr, "%s\n", m.c_str()); });
    step_loss = torch::zeros({}, torch::TensorOptions(torch::kFloat64).device(device));
    train_step = [&] {
      graphs->run("fb", [&] { step_loss.add_(torch::mse_loss(forward(configs), target).detach()); });
      if (loss0 == 0) loss0 = step_loss.item<double>();
      graphs->run("update", [&] {
        torch::NoGradGuard no_grad;
        const torch::Tensor norm = flat->clip_grad_norm(1.0);
        flat->step_if(torch::isfinite(step_loss).logical_and(torch::isfinite(norm)));
        step_loss.zero_();
        flat->zero_grads();
      });
    };
  } else {
    std::fprintf(stderr, "--engine must be torch or fastslow\n");
    return 1;
  }
  // Timed in blocks of steps (a GPU runs ahead of the host; each block ends
  // with one synchronisation): the median block, per step.
  const int block = device.is_cuda() ? std::max(1, a.steps / 3) : 1;
  // The fastslow engine on a GPU runs each piece eagerly twice, then captures it.
  const int warmup = a.engine == "fastslow" && device.is_cuda() ? std::max(a.warmup, 4) : a.warmup;
  for (int step = 0; step < warmup; ++step) train_step();
  sync();
  for (int done = 0; done < a.steps; done += block) {
    const double t0 = now();
    for (int i = 0; i < block; ++i) train_step();
    sync();
    secs.push_back((now() - t0) / block);
  }
  if (!a.profile.empty()) {
    torch::autograd::profiler::RecordProfile guard(a.profile);
    for (int i = 0; i < 2; ++i) train_step();
  }
  double total = 0;
  for (double s : secs) total += s;
  auto sorted = secs;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  if (graphs) std::fprintf(stderr, "%s\n", graphs->summary().c_str());
  std::printf("{\"device\": \"%s\", \"engine\": \"%s\", \"model\": \"%s\", \"loss0\": %.9g, \"keep_memory\": %d, \"dense\": %d, \"threads\": %d, \"params\": %lld, \"nodes\": %lld, \"edges\": %lld, "
              "\"configurable\": %lld, \"batch\": %lld, \"step_seconds\": [",
              a.device.c_str(), a.engine.c_str(), a.model.c_str(), loss0, a.keep_memory, a.dense, a.threads, static_cast<long long>(params), static_cast<long long>(n),
              static_cast<long long>(edges.size() / 2), static_cast<long long>(nc), static_cast<long long>(a.batch));
  for (size_t i = 0; i < secs.size(); ++i) std::printf("%s%.6f", i ? ", " : "", secs[i]);
  std::printf("], \"median_step_seconds\": %.6f, \"configs_per_second\": %.3f}\n", median, a.batch / median);
  return 0;
}
