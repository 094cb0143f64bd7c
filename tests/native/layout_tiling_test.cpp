#include "models/layout_tiling.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "fastslow/features/layout_context.h"
#include "test_support.h"

namespace fastslow::models {
namespace {

using C = LayoutContext;

// The features of one layout, one element at a time, as the header defines them.
std::vector<double> naive_features(const std::vector<int>& L, const std::vector<int>& P, const std::vector<float>& dims,
                                   float bits, const float* prefs) {
  const auto sizes = [&](const std::vector<int>& l) {
    std::vector<double> s(C::kSlots, 0);
    for (int i = 0; i < C::kSlots; ++i)
      if (l[static_cast<size_t>(i)] >= 0) s[static_cast<size_t>(i)] = dims[static_cast<size_t>(l[static_cast<size_t>(i)])];
    return s;
  };
  const auto physical = [&](const std::vector<int>& l) {
    std::vector<int> p;
    const auto s = sizes(l);
    for (int i = 0; i < C::kSlots; ++i)
      if (s[static_cast<size_t>(i)] > 1) p.push_back(l[static_cast<size_t>(i)]);
    return p;
  };
  const auto pad = [](double d, double m) { return d > 0 ? std::log2(std::ceil(d / m) * m / d) : 0.0; };
  const auto at = [](const std::vector<int>& v, size_t i) { return i < v.size() ? v[i] : -1; };
  const auto sl = sizes(L), sp = sizes(P);
  const double log_pad_l = pad(sl[0], 128) + pad(sl[1], 8), log_pad_p = pad(sp[0], 128) + pad(sp[1], 8);
  const bool comparable = L[0] >= 0 && P[0] >= 0;
  const auto pl = physical(L), pp = physical(P);
  double elements = dims[0] > 0 ? 1 : 0;
  for (float d : dims) elements *= std::max(1.0f, d);
  const double bytes = elements * bits / 8, padded_l = bytes * std::exp2(log_pad_l), padded_p = bytes * std::exp2(log_pad_p);
  const auto lg = [](double x, double s) { return std::log2(1 + x) / s; };
  const int p0 = static_cast<int>(prefs[0]), p1 = static_cast<int>(prefs[1]), avoid = static_cast<int>(prefs[2]);
  bool row_major = true;
  for (size_t i = 1; i < pl.size(); ++i) row_major = row_major && pl[i] < pl[i - 1];
  return {lg(sl[0], 8),
          lg(sl[1], 8),
          pad(sl[0], 128),
          pad(sl[1], 8),
          comparable ? 1.0 : 0.0,
          comparable && at(pl, 0) == at(pp, 0) ? 1.0 : 0.0,
          comparable && at(pl, 1) == at(pp, 1) ? 1.0 : 0.0,
          comparable && pl == pp ? 1.0 : 0.0,
          lg(bytes, 16),
          lg(padded_l, 16),
          lg(padded_p, 16),
          lg(padded_l + padded_p, 16),
          p0 >= 0 && L[0] != p0 ? 1.0 : 0.0,
          p1 >= 0 && L[1] != p1 ? 1.0 : 0.0,
          avoid >= 0 && (L[0] == avoid || L[1] == avoid) ? 1.0 : 0.0,
          row_major ? 1.0 : 0.0};
}

std::vector<int> random_layout(std::mt19937& rng, int rank) {
  std::vector<int> l(C::kSlots, -1);
  std::vector<int> perm(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) perm[static_cast<size_t>(i)] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  std::copy(perm.begin(), perm.end(), l.begin());
  return l;
}

// Random shapes with size-1 dims, random layouts, producers configurable
// or not: the tensor implementation agrees with the scalar definition.
TEST(LayoutTiling, MatchesANaiveImplementation) {
  std::mt19937 rng(7);
  const int64_t B = 5, nc = 6;
  const std::vector<int64_t> dim_choices = {1, 1, 3, 7, 8, 64, 127, 128, 130, 1000};
  std::vector<float> ctx(static_cast<size_t>(nc * C::kWidth), 0.0f);
  std::vector<std::vector<int>> rank(static_cast<size_t>(nc), std::vector<int>(3));
  for (int64_t i = 0; i < nc; ++i) {
    float* row = ctx.data() + i * C::kWidth;
    for (int t = 0; t < 3; ++t) {
      const int r = static_cast<int>(rng() % 5);  // 0 = absent operand
      rank[static_cast<size_t>(i)][static_cast<size_t>(t)] = r;
      float* blk = row + t * C::kTensorWidth;
      for (int s = 0; s < C::kSlots; ++s) {
        blk[C::kDims + s] = s < r ? static_cast<float>(dim_choices[rng() % dim_choices.size()]) : 0.0f;
        blk[C::kLayout + s] = -1;
      }
      const auto built = random_layout(rng, r);
      for (int s = 0; s < r; ++s) blk[C::kLayout + s] = static_cast<float>(built[static_cast<size_t>(s)]);
      blk[C::kBits] = r > 0 ? (rng() % 2 ? 32.0f : 16.0f) : 0.0f;
      for (int k : {C::kPrefer0, C::kPrefer1, C::kAvoid})
        blk[k] = r > 0 && rng() % 3 ? static_cast<float>(rng() % static_cast<unsigned>(r)) : -1.0f;
    }
    // Node i's operands come from earlier nodes half the time.
    row[C::kInProducer] = i > 0 && rng() % 2 ? static_cast<float>(rng() % i) : -1.0f;
    row[C::kKernelProducer] = i > 1 && rng() % 2 ? static_cast<float>(rng() % i) : -1.0f;
  }
  std::vector<float> cfg(static_cast<size_t>(B * nc * 18));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < nc; ++i)
      for (int t = 0; t < 3; ++t) {
        const auto l = random_layout(rng, rank[static_cast<size_t>(i)][static_cast<size_t>(t)]);
        std::copy(l.begin(), l.end(), cfg.begin() + (b * nc + i) * 18 + t * C::kSlots);
      }
  const auto config = torch::tensor(cfg).view({B, nc, 18});
  const auto features = layout_tiling_features(config, torch::tensor(ctx).view({nc, C::kWidth}));
  ASSERT_EQ(features.sizes(), (std::vector<int64_t>{B, nc, kTilingFeatures}));

  const auto slots = [](const float* p) { return std::vector<int>(p, p + C::kSlots); };
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < nc; ++i) {
      const float* row = ctx.data() + i * C::kWidth;
      const float* own = cfg.data() + (b * nc + i) * 18;
      for (int t = 0; t < 3; ++t) {
        const float* blk = row + t * C::kTensorWidth;
        std::vector<int> ref = slots(blk + C::kLayout);
        if (t > 0) {
          const int p = static_cast<int>(row[t == 1 ? C::kInProducer : C::kKernelProducer]);
          if (p >= 0) ref = slots(cfg.data() + (b * nc + p) * 18);  // the producer's output layout
        }
        std::vector<int> own_layout(own + t * C::kSlots, own + t * C::kSlots + C::kSlots);
        const auto want = naive_features(own_layout, ref, std::vector<float>(blk + C::kDims, blk + C::kDims + C::kSlots),
                                         blk[C::kBits], blk + C::kPrefer0);
        for (int k = 0; k < kTilingPerLayout; ++k)
          EXPECT_NEAR(features[b][i][t * kTilingPerLayout + k].item<double>(), want[static_cast<size_t>(k)], 1e-4)
              << "config " << b << " node " << i << " tensor " << t << " feature " << k;
      }
    }
}

TEST(LayoutTiling, RejectsWrongShapes) {
  const auto cfg = torch::zeros({2, 3, 18});
  EXPECT_NE(test::error_of([&] { layout_tiling_features(torch::zeros({2, 3, 10}), torch::zeros({3, C::kWidth})); })
                .find("[B, nc, 18]"),
            std::string::npos);
  EXPECT_NE(test::error_of([&] { layout_tiling_features(cfg, torch::zeros({4, C::kWidth})); }).find("[3, 50]"),
            std::string::npos);
  EXPECT_EQ(layout_tiling_features(torch::zeros({2, 0, 18}), torch::zeros({0, C::kWidth})).sizes(),
            (std::vector<int64_t>{2, 0, kTilingFeatures}));
}

}  // namespace
}  // namespace fastslow::models
