#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/hlo_tables.h"
#include "fastslow/metrics.h"
#include "fastslow/synth/layout_configs.h"
#include "fastslow/synth/layout_cost.h"
#include "fastslow/synth/templates.h"

namespace fastslow::synth {
namespace {

std::vector<int> layout_values(const float* slots) {
  std::vector<int> v;
  for (int i = 0; i < kLayoutSlots; ++i) v.push_back(static_cast<int>(slots[i]));
  return v;
}

// A -1-padded permutation of 0..rank-1.
void expect_layout(const float* slots, int rank) {
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int i = 0; i < kLayoutSlots; ++i) {
    const float v = slots[i];
    ASSERT_EQ(v, std::floor(v));
    if (i >= rank) {
      ASSERT_EQ(v, -1.0f);
    } else {
      const int x = static_cast<int>(v);
      ASSERT_GE(x, 0);
      ASSERT_LT(x, rank);
      ASSERT_FALSE(seen[static_cast<size_t>(x)]);
      seen[static_cast<size_t>(x)] = true;
    }
  }
}

void expect_valid_configs(const LayoutSpace& s, const std::vector<float>& configs, int64_t count) {
  ASSERT_EQ(configs.size(), static_cast<size_t>(count) * s.nodes.size() * kLayoutConfigWidth);
  for (int64_t c = 0; c < count; ++c)
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      const float* row = configs.data() + (static_cast<size_t>(c) * s.nodes.size() + i) * kLayoutConfigWidth;
      expect_layout(row, s.out_rank[i]);
      expect_layout(row + kLayoutSlots, s.in_rank[i]);
      expect_layout(row + 2 * kLayoutSlots, s.kernel_rank[i]);
    }
}

double mean_pairwise_hamming(const std::vector<float>& configs, size_t width, int64_t count) {
  double sum = 0;
  int64_t pairs = 0;
  for (int64_t a = 0; a < count; ++a)
    for (int64_t b = a + 1; b < count; ++b) {
      const float* x = configs.data() + static_cast<size_t>(a) * width;
      const float* y = configs.data() + static_cast<size_t>(b) * width;
      for (size_t k = 0; k < width; ++k) sum += x[k] != y[k];
      ++pairs;
    }
  return sum / static_cast<double>(pairs);
}

std::vector<double> runtimes(const HloGraph& g, const LayoutSpace& s, const std::vector<float>& configs,
                             int64_t count) {
  std::vector<double> out;
  for (int64_t c = 0; c < count; ++c)
    out.push_back(layout_runtime(g, s, configs.data() + static_cast<size_t>(c) * s.nodes.size() * kLayoutConfigWidth));
  return out;
}

HloGraph resnet_graph() {
  Rng rng(11);
  return resnet_like(rng, 500);
}

HloGraph transformer_graph() {
  Rng rng(12);
  return transformer_encoder(rng, 1000);
}

TEST(SynthLayout, SpaceCoversTheConfigurableNodes) {
  const HloGraph g = resnet_graph();
  const LayoutSpace s = layout_space(g);
  EXPECT_EQ(s.nodes, g.layout_configurable_nodes());
  ASSERT_FALSE(s.nodes.empty());
  const int reshape = require_opcode("reshape");
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const HloNode& n = g.nodes[static_cast<size_t>(s.nodes[i])];
    EXPECT_EQ(s.out_rank[i], n.rank());
    EXPECT_EQ(s.in_rank[i], g.nodes[static_cast<size_t>(n.operands[0])].rank());
    const int kernel = n.opcode == reshape ? 0 : g.nodes[static_cast<size_t>(n.operands[1])].rank();
    EXPECT_EQ(s.kernel_rank[i], kernel);
  }
}

TEST(SynthLayout, SampledValuesAreValid) {
  for (const HloGraph& g : {resnet_graph(), transformer_graph()}) {
    const LayoutSpace s = layout_space(g);
    const std::vector<float> def = default_layout_config(g, s);
    expect_valid_configs(s, def, 1);
    for (LayoutSearch search : {LayoutSearch::Random, LayoutSearch::Default}) {
      Rng rng(3);
      const std::vector<float> c = sample_layout_configs(g, s, search, 50, rng);
      expect_valid_configs(s, c, 50);
    }
    // Reshape has no kernel.
    const int reshape = require_opcode("reshape");
    Rng rng(4);
    const std::vector<float> c = sample_layout_configs(g, s, LayoutSearch::Random, 3, rng);
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      if (g.nodes[static_cast<size_t>(s.nodes[i])].opcode != reshape) continue;
      EXPECT_EQ(layout_values(c.data() + i * kLayoutConfigWidth + 2 * kLayoutSlots),
                std::vector<int>(kLayoutSlots, -1));
    }
  }
}

TEST(SynthLayout, ZeroConfigsAndEmptySpace) {
  const HloGraph g = resnet_graph();
  const LayoutSpace s = layout_space(g);
  Rng rng(1);
  EXPECT_TRUE(sample_layout_configs(g, s, LayoutSearch::Default, 0, rng).empty());
  EXPECT_THROW(sample_layout_configs(g, s, LayoutSearch::Random, -1, rng), Error);
}

TEST(SynthLayout, SameSeedSameConfigs) {
  const HloGraph g = transformer_graph();
  const LayoutSpace s = layout_space(g);
  for (LayoutSearch search : {LayoutSearch::Random, LayoutSearch::Default}) {
    Rng a(99), b(99), c(100);
    const auto x = sample_layout_configs(g, s, search, 40, a);
    EXPECT_EQ(x, sample_layout_configs(g, s, search, 40, b));
    EXPECT_NE(x, sample_layout_configs(g, s, search, 40, c));
  }
}

TEST(SynthLayout, DefaultSearchConfigsAreCloser) {
  const HloGraph g = resnet_graph();
  const LayoutSpace s = layout_space(g);
  const size_t width = s.nodes.size() * kLayoutConfigWidth;
  Rng a(5), b(5);
  const double random = mean_pairwise_hamming(sample_layout_configs(g, s, LayoutSearch::Random, 100, a), width, 100);
  const double genetic =
      mean_pairwise_hamming(sample_layout_configs(g, s, LayoutSearch::Default, 100, b), width, 100);
  std::printf("[ figures  ] mean pairwise Hamming: random %.1f, default %.1f of %zu values\n", random, genetic, width);
  EXPECT_GT(genetic, 0);
  EXPECT_LT(genetic * 4, random);
}

// parameter [32, 8, 128] -> reshape [256, 128] -> dot with [128, 256].
struct ReshapeDot {
  HloGraph g;
  LayoutSpace s;
  size_t reshape = 0, dot = 0;  // positions in s.nodes
  ReshapeDot() {
    HloBuilder b;
    const int p = b.parameter(ElementType::F32, {32, 8, 128});
    const int r = b.reshape(p, {256, 128});
    const int d = b.matmul(r, b.parameter(ElementType::F32, {128, 256}));
    g = b.build(d);
    s = layout_space(g);
    const int reshape_op = require_opcode("reshape");
    EXPECT_EQ(s.nodes.size(), 2u);
    reshape = g.nodes[static_cast<size_t>(s.nodes[0])].opcode == reshape_op ? 0 : 1;
    dot = 1 - reshape;
  }
  float* slots(std::vector<float>& c, size_t node, int which) const {
    return c.data() + node * kLayoutConfigWidth + which * kLayoutSlots;
  }
};

TEST(SynthLayoutCost, ProducerConsumerMismatchAddsACopy) {
  ReshapeDot t;
  std::vector<float> base = default_layout_config(t.g, t.s);
  // Reshape writes column-major; the dot still wants row-major: a copy.
  std::vector<float> mismatch = base;
  t.slots(mismatch, t.reshape, 0)[0] = 0;
  t.slots(mismatch, t.reshape, 0)[1] = 1;
  // Same reshape output, but the dot takes it as it comes: no copy.
  std::vector<float> match = mismatch;
  t.slots(match, t.dot, 1)[0] = 0;
  t.slots(match, t.dot, 1)[1] = 1;
  const LayoutCostTerms a = layout_cost_terms(t.g, t.s, base.data());
  const LayoutCostTerms b = layout_cost_terms(t.g, t.s, mismatch.data());
  const LayoutCostTerms c = layout_cost_terms(t.g, t.s, match.data());
  EXPECT_EQ(a.copies, 0);
  // [256, 128] f32 fills whole tiles either way: 128 KiB read + 128 KiB
  // written, through the transpose unit since the minor dim changes.
  EXPECT_DOUBLE_EQ(b.copies - c.copies, kCopyFactor * kLaneTransposeFactor * 2 * 256 * 128 * 4 / kBytesPerNs);
  EXPECT_GT(b.total(), a.total());
  EXPECT_EQ(b.kernel_pref, a.kernel_pref);
  EXPECT_GT(c.kernel_pref, b.kernel_pref);  // lhs no longer contracting-minor
  EXPECT_DOUBLE_EQ(layout_runtime(t.g, t.s, mismatch.data()), b.total());
}

TEST(SynthLayoutCost, AlignedLayoutBeatsMisalignedOnPadding) {
  HloBuilder b;
  const int d = b.matmul(b.parameter(ElementType::F32, {200, 64}), b.parameter(ElementType::F32, {64, 128}));
  const HloGraph g = b.build(d);
  const LayoutSpace s = layout_space(g);
  ASSERT_EQ(s.nodes.size(), 1u);
  std::vector<float> aligned = default_layout_config(g, s);  // output [200, 128]: 128 minor
  std::vector<float> misaligned = aligned;
  misaligned[0] = 0;  // 200 minor pads to 256
  misaligned[1] = 1;
  const LayoutCostTerms a = layout_cost_terms(g, s, aligned.data());
  const LayoutCostTerms m = layout_cost_terms(g, s, misaligned.data());
  EXPECT_LT(a.padding, m.padding);
  EXPECT_DOUBLE_EQ(m.padding - a.padding, (256.0 * 128 - 200.0 * 128) * 4 / kBytesPerNs);
  EXPECT_LT(a.total(), m.total());
}

TEST(SynthLayoutCost, ConvPreferredLayoutBeatsNonPreferred) {
  HloBuilder b;
  const int x = b.parameter(ElementType::F32, {8, 32, 32, 128});
  const int k = b.parameter(ElementType::F32, {3, 3, 128, 128});
  Window w = Window::of({3, 3});
  w.pad_low = {1, 1};
  w.pad_high = {1, 1};
  const HloGraph g = b.build(b.convolution(x, k, w, ConvDimensionNumbers::nhwc(2)));
  const LayoutSpace s = layout_space(g);
  ASSERT_EQ(s.nodes.size(), 1u);
  const std::vector<float> preferred = default_layout_config(g, s);
  const LayoutCostTerms p = layout_cost_terms(g, s, preferred.data());
  EXPECT_EQ(p.kernel_pref, 0);
  for (int which = 0; which < 3; ++which) {
    // Features moved out of the minor-most slot (W minor instead).
    std::vector<float> other = preferred;
    float* slots = other.data() + which * kLayoutSlots;
    std::swap(slots[0], slots[1]);
    const LayoutCostTerms o = layout_cost_terms(g, s, other.data());
    EXPECT_GT(o.kernel_pref, p.kernel_pref) << which;
    EXPECT_GT(o.total(), p.total()) << which;
  }
}

TEST(SynthLayoutCost, RejectsInvalidConfigs) {
  ReshapeDot t;
  std::vector<float> c = default_layout_config(t.g, t.s);
  t.slots(c, t.dot, 0)[1] = t.slots(c, t.dot, 0)[0];  // repeated dim
  EXPECT_THROW(layout_cost_terms(t.g, t.s, c.data()), Error);
  c = default_layout_config(t.g, t.s);
  t.slots(c, t.reshape, 2)[0] = 0;  // reshape has no kernel
  EXPECT_THROW(layout_cost_terms(t.g, t.s, c.data()), Error);
  c = default_layout_config(t.g, t.s);
  t.slots(c, t.reshape, 1)[0] = 0.5f;
  EXPECT_THROW(layout_cost_terms(t.g, t.s, c.data()), Error);
  t.slots(c, t.reshape, 1)[0] = std::nanf("");
  EXPECT_THROW(layout_cost_terms(t.g, t.s, c.data()), Error);
}

// Scale is checked on graphs with moderate tensors: the transformer template
// can draw attention scores of 1e8 elements, whose runtimes reach seconds.
TEST(SynthLayoutCost, RealisticScaleAndSpread) {
  for (ModelTemplate t : {ModelTemplate::ResNet, ModelTemplate::Mlp, ModelTemplate::Rnn}) {
    Rng graph_rng(11);
    const HloGraph g = generate(t, graph_rng, 500);
    const LayoutSpace s = layout_space(g);
    Rng rng(21);
    const std::vector<double> r = runtimes(g, s, sample_layout_configs(g, s, LayoutSearch::Random, 200, rng), 200);
    const auto [lo, hi] = std::minmax_element(r.begin(), r.end());
    const std::vector<float> def = default_layout_config(g, s);
    const LayoutCostTerms d = layout_cost_terms(g, s, def.data());
    std::printf("[ figures  ] %s %lld nodes, %zu configurable: default %.3g ns (compute %.3g padding %.3g copies %.3g "
                "pref %.3g); random %.3g..%.3g ns (+%.0f%%)\n",
                template_name(t), static_cast<long long>(g.num_nodes()), s.nodes.size(), d.total(), d.compute,
                d.padding, d.copies, d.kernel_pref, *lo, *hi, 100 * (*hi / *lo - 1));
    // Real layout graphs run 1e5..~1e9 ns; the worst random layout of a
    // mid-size conv net may take a few times its default (AlexNet's range in
    // the published data is 0.08 s to 0.43 s).
    EXPECT_GE(d.total(), 1e5);
    EXPECT_LE(*hi, 2e9);
    EXPECT_GT(*hi / *lo, 1.05);
    EXPECT_LT(*hi / *lo, 4.0);
  }
}

TEST(SynthLayoutCost, DefaultIsAmongTheFastest) {
  const HloGraph g = resnet_graph();
  const LayoutSpace s = layout_space(g);
  Rng rng(8);
  const std::vector<double> r = runtimes(g, s, sample_layout_configs(g, s, LayoutSearch::Random, 1000, rng), 1000);
  const std::vector<float> def = default_layout_config(g, s);
  const double d = layout_runtime(g, s, def.data());
  const auto faster = std::count_if(r.begin(), r.end(), [d](double x) { return x < d; });
  std::printf("[ figures  ] default beats %lld of 1000 random configs\n", static_cast<long long>(1000 - faster));
  EXPECT_LE(faster, 100);
}

// Ridge regression on one-hot config values by conjugate gradient on the
// normal equations (X'X + lambda I) w = X'y; X is sparse, one 1 per slot.
struct OneHotRidge {
  std::vector<size_t> slots;  // config positions that vary
  std::vector<double> w;
  double mean = 0;

  static constexpr int kValues = 7;  // -1..5
  size_t feature(const float* row, size_t k) const {
    return k * kValues + static_cast<size_t>(static_cast<int>(row[slots[k]]) + 1);
  }

  void fit(const std::vector<float>& x, size_t width, const std::vector<double>& y, double lambda) {
    const size_t n = y.size();
    for (size_t j = 0; j < width; ++j)
      for (size_t i = 1; i < n; ++i)
        if (x[i * width + j] != x[j]) {
          slots.push_back(j);
          break;
        }
    for (double v : y) mean += v / static_cast<double>(n);
    const size_t f = slots.size() * kValues;
    const auto apply = [&](const std::vector<double>& p, std::vector<double>& out) {  // (X'X + lambda) p
      out.assign(f, 0);
      for (size_t i = 0; i < n; ++i) {
        const float* row = x.data() + i * width;
        double xp = 0;
        for (size_t k = 0; k < slots.size(); ++k) xp += p[feature(row, k)];
        for (size_t k = 0; k < slots.size(); ++k) out[feature(row, k)] += xp;
      }
      for (size_t j = 0; j < f; ++j) out[j] += lambda * p[j];
    };
    std::vector<double> r(f, 0), p, ap;
    for (size_t i = 0; i < n; ++i)
      for (size_t k = 0; k < slots.size(); ++k) r[feature(x.data() + i * width, k)] += y[i] - mean;
    w.assign(f, 0);
    p = r;
    double rr = 0;
    for (double v : r) rr += v * v;
    const double stop = rr * 1e-12;
    for (int it = 0; it < 200 && rr > stop; ++it) {
      apply(p, ap);
      double pap = 0;
      for (size_t j = 0; j < f; ++j) pap += p[j] * ap[j];
      const double alpha = rr / pap;
      double next = 0;
      for (size_t j = 0; j < f; ++j) {
        w[j] += alpha * p[j];
        r[j] -= alpha * ap[j];
        next += r[j] * r[j];
      }
      for (size_t j = 0; j < f; ++j) p[j] = r[j] + next / rr * p[j];
      rr = next;
    }
  }

  double predict(const float* row) const {
    double s = mean;
    for (size_t k = 0; k < slots.size(); ++k) s += w[feature(row, k)];
    return s;
  }
};

TEST(SynthLayoutCost, RandomConfigsAreLearnable) {
  const HloGraph g = transformer_graph();
  const LayoutSpace s = layout_space(g);
  const size_t width = s.nodes.size() * kLayoutConfigWidth;
  Rng rng(31);
  const std::vector<float> x = sample_layout_configs(g, s, LayoutSearch::Random, 2000, rng);
  const std::vector<double> y = runtimes(g, s, x, 2000);
  // Standardised targets keep lambda ~1 meaningful whatever the runtime scale.
  double m = 0, v = 0;
  for (double t : y) m += t / 2000;
  for (double t : y) v += (t - m) * (t - m) / 2000;
  std::vector<double> train;
  for (size_t i = 0; i < 1500; ++i) train.push_back((y[i] - m) / std::sqrt(v));
  OneHotRidge ridge;
  ridge.fit(std::vector<float>(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(1500 * width)), width, train, 1.0);
  std::vector<double> pred, truth, noise;
  Rng noise_rng(32);
  for (size_t i = 1500; i < 2000; ++i) {
    pred.push_back(ridge.predict(x.data() + i * width));
    truth.push_back(y[i]);
    noise.push_back(noise_rng.uniform());
  }
  const double tau = kendall_tau(pred, truth), tau_random = kendall_tau(noise, truth);
  std::printf("[ figures  ] ridge on one-hot configs (%zu varying slots): held-out tau %.3f, random scores %.3f\n",
              ridge.slots.size(), tau, tau_random);
  EXPECT_GE(tau, 0.3);
  EXPECT_LT(std::fabs(tau_random), 0.1);
}

TEST(SynthLayoutCost, HalfPercentNoiseKeepsTheOrder) {
  const HloGraph g = transformer_graph();
  const LayoutSpace s = layout_space(g);
  Rng rng(41);
  const std::vector<double> clean = runtimes(g, s, sample_layout_configs(g, s, LayoutSearch::Random, 2000, rng), 2000);
  std::vector<double> noisy;
  Rng noise(42);
  // Uniform multiplicative noise of +-0.5%: no libm call decides the value.
  for (double t : clean) noisy.push_back(t * (1 + 0.01 * (noise.uniform() - 0.5)));
  const double tau = kendall_tau(noisy, clean);
  std::printf("[ figures  ] kendall_tau(noisy 0.5%%, clean) = %.4f\n", tau);
  EXPECT_GE(tau, 0.95);
}

}  // namespace
}  // namespace fastslow::synth
