#include "train/losses.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "test_support.h"

namespace fastslow::train {
namespace {

using test::error_of;

torch::Tensor vec(std::vector<double> v, torch::Dtype dtype = torch::kFloat64) {
  return torch::tensor(v, torch::TensorOptions().dtype(torch::kFloat64)).to(dtype);
}

double value(const torch::Tensor& t) { return t.item<double>(); }

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---- Values worked out by hand. ----

TEST(Losses, MseByHand) {
  // Differences 1, 0, 3: (1 + 0 + 9) / 3.
  EXPECT_NEAR(value(train::mse_loss(vec({1, 2, 4}), vec({0, 2, 1}))), 10.0 / 3.0, 1e-12);
}

TEST(Losses, HingeByHand) {
  // target 1, 3, 2, 3: pairs (i faster than j) are (0,1) (0,2) (0,3) (2,1) (2,3);
  // (1,3) is a tie and skipped. With scores 1, 2, 3, 0 and margin 0.5, each
  // pair costs max(0, 0.5 - (s_j - s_i)):
  //   (0,1): 0.5 - (2 - 1) < 0 -> 0      (0,2): 0.5 - (3 - 1) < 0 -> 0
  //   (0,3): 0.5 - (0 - 1) = 1.5         (2,1): 0.5 - (2 - 3) = 1.5
  //   (2,3): 0.5 - (0 - 3) = 3.5
  // mean over 5 pairs: 6.5 / 5 = 1.3.
  EXPECT_NEAR(value(pairwise_hinge_loss(vec({1, 2, 3, 0}), vec({1, 3, 2, 3}), 0.5)), 1.3, 1e-12);
  // Correct order with room to spare: 0.
  EXPECT_EQ(value(pairwise_hinge_loss(vec({0, 1, 2}), vec({0, 1, 2}), 0.5)), 0.0);
  // Neighbours exactly at the margin cost max(0, 0.5 - 0.5) = 0; (0,2) has gap 1.
  EXPECT_NEAR(value(pairwise_hinge_loss(vec({0, 0.5, 1}), vec({0, 1, 2}), 0.5)), 0.0, 1e-12);
  // Default margin 0.1, equal scores: each of the 3 pairs costs 0.1.
  EXPECT_NEAR(value(pairwise_hinge_loss(vec({7, 7, 7}), vec({0, 1, 2}))), 0.1, 1e-12);
}

double lse(std::vector<double> x) {
  double s = 0;
  for (double v : x) s += std::exp(v);
  return std::log(s);
}

TEST(Losses, ListMleByHand) {
  // target 2, 0, 1 -> true order (fastest first) 1, 2, 0.
  // scores 0.5, -1, 0 -> utilities u = -scores: u0 = -0.5, u1 = 1, u2 = 0.
  // In true order u = 1, 0, -0.5:
  //   [lse(1, 0, -0.5) - 1] + [lse(0, -0.5) - 0] + [lse(-0.5) - (-0.5)], over 3.
  const double expect = ((lse({1, 0, -0.5}) - 1) + (lse({0, -0.5}) - 0) + (lse({-0.5}) + 0.5)) / 3;
  EXPECT_NEAR(value(listmle_loss(vec({0.5, -1, 0}), vec({2, 0, 1}))), expect, 1e-12);

  // Four configs: target 0.3, -1, 0.3, 2 (a tie). Ties keep index order, so the
  // true order is 1, 0, 2, 3. scores 2, 1, -1, 0.5 -> u = -2, -1, 1, -0.5;
  // in true order: -1, -2, 1, -0.5.
  const double expect4 = ((lse({-1, -2, 1, -0.5}) + 1) + (lse({-2, 1, -0.5}) + 2) + (lse({1, -0.5}) - 1) +
                          (lse({-0.5}) + 0.5)) /
                         4;
  EXPECT_NEAR(value(listmle_loss(vec({2, 1, -1, 0.5}), vec({0.3, -1, 0.3, 2}))), expect4, 1e-12);
}

TEST(Losses, TiesAreHandledAsDocumented) {
  const auto s = vec({0.4, -0.3, 1.2, 0.1});
  // ListMLE: a tie is broken by index, i.e. it equals the loss with the tie
  // broken explicitly in index order, and differs from the opposite order.
  const double tied = value(listmle_loss(s, vec({1, 0, 1, 2})));
  EXPECT_NEAR(tied, value(listmle_loss(s, vec({1, 0, 1.5, 2}))), 1e-12);
  EXPECT_GT(std::abs(tied - value(listmle_loss(s, vec({1.5, 0, 1, 2})))), 1e-3);
  // Hinge: tied pairs are skipped, so all-tied targets give 0 with zero gradient.
  auto x = s.clone().requires_grad_(true);
  auto h = pairwise_hinge_loss(x, vec({3, 3, 3, 3}), 0.5);
  EXPECT_EQ(value(h), 0.0);
  h.backward();
  EXPECT_EQ(value(x.grad().abs().sum()), 0.0);
  // Hinge with one tie: (1,3) is skipped, the other 5 ordered pairs count.
  EXPECT_NEAR(value(pairwise_hinge_loss(s, vec({0, 1, 2, 1}), 0.5)),
              (std::max(0.0, 0.5 - (-0.3 - 0.4)) + std::max(0.0, 0.5 - (1.2 - 0.4)) + std::max(0.0, 0.5 - (0.1 - 0.4)) +
               std::max(0.0, 0.5 - (1.2 + 0.3)) + std::max(0.0, 0.5 - (1.2 - 0.1))) /
                  5,
              1e-12);
}

TEST(Losses, SingleConfigIsFiniteAndZeroWhereUndefined) {
  for (auto dtype : {torch::kFloat32, torch::kFloat64}) {
    auto x = vec({0.7}, dtype).requires_grad_(true);
    const auto t = vec({-0.2}, dtype);
    const auto h = pairwise_hinge_loss(x, t);
    const auto l = listmle_loss(x, t);
    const auto m = train::mse_loss(x, t);
    EXPECT_EQ(value(h), 0.0);
    EXPECT_EQ(value(l), 0.0);
    EXPECT_NEAR(value(m), 0.81, 1e-6);
    (h + l + m).backward();
    EXPECT_TRUE(torch::isfinite(x.grad()).all().item<bool>());
    EXPECT_NEAR(value(x.grad()), 2 * 0.9, 1e-6);
  }
}

TEST(Losses, ListMleIsStableForLargeScores) {
  auto x = vec({3e4, -2e4, 1e4, 0}, torch::kFloat32).requires_grad_(true);
  const auto l = listmle_loss(x, vec({0, 1, 2, 3}, torch::kFloat32));
  EXPECT_TRUE(std::isfinite(value(l)));
  l.backward();
  EXPECT_TRUE(torch::isfinite(x.grad()).all().item<bool>());
}

// Central differences in double against autograd.
void expect_gradient_matches(const std::function<torch::Tensor(const torch::Tensor&)>& loss,
                             const torch::Tensor& at, const char* name) {
  auto x = at.clone().requires_grad_(true);
  loss(x).backward();
  const auto grad = x.grad();
  const double eps = 1e-6;
  for (int64_t i = 0; i < at.size(0); ++i) {
    auto up = at.clone(), down = at.clone();
    up[i] += eps;
    down[i] -= eps;
    const double numeric = (value(loss(up)) - value(loss(down))) / (2 * eps);
    EXPECT_NEAR(value(grad[i]), numeric, 1e-6) << name << " d/dscore[" << i << "]";
  }
}

TEST(Losses, GradientsMatchFiniteDifferences) {
  torch::manual_seed(3);
  const auto scores = torch::randn({9}, torch::kFloat64);
  // Two ties, so the stable order and the skipped pairs are exercised too.
  const auto target = vec({0.5, -1.0, 0.5, 2.0, -0.3, 1.1, -1.0, 0.0, 0.9});
  expect_gradient_matches([&](const torch::Tensor& s) { return train::mse_loss(s, target); }, scores, "mse");
  // A large margin keeps most pairs active and the random scores away from kinks.
  expect_gradient_matches([&](const torch::Tensor& s) { return pairwise_hinge_loss(s, target, 1.5); }, scores,
                          "hinge");
  expect_gradient_matches([&](const torch::Tensor& s) { return listmle_loss(s, target); }, scores, "listmle");
  const auto spec = LossSpec::parse("mse:0.25,hinge:2,listmle");
  expect_gradient_matches([&](const torch::Tensor& s) { return spec(s, target); }, scores, "spec");
}

TEST(Losses, ShapeErrors) {
  EXPECT_TRUE(contains(error_of([] { train::mse_loss(vec({1, 2}), vec({1})); }), "2 scores for 1 targets"));
  EXPECT_TRUE(contains(error_of([] { listmle_loss(vec({}), vec({})); }), "no configs"));
  EXPECT_TRUE(contains(error_of([] { pairwise_hinge_loss(torch::zeros({2, 2}), torch::zeros({2, 2})); }), "1-D"));
  EXPECT_TRUE(contains(error_of([] { pairwise_hinge_loss(vec({1}), vec({1}), NAN); }), "margin"));
}

TEST(LossSpec, ParsesAndPrints) {
  const auto a = LossSpec::parse("listmle");
  ASSERT_EQ(a.terms.size(), 1u);
  EXPECT_EQ(a.terms[0].first, "listmle");
  EXPECT_EQ(a.terms[0].second, 1.0);
  EXPECT_EQ(a.str(), "listmle");

  const auto b = LossSpec::parse(" hinge:0.5 , listmle:1,mse:0.1 ");
  ASSERT_EQ(b.terms.size(), 3u);
  EXPECT_EQ(b.terms[0], std::make_pair(std::string("hinge"), 0.5));
  EXPECT_EQ(b.terms[2], std::make_pair(std::string("mse"), 0.1));
  EXPECT_EQ(b.str(), "hinge:0.5,listmle,mse:0.1");
  EXPECT_EQ(LossSpec::parse(b.str()).terms, b.terms);
  // A zero weight is allowed next to a positive one.
  EXPECT_EQ(LossSpec::parse("mse:0,listmle:1e-3").str(), "mse:0,listmle:0.001");
}

TEST(LossSpec, ParseErrors) {
  auto err = [](const std::string& text) { return error_of([&] { LossSpec::parse(text); }); };
  const std::string names = "mse, hinge, listmle";
  EXPECT_TRUE(contains(err("ranknet"), "unknown loss 'ranknet'")) << err("ranknet");
  EXPECT_TRUE(contains(err("ranknet"), names));
  EXPECT_TRUE(contains(err("ListMLE"), "unknown loss"));
  EXPECT_TRUE(contains(err(""), "empty"));
  EXPECT_TRUE(contains(err("  "), "empty"));
  EXPECT_TRUE(contains(err("mse,"), "empty term"));
  EXPECT_TRUE(contains(err("mse,,hinge"), "empty term"));
  EXPECT_TRUE(contains(err("mse:"), "bad weight"));
  EXPECT_TRUE(contains(err("mse:abc"), "bad weight 'abc'"));
  EXPECT_TRUE(contains(err("mse:1x"), "bad weight"));
  EXPECT_TRUE(contains(err("mse:nan"), "bad weight"));
  EXPECT_TRUE(contains(err("mse:inf"), "bad weight"));
  EXPECT_TRUE(contains(err("mse:-1"), "negative weight"));
  EXPECT_TRUE(contains(err("mse,mse:2"), "given twice"));
  EXPECT_TRUE(contains(err("mse:0"), "every weight is 0"));
  EXPECT_TRUE(contains(err("mse:-1"), names));
  EXPECT_TRUE(contains(error_of([] { LossSpec{}(vec({1}), vec({1})); }), "no terms"));
}

TEST(LossSpec, CombinedEqualsWeightedSum) {
  torch::manual_seed(11);
  const auto s = torch::randn({17}, torch::kFloat64);
  const auto t = torch::randn({17}, torch::kFloat64);
  const double expect =
      0.5 * value(pairwise_hinge_loss(s, t)) + 2.0 * value(listmle_loss(s, t)) + 0.1 * value(train::mse_loss(s, t));
  EXPECT_NEAR(value(LossSpec::parse("hinge:0.5,listmle:2,mse:0.1")(s, t)), expect, 1e-12);
  EXPECT_NEAR(value(LossSpec::parse("listmle")(s, t)), value(listmle_loss(s, t)), 1e-15);
}

TEST(Losses, FloatAndDoubleAgree) {
  torch::manual_seed(5);
  const auto s = torch::randn({128}, torch::kFloat64);
  const auto t = torch::randn({128}, torch::kFloat64);
  for (const char* name : {"mse", "hinge", "listmle"}) {
    const auto spec = LossSpec::parse(name);
    EXPECT_NEAR(value(spec(s.to(torch::kFloat32), t.to(torch::kFloat32))), value(spec(s, t)), 1e-4) << name;
  }
}

TEST(Losses, CudaMatchesCpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  torch::manual_seed(9);
  const auto s = torch::randn({128});
  const auto t = torch::randn({128}).round();  // ties
  for (const char* name : {"mse", "hinge", "listmle"}) {
    const auto spec = LossSpec::parse(name);
    auto xc = s.clone().requires_grad_(true);
    auto xg = s.to(torch::kCUDA).requires_grad_(true);
    const auto lc = spec(xc, t);
    const auto lg = spec(xg, t.to(torch::kCUDA));
    EXPECT_TRUE(lg.is_cuda());
    EXPECT_NEAR(value(lg), value(lc), 1e-4) << name;
    lc.backward();
    lg.backward();
    EXPECT_TRUE(torch::allclose(xg.grad().cpu(), xc.grad(), 1e-4, 1e-5)) << name;
  }
}

// An independent reference: the losses written in Python torch, directly from
// their definitions, with explicit loops over positions and pairs.
TEST(Losses, MatchPythonReference) {
  if (const std::string why = test::python_torch_skip_reason(); !why.empty()) GTEST_SKIP() << why;
  std::mt19937 rng(17);
  std::normal_distribution<double> normal(0.0, 1.5);
  std::ostringstream script;
  script.precision(17);
  // One interpreter start: importing torch takes seconds.
  script << "import torch\ncases = []\n";
  struct Case {
    std::vector<double> s, t;
  };
  std::vector<Case> cases;
  for (int n : {2, 5, 31, 128}) {
    Case c;
    for (int i = 0; i < n; ++i) {
      c.s.push_back(normal(rng));
      // Rounded targets give many ties.
      c.t.push_back(std::round(normal(rng) * 2) / 2);
    }
    script << "cases.append(([";
    for (double v : c.s) script << v << ",";
    script << "], [";
    for (double v : c.t) script << v << ",";
    script << "]))\n";
    cases.push_back(c);
  }
  script << R"(
def listmle(s, t):
    u = -s
    order = sorted(range(len(t)), key=lambda i: (t[i], i))
    total = 0
    for k in range(len(order)):
        rest = torch.stack([u[j] for j in order[k:]])
        total = total + torch.logsumexp(rest, 0) - u[order[k]]
    return total / len(order)

def hinge(s, t, margin=0.1):
    total, count = 0, 0
    for i in range(len(t)):
        for j in range(len(t)):
            if t[i] < t[j]:
                total = total + torch.clamp(margin - (s[j] - s[i]), min=0)
                count += 1
    return total / count if count else (s * 0).sum()

for s, t in cases:
    for f in (listmle, hinge):
        x = torch.tensor(s, dtype=torch.float64, requires_grad=True)
        loss = f(x, t)
        loss.backward()
        print(repr(float(loss)), " ".join(repr(float(g)) for g in x.grad))
)";
  std::string out;
  ASSERT_EQ(test::run_python(script.str(), &out), 0) << out;
  std::istringstream in(out);
  for (const auto& c : cases) {
    for (const char* name : {"listmle", "hinge"}) {
      auto x = vec(c.s).requires_grad_(true);
      const auto t = vec(c.t);
      const auto loss = std::string(name) == "listmle" ? listmle_loss(x, t) : pairwise_hinge_loss(x, t);
      loss.backward();
      double ref = 0;
      ASSERT_TRUE(in >> ref) << out;
      EXPECT_NEAR(value(loss), ref, 1e-10) << name << " B=" << c.s.size();
      for (size_t i = 0; i < c.s.size(); ++i) {
        ASSERT_TRUE(in >> ref) << out;
        EXPECT_NEAR(value(x.grad()[static_cast<int64_t>(i)]), ref, 1e-10) << name << " B=" << c.s.size() << " i=" << i;
      }
    }
  }
}

}  // namespace
}  // namespace fastslow::train
