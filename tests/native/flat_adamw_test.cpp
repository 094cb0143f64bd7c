// FlatAdamW against torch::optim::AdamW, the reference it must equal: the
// same trajectory under a changing learning rate, the same clipping, the
// same checkpoints in both directions, and no update where a step is
// refused.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <sstream>
#include <vector>

#include "train/flat_adamw.h"

namespace fastslow::train {
namespace {

struct Net : torch::nn::Module {
  Net() {
    a = register_module("a", torch::nn::Linear(7, 5));
    n = register_module("n", torch::nn::LayerNorm(torch::nn::LayerNormOptions({5})));
    b = register_module("b", torch::nn::Linear(5, 3));
    s = register_parameter("s", torch::randn({1}));
  }
  torch::nn::Linear a{nullptr}, b{nullptr};
  torch::nn::LayerNorm n{nullptr};
  torch::Tensor s;
};

// Two nets with the same weights.
std::pair<std::shared_ptr<Net>, std::shared_ptr<Net>> twins(uint64_t seed) {
  torch::manual_seed(seed);
  auto x = std::make_shared<Net>(), y = std::make_shared<Net>();
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < x->parameters().size(); ++i) y->parameters()[i].copy_(x->parameters()[i]);
  return {x, y};
}

// Gradients of step k: the same on both nets, of varied scale.
void set_grads(Net& net, int k) {
  torch::manual_seed(1000 + k);
  torch::NoGradGuard no_grad;
  for (auto& p : net.parameters()) {
    // Drawn on the CPU whatever the parameter's device: the same on both nets.
    torch::Tensor g = torch::randn(p.sizes()) * (k % 3 == 0 ? 10.0 : 0.1);
    if (p.grad().defined())
      p.mutable_grad().copy_(g);
    else
      p.mutable_grad() = g.to(p.device());
  }
}

double max_diff(Net& x, Net& y) {
  double d = 0;
  for (size_t i = 0; i < x.parameters().size(); ++i)
    d = std::max(d, (x.parameters()[i] - y.parameters()[i]).abs().max().item<double>());
  return d;
}

torch::optim::AdamWOptions options() { return torch::optim::AdamWOptions(3e-3).weight_decay(0.05); }

void set_lr(torch::optim::AdamW& opt, double lr) {
  for (auto& g : opt.param_groups()) static_cast<torch::optim::AdamWOptions&>(g.options()).lr(lr);
}

TEST(FlatAdamW, FollowsTorchAdamWUnderAChangingLearningRate) {
  auto [x, y] = twins(1);
  torch::optim::AdamW ref(x->parameters(), options());
  FlatAdamW flat(y->parameters(), options());
  for (int k = 0; k < 30; ++k) {
    const double lr = 3e-3 * (1.0 + 0.5 * std::sin(k));
    set_lr(ref, lr);
    flat.set_lr(lr);
    set_grads(*x, k);
    set_grads(*y, k);
    ref.step();
    flat.step();
    ASSERT_LT(max_diff(*x, *y), 1e-6) << "step " << k;
  }
  EXPECT_EQ(flat.steps_taken(), 30);
  // The weights moved: the comparison was not of two frozen nets.
  auto [x0, y0] = twins(1);
  EXPECT_GT(max_diff(*x0, *y), 1e-2);
}

TEST(FlatAdamW, ARefusedStepChangesNothing) {
  auto [x, y] = twins(2);
  FlatAdamW flat(y->parameters(), options());
  set_grads(*y, 0);
  flat.step();
  const std::vector<torch::Tensor> before = [&] {
    std::vector<torch::Tensor> v;
    for (auto& p : y->parameters()) v.push_back(p.detach().clone());
    return v;
  }();
  set_grads(*y, 1);
  y->parameters()[0].mutable_grad().view(-1)[0] = std::nan("");  // a non-finite gradient
  flat.step_if(torch::zeros({}, torch::kBool));
  for (size_t i = 0; i < before.size(); ++i) EXPECT_TRUE(torch::equal(before[i], y->parameters()[i]));
  EXPECT_EQ(flat.steps_taken(), 1);
  // The next accepted step is the reference's second step.
  torch::optim::AdamW ref(x->parameters(), options());
  set_grads(*x, 0);
  ref.step();
  set_grads(*x, 2);
  set_grads(*y, 2);
  ref.step();
  flat.step_if(torch::ones({}, torch::kBool));
  EXPECT_LT(max_diff(*x, *y), 1e-6);
}

TEST(FlatAdamW, ClipsAsClipGradNormDoes) {
  for (double max_norm : {0.5, 1e9}) {
    auto [x, y] = twins(3);
    FlatAdamW flat(y->parameters(), options());
    set_grads(*x, 3);
    set_grads(*y, 3);
    const double want = torch::nn::utils::clip_grad_norm_(x->parameters(), max_norm);
    const double got = flat.clip_grad_norm(max_norm).item<double>();
    EXPECT_NEAR(got, want, 1e-5 * want) << max_norm;
    for (size_t i = 0; i < x->parameters().size(); ++i)
      EXPECT_TRUE(torch::allclose(x->parameters()[i].grad(), y->parameters()[i].grad(), 1e-5, 1e-7)) << max_norm;
  }
}

// A gradient replaced from outside (zero_grad(set_to_none) then backward, or
// an assignment) is taken, not lost behind the flat buffer.
TEST(FlatAdamW, GradientsReplacedFromOutsideAreUsed) {
  auto [x, y] = twins(4);
  torch::optim::AdamW ref(x->parameters(), options());
  FlatAdamW flat(y->parameters(), options());
  for (auto& p : y->parameters()) p.mutable_grad() = torch::Tensor();
  const torch::Tensor in = torch::randn({4, 7});
  for (auto* net : {x.get(), y.get()}) {
    if (net == x.get()) ref.zero_grad();
    (net->b(net->n(net->a(in))).sum() * net->s).sum().backward();
  }
  ref.step();
  flat.step();
  EXPECT_LT(max_diff(*x, *y), 1e-6);
}

std::string saved(const torch::optim::Optimizer& opt) {
  torch::serialize::OutputArchive ar;
  opt.save(ar);
  std::ostringstream s;
  ar.save_to(s);
  return s.str();
}

void restore(torch::optim::Optimizer& opt, const std::string& bytes) {
  std::istringstream s(bytes);
  torch::serialize::InputArchive ar;
  ar.load_from(s);
  opt.load(ar);
}

// Checkpoints go both ways: a run saved by torch::optim::AdamW (older
// fastslow) resumes under FlatAdamW, and the reverse, each continuing as
// the reference continues.
TEST(FlatAdamW, CheckpointsAreTorchAdamWsInBothDirections) {
  for (bool from_flat : {false, true}) {
    auto [x, y] = twins(5);
    torch::optim::AdamW ref(x->parameters(), options());
    std::unique_ptr<torch::optim::Optimizer> first;
    if (from_flat)
      first = std::make_unique<FlatAdamW>(y->parameters(), options());
    else
      first = std::make_unique<torch::optim::AdamW>(y->parameters(), options());
    for (int k = 0; k < 4; ++k) {
      set_grads(*x, k);
      set_grads(*y, k);
      ref.step();
      first->step();
    }
    const std::string bytes = saved(*first);
    // A fresh net with the saved weights and the other optimizer.
    auto z = std::make_shared<Net>();
    {
      torch::NoGradGuard no_grad;
      for (size_t i = 0; i < z->parameters().size(); ++i) z->parameters()[i].copy_(y->parameters()[i]);
    }
    std::unique_ptr<torch::optim::Optimizer> second;
    if (from_flat)
      second = std::make_unique<torch::optim::AdamW>(z->parameters(), options());
    else
      second = std::make_unique<FlatAdamW>(z->parameters(), options());
    restore(*second, bytes);
    if (auto* f = dynamic_cast<FlatAdamW*>(second.get())) EXPECT_EQ(f->steps_taken(), 4);
    for (int k = 4; k < 10; ++k) {
      set_grads(*x, k);
      set_grads(*z, k);
      ref.step();
      second->step();
      ASSERT_LT(max_diff(*x, *z), 1e-6) << (from_flat ? "flat -> torch" : "torch -> flat") << ", step " << k;
    }
  }
}

TEST(FlatAdamW, CudaMatchesCpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  auto [x, y] = twins(6);
  y->to(torch::kCUDA);
  FlatAdamW cpu(x->parameters(), options()), gpu(y->parameters(), options());
  for (int k = 0; k < 10; ++k) {
    set_grads(*x, k);
    set_grads(*y, k);  // made on the CPU, copied into the GPU's flat buffer
    cpu.set_lr(1e-3 * (k + 1));
    gpu.set_lr(1e-3 * (k + 1));
    const double nc = cpu.clip_grad_norm(1.0).item<double>(), ng = gpu.clip_grad_norm(1.0).item<double>();
    EXPECT_NEAR(nc, ng, 1e-4 * nc);
    cpu.step();
    gpu.step();
  }
  for (size_t i = 0; i < x->parameters().size(); ++i)
    EXPECT_TRUE(torch::allclose(x->parameters()[i], y->parameters()[i].cpu(), 1e-4, 1e-6)) << i;
}

}  // namespace
}  // namespace fastslow::train
