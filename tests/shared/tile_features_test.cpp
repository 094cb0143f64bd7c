#include "fastslow/features/tile_features.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/synth/features.h"
#include "fastslow/synth/templates.h"
#include "fastslow/synth/tile_configs.h"

namespace fastslow {
namespace {

constexpr int S = TileContext::kSlots;

// The features recomputed from the generator's own TileSpace (what the
// runtimes were made from), one dim at a time with plain loops.
std::vector<double> naive(const synth::TileSpace& s, const float* c) {
  std::vector<double> f(kTileDerived, 0.0);
  const int rank = static_cast<int>(s.out_dims.size());
  double steps_all = 1, executed = 1, useful = 1, block = 1;
  for (int i = 0; i < rank; ++i) {
    const double d = static_cast<double>(s.out_dims[i]);
    const double k = std::round(c[synth::kTileKernelCol + i]), t = std::round(c[synth::kTileOutputCol + i]);
    const double u = static_cast<double>(static_cast<int>(s.roles[i]));
    const double pk = std::ceil(k / u) * u;
    f[i] = std::log2(std::ceil(d / t));
    f[S + i] = std::log2(std::ceil(t / k));
    f[2 * S + i] = std::log2(pk / k);
    double steps = 0;
    for (double start = 0; start < d; start += t) steps += std::ceil(std::min(t, d - start) / k);
    steps_all *= steps;
    executed *= steps * pk;
    useful *= d;
    block *= std::ceil(t / u) * u;
  }
  if (s.contract > 0) {
    const double k = std::round(c[synth::kTileKernelCol + rank]);
    f[3 * S] = std::log2(std::ceil(k / 128) * 128 / k);
    f[3 * S + 1] = std::log2(1 + k);
  }
  f[3 * S + 2] = std::log2(steps_all);
  f[3 * S + 3] = std::log2(executed / useful);
  f[3 * S + 4] = std::log2(1 + block);
  f[3 * S + 5] = std::max(0.0, std::log2(8 * block / (16.0 * 1024 * 1024)));
  return f;
}

TEST(TileFeatures, MatchTheGeneratorsTilingOnGeneratedKernels) {
  Rng rng(11);
  int checked = 0, with_contraction = 0;
  for (int n = 0; n < 40; ++n) {
    const synth::HloGraph g = synth::tile_kernel(rng, static_cast<int>(rng.uniform_int(5, 80)));
    const synth::TileSpace s = synth::tile_space(g);
    const std::vector<float> feat = synth::node_features(g);
    const int64_t width = static_cast<int64_t>(node_feature_names().size());
    const TileContext c = tile_context(static_cast<int64_t>(g.nodes.size()), width, feat);
    if (s.out_dims.empty()) {  // a scalar output: nothing is tiled
      EXPECT_FALSE(c.known);
      continue;
    }
    ASSERT_TRUE(c.known) << "output rank " << s.out_dims.size();
    ASSERT_EQ(c.rank, static_cast<int>(s.out_dims.size()));
    for (int i = 0; i < c.rank; ++i) {
      EXPECT_EQ(c.dims[i], s.out_dims[i]);
      EXPECT_EQ(c.unit[i], static_cast<int64_t>(s.roles[i])) << "dim " << i;
    }
    with_contraction += s.contract > 0;
    const std::vector<float> configs = synth::sample_tile_configs(g, s, 8, rng);
    const int64_t count = static_cast<int64_t>(configs.size()) / kTileConfigColumns;
    const std::vector<float> rows = with_tile_features(c, configs, count);
    for (int64_t r = 0; r < count; ++r) {
      const float* in = &configs[r * kTileConfigColumns];
      const float* out = &rows[r * (kTileConfigColumns + kTileDerived)];
      for (int64_t j = 0; j < kTileConfigColumns; ++j) ASSERT_EQ(out[j], in[j]);
      const std::vector<double> want = naive(s, in);
      for (int64_t j = 0; j < kTileDerived; ++j)
        ASSERT_NEAR(out[kTileConfigColumns + j], want[j], 1e-4 * (1 + std::abs(want[j]))) << "feature " << j;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
  EXPECT_GT(with_contraction, 3);  // the contracted tile's features were exercised
}

TEST(TileFeatures, HandWorkedExample) {
  // Output [300, 1000], minor-most dim 1: dim 1 pads to 128 lanes, dim 0 to
  // 8 sublanes. Block [64, 512], kernel tile [24, 200].
  TileContext c;
  c.known = true;
  c.rank = 2;
  c.dims[0] = 300;
  c.dims[1] = 1000;
  c.unit[0] = 8;
  c.unit[1] = 128;
  float config[kTileConfigColumns] = {};
  config[0] = 24;
  config[1] = 200;
  config[8] = 64;
  config[9] = 512;
  float f[kTileDerived];
  tile_features(c, config, f);
  EXPECT_FLOAT_EQ(f[0], std::log2(5.0f));                 // ceil(300/64) blocks
  EXPECT_FLOAT_EQ(f[1], 1.0f);                            // ceil(1000/512) = 2
  EXPECT_FLOAT_EQ(f[S], std::log2(3.0f));                 // ceil(64/24) steps per block
  EXPECT_FLOAT_EQ(f[S + 1], std::log2(3.0f));             // ceil(512/200)
  EXPECT_FLOAT_EQ(f[2 * S], 0.0f);                        // 24 is a multiple of 8
  EXPECT_FLOAT_EQ(f[2 * S + 1], std::log2(256.0f / 200)); // 200 lanes pad to 256
  // Steps: dim 0: 4 full blocks x 3 + ceil(44/24) = 14; dim 1: 1 x 3 + ceil(488/200) = 6.
  EXPECT_NEAR(f[3 * S + 2], std::log2(14.0 * 6.0), 1e-5);
  EXPECT_NEAR(f[3 * S + 3], std::log2(14.0 * 24 / 300) + std::log2(6.0 * 256 / 1000), 1e-5);
  EXPECT_NEAR(f[3 * S + 4], std::log2(1.0 + 64 * 512), 1e-5);
  EXPECT_FLOAT_EQ(f[3 * S + 5], 0.0f);  // 256 KiB fits on chip
  EXPECT_FLOAT_EQ(f[3 * S], 0.0f);      // no contracted tile
}

TEST(TileFeatures, UnknownWithoutThePublishedColumns) {
  const TileContext c = tile_context(3, 10, std::vector<float>(30, 1.0f));
  EXPECT_FALSE(c.known);
  const std::vector<float> rows = with_tile_features(c, std::vector<float>(kTileConfigColumns, 4.0f), 1);
  ASSERT_EQ(rows.size(), static_cast<size_t>(kTileConfigColumns + kTileDerived));
  for (int64_t j = 0; j < kTileDerived; ++j) EXPECT_EQ(rows[kTileConfigColumns + j], 0.0f);
}

TEST(TileFeatures, RowsOfTheWrongWidthAreRefused) {
  EXPECT_THROW(with_tile_features(TileContext{}, std::vector<float>(23), 1), Error);
  EXPECT_THROW(tile_context(2, static_cast<int64_t>(node_feature_names().size()), std::vector<float>(5)), Error);
}

}  // namespace
}  // namespace fastslow
