#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/rank/metrics.h"
#include "fastslow/synth/templates.h"
#include "fastslow/synth/tile_configs.h"
#include "fastslow/synth/tile_cost.h"

namespace fastslow::synth {
namespace {

struct Kernel {
  HloGraph g;
  TileSpace s;
};

std::vector<Kernel> kernels(int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<Kernel> out;
  for (int i = 0; i < n; ++i) {
    Kernel k;
    k.g = tile_kernel(rng, static_cast<int>(rng.uniform_int(5, 100)));
    k.s = tile_space(k.g);
    out.push_back(std::move(k));
  }
  return out;
}

std::vector<double> runtimes(const Kernel& k, const std::vector<float>& configs) {
  std::vector<double> r;
  for (size_t i = 0; i < configs.size(); i += kTileConfigWidth) r.push_back(tile_runtime(k.g, k.s, &configs[i]));
  return r;
}

// A [256, cols] f32 elementwise kernel: exp(x) + y.
Kernel elementwise_kernel(int64_t cols = 1024) {
  HloBuilder b;
  const int x = b.parameter(ElementType::F32, {256, cols});
  const int y = b.parameter(ElementType::F32, {256, cols});
  Kernel k;
  k.g = b.build(b.binary("add", b.unary("exponential", x), y));
  k.s = tile_space(k.g);
  return k;
}

// [2048, 1024] x [1024, 1024] f32 matmul.
Kernel matmul_kernel() {
  HloBuilder b;
  const int x = b.parameter(ElementType::F32, {2048, 1024});
  const int w = b.parameter(ElementType::F32, {1024, 1024});
  Kernel k;
  k.g = b.build(b.matmul(x, w));
  k.s = tile_space(k.g);
  return k;
}

double normal(Rng& rng) {  // Box-Muller: <random>'s normal differs across libraries
  const double u = 1.0 - rng.uniform(), v = rng.uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}

TEST(SynthTile, SpaceReadsTheKernel) {
  const Kernel e = elementwise_kernel();
  EXPECT_EQ(e.s.out_dims, (std::vector<int64_t>{256, 1024}));
  EXPECT_EQ(e.s.contract, 0);
  EXPECT_EQ(e.s.roles, (std::vector<TileRole>{TileRole::Sublane, TileRole::Lane}));
  const Kernel m = matmul_kernel();
  EXPECT_EQ(m.s.contract, 1024);
  EXPECT_EQ(m.s.iter_dims, (std::vector<int64_t>{2048, 1024, 1024}));
  EXPECT_EQ(m.s.side, (std::vector<int>{1, 2}));
  EXPECT_DOUBLE_EQ(m.s.mxu_flops, 2.0 * 2048 * 1024 * 1024);
}

TEST(SynthTile, SampledConfigsAreLegal) {
  Rng rng(11);
  for (const Kernel& k : kernels(60, 5)) {
    const auto c = sample_tile_configs(k.g, k.s, 40, rng);
    ASSERT_EQ(c.size(), 40u * kTileConfigWidth);
    for (size_t r = 0; r < c.size(); r += kTileConfigWidth) {
      const float* row = &c[r];
      ASSERT_EQ(check_tile_config(k.s, row), "");
      // The promises spelled out, independently of check_tile_config.
      const auto block = [&](int col, const std::vector<int64_t>& dims) {
        double sum = 0, prod = 1;
        for (int i = 0; i < 6; ++i) {
          if (i >= static_cast<int>(dims.size())) {
            EXPECT_EQ(row[col + i], 0.0f);
            continue;
          }
          EXPECT_GE(row[col + i], 1.0f);
          EXPECT_LE(row[col + i], static_cast<float>(dims[static_cast<size_t>(i)]));
          sum += row[col + i];
          prod *= row[col + i];
        }
        EXPECT_EQ(row[col + 6], static_cast<float>(sum));
        EXPECT_EQ(row[col + 7], dims.empty() ? 0.0f : static_cast<float>(prod));
      };
      block(kTileKernelCol, k.s.iter_dims);
      block(kTileOutputCol, k.s.out_dims);
      block(kTileInputCol, {});
      for (int i = 0; i < k.s.out_rank(); ++i) EXPECT_GE(row[kTileOutputCol + i], row[kTileKernelCol + i]);
      const double t = tile_runtime(k.g, k.s, row);
      ASSERT_TRUE(std::isfinite(t));
      ASSERT_GT(t, 0);
    }
  }
}

TEST(SynthTile, LaneTileSizesFollowTpuRules) {
  const Kernel e = elementwise_kernel();
  const auto lane = tile_sizes(e.s, 1), sub = tile_sizes(e.s, 0);
  for (int64_t v : lane) EXPECT_TRUE((v & (v - 1)) == 0 || v % 128 == 0 || v == 1024) << v;
  for (int64_t v : sub) EXPECT_TRUE((v & (v - 1)) == 0 || v % 8 == 0 || v == 256) << v;
  EXPECT_NE(std::find(lane.begin(), lane.end(), 384), lane.end());
  EXPECT_NE(std::find(sub.begin(), sub.end(), 24), sub.end());
  std::vector<float> bad = make_tile_config(e.s, {8, 100}, {8, 100});
  EXPECT_NE(check_tile_config(e.s, bad.data()), "");
  EXPECT_THROW(tile_runtime(e.g, e.s, bad.data()), Error);
}

TEST(SynthTile, SameSeedSameConfigsAndRuntimes) {
  const auto a = kernels(20, 3), b = kernels(20, 3);
  Rng ra(9), rb(9), rc(10);
  bool differs = false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto ca = sample_tile_configs(a[i].g, a[i].s, 30, ra);
    const auto cb = sample_tile_configs(b[i].g, b[i].s, 30, rb);
    const auto cc = sample_tile_configs(a[i].g, a[i].s, 30, rc);
    ASSERT_EQ(ca, cb);
    ASSERT_EQ(runtimes(a[i], ca), runtimes(b[i], cb));
    ASSERT_EQ(tile_normalizer(a[i].g, a[i].s), tile_normalizer(b[i].g, b[i].s));
    differs = differs || ca != cc;
  }
  EXPECT_TRUE(differs);
}

TEST(SynthTile, AlignedTileBeatsMisaligned) {
  const Kernel k = elementwise_kernel(768), k1024 = elementwise_kernel();
  // Two tiles per row either way: 384 lanes divide 768, 512 leave a last
  // tile of 256 padded to 512.
  const auto aligned = make_tile_config(k.s, {8, 384}, {8, 384});
  const auto ragged = make_tile_config(k.s, {8, 512}, {8, 512});
  const TileCostTerms a = tile_cost_terms(k.g, k.s, aligned.data()), r = tile_cost_terms(k.g, k.s, ragged.data());
  EXPECT_EQ(a.padding_waste, 0.0);
  EXPECT_GT(r.padding_waste, 0.0);
  EXPECT_LT(a.total(), r.total());
  // 64 lanes are padded to 128 inside the tile: half the lanes idle.
  const auto narrow = make_tile_config(k1024.s, {16, 64}, {16, 64});
  const auto full = make_tile_config(k1024.s, {8, 128}, {8, 128});
  const TileCostTerms n = tile_cost_terms(k1024.g, k1024.s, narrow.data()),
                      f = tile_cost_terms(k1024.g, k1024.s, full.data());
  EXPECT_GT(n.padding_waste, f.padding_waste);
  EXPECT_LT(f.total(), n.total());
}

TEST(SynthTile, TinyTilesPayOverhead) {
  for (const Kernel& k : {elementwise_kernel(), matmul_kernel()}) {
    const auto tiny = make_tile_config(k.s, std::vector<int64_t>(k.s.iter_dims.size(), 1),
                                       std::vector<int64_t>(k.s.out_dims.size(), 1));
    const auto def = default_tile_config(k.g, k.s);
    const TileCostTerms t = tile_cost_terms(k.g, k.s, tiny.data()), d = tile_cost_terms(k.g, k.s, def.data());
    EXPECT_GT(t.per_tile_overhead, 100 * d.per_tile_overhead);
    EXPECT_GT(t.total(), 10 * d.total());
  }
}

TEST(SynthTile, OverCapacityTilesSpill) {
  const Kernel k = matmul_kernel();
  const auto whole = make_tile_config(k.s, {2048, 1024, 1024}, {2048, 1024});
  const auto fits = make_tile_config(k.s, {512, 1024, 512}, {512, 1024});
  EXPECT_GT(tile_working_set(k.s, whole.data()), kOnChipBytes);
  EXPECT_LE(tile_working_set(k.s, fits.data()), kOnChipBytes);
  const TileCostTerms w = tile_cost_terms(k.g, k.s, whole.data()), f = tile_cost_terms(k.g, k.s, fits.data());
  EXPECT_EQ(f.spill, 0.0);
  EXPECT_GT(w.spill, 3 * w.compute);
  EXPECT_GT(w.total(), 2 * f.total());
}

TEST(SynthTile, NormalizerIsTheDefaultRuntime) {
  for (const Kernel& k : kernels(30, 8)) {
    const auto def = default_tile_config(k.g, k.s);
    ASSERT_EQ(check_tile_config(k.s, def.data()), "");
    EXPECT_EQ(tile_normalizer(k.g, k.s), tile_runtime(k.g, k.s, def.data()));
    EXPECT_EQ(tile_cost_terms(k.g, k.s, def.data()).spill, 0.0);
  }
}

TEST(SynthTile, RuntimesLookRealistic) {
  std::vector<double> norms;
  for (const Kernel& k : kernels(200, 21)) norms.push_back(tile_normalizer(k.g, k.s));
  std::sort(norms.begin(), norms.end());
  const double p5 = norms[10], p50 = norms[100], p95 = norms[190];
  std::printf("[ figures  ] normalizer ns: min %.3g p5 %.3g median %.3g p95 %.3g max %.3g\n", norms.front(), p5, p50,
              p95, norms.back());
  EXPECT_GE(p5, 1e3);
  EXPECT_LE(p50, 1e8);
  EXPECT_GT(p95 / p5, 100.0);  // kernels differ in scale
}

TEST(SynthTile, DefaultIsReasonable) {
  Rng rng(4);
  int good = 0;
  const auto ks = kernels(200, 13);
  double beaten_sum = 0;
  for (const Kernel& k : ks) {
    const double d = tile_normalizer(k.g, k.s);
    const auto r = runtimes(k, sample_tile_configs(k.g, k.s, 30, rng));
    const double slower = static_cast<double>(std::count_if(r.begin(), r.end(), [&](double v) { return v >= d; }));
    beaten_sum += slower / 30;
    if (slower >= 15) ++good;
  }
  std::printf("[ figures  ] default in best half on %d/200 kernels; mean share of random configs slower %.3f\n", good,
              beaten_sum / 200);
  EXPECT_GE(good, 160);
}

// Ridge regression of log(runtime / normalizer) on features a model could
// compute from the config and the output shape alone.
std::vector<double> simple_features(const TileSpace& s, const float* c) {
  double log_steps = 0, log_blocks = 0, log_pad = 0;
  for (int i = 0; i < s.iter_rank(); ++i) {
    const size_t u = static_cast<size_t>(i);
    const double d = static_cast<double>(s.iter_dims[u]), k = c[kTileKernelCol + i];
    const double unit = static_cast<double>(static_cast<int>(s.roles[u]));
    const double steps = std::ceil(d / k);
    log_steps += std::log(steps);
    log_pad += std::log(steps * std::ceil(k / unit) * unit / d);
    if (i < s.out_rank()) log_blocks += std::log(std::ceil(d / c[kTileOutputCol + i]));
  }
  const double kp = std::max(1.0f, c[kTileKernelCol + 7]), op = std::max(1.0f, c[kTileOutputCol + 7]);
  const double spill = (kp + op) * 8.0 > kOnChipBytes ? 1.0 : 0.0;
  return {1.0, log_steps, log_blocks, log_pad, std::log(kp), std::log(op), spill, spill * std::log(kp + op),
          log_steps * log_steps / 10, std::log1p(std::exp(log_steps) * 1e-3)};
}

std::vector<double> solve_ridge(const std::vector<std::vector<double>>& x, const std::vector<double>& y, double lambda) {
  const size_t p = x[0].size();
  std::vector<std::vector<double>> a(p, std::vector<double>(p + 1, 0.0));
  for (size_t n = 0; n < x.size(); ++n)
    for (size_t i = 0; i < p; ++i) {
      for (size_t j = 0; j < p; ++j) a[i][j] += x[n][i] * x[n][j];
      a[i][p] += x[n][i] * y[n];
    }
  for (size_t i = 0; i < p; ++i) a[i][i] += lambda;
  for (size_t col = 0; col < p; ++col) {  // Gauss-Jordan with partial pivoting
    size_t piv = col;
    for (size_t r = col + 1; r < p; ++r)
      if (std::fabs(a[r][col]) > std::fabs(a[piv][col])) piv = r;
    std::swap(a[col], a[piv]);
    for (size_t r = 0; r < p; ++r) {
      if (r == col) continue;
      const double f = a[r][col] / a[col][col];
      for (size_t j = col; j <= p; ++j) a[r][j] -= f * a[col][j];
    }
  }
  std::vector<double> w(p);
  for (size_t i = 0; i < p; ++i) w[i] = a[i][p] / a[i][i];
  return w;
}

TEST(SynthTile, SimpleModelBeatsRandom) {
  const auto ks = kernels(200, 17);
  Rng rng(23);
  std::vector<std::vector<float>> configs;
  std::vector<std::vector<double>> norm;  // runtime / normalizer
  for (const Kernel& k : ks) {
    configs.push_back(sample_tile_configs(k.g, k.s, 30, rng));
    const double z = tile_normalizer(k.g, k.s);
    std::vector<double> r = runtimes(k, configs.back());
    for (double& v : r) v /= z;
    norm.push_back(r);
  }
  // Fit on the first half of the kernels, score on the second.
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (size_t i = 0; i < 100; ++i)
    for (size_t j = 0; j < 30; ++j) {
      x.push_back(simple_features(ks[i].s, &configs[i][j * kTileConfigWidth]));
      y.push_back(std::log(norm[i][j]));
    }
  const std::vector<double> w = solve_ridge(x, y, 1e-3 * static_cast<double>(x.size()));
  double model = 0, random = 0;
  for (size_t i = 100; i < 200; ++i) {
    std::vector<double> pred, noise;
    for (size_t j = 0; j < 30; ++j) {
      const auto f = simple_features(ks[i].s, &configs[i][j * kTileConfigWidth]);
      double p = 0;
      for (size_t t = 0; t < f.size(); ++t) p += w[t] * f[t];
      pred.push_back(p);
    }
    model += tile_score(ranking_from_scores(pred), norm[i]);
    for (int rep = 0; rep < 20; ++rep) {
      std::vector<double> r;
      for (size_t j = 0; j < 30; ++j) r.push_back(rng.uniform());
      random += tile_score(ranking_from_scores(r), norm[i]) / 20;
    }
  }
  model /= 100;
  random /= 100;
  std::printf("[ figures  ] held-out tile score: ridge %.4f, random %.4f\n", model, random);
  EXPECT_GT(model, random + 0.05);
}

TEST(SynthTile, NoiseCeiling) {
  const auto ks = kernels(200, 29);
  Rng rng(31);
  double sum = 0;
  for (const Kernel& k : ks) {
    const auto clean = runtimes(k, sample_tile_configs(k.g, k.s, 30, rng));
    std::vector<double> noisy;
    for (double v : clean) noisy.push_back(v * std::exp(0.005 * normal(rng)));
    sum += tile_score(ranking_from_scores(clean), noisy);
  }
  std::printf("[ figures  ] noise ceiling (0.5%% noise) tile score %.4f\n", sum / 200);
  EXPECT_GE(sum / 200, 0.95);
}

}  // namespace
}  // namespace fastslow::synth
