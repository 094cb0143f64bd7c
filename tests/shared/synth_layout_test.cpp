#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/rank/metrics.h"
#include "fastslow/synth/dataset.h"
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

// A -1-padded list of distinct dims of a rank-`rank` tensor naming `want`
// dims, or none (all -1: left to the compiler).
void expect_layout(const float* slots, int rank, int want) {
  std::vector<bool> seen(static_cast<size_t>(std::max(rank, 1)), false);
  int named = 0;
  for (int i = 0; i < kLayoutSlots; ++i) {
    const float v = slots[i];
    ASSERT_EQ(v, std::floor(v));
    if (v < 0) {
      ASSERT_EQ(v, -1.0f);
      continue;
    }
    ASSERT_EQ(i, named) << "a dim after a -1";
    const int x = static_cast<int>(v);
    ASSERT_LT(x, rank);
    ASSERT_FALSE(seen[static_cast<size_t>(x)]);
    seen[static_cast<size_t>(x)] = true;
    ++named;
  }
  if (named > 0) {
    ASSERT_EQ(named, want);
  }
}

// Conv and dot layouts name their two minor-most dims (one for rank 1),
// reshapes whole orders, as the published files do.
void expect_valid_configs(const HloGraph& g, const LayoutSpace& s, const std::vector<float>& configs, int64_t count) {
  ASSERT_EQ(configs.size(), static_cast<size_t>(count) * s.nodes.size() * kLayoutConfigWidth);
  const int reshape = require_opcode("reshape");
  for (int64_t c = 0; c < count; ++c)
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      const bool whole = g.nodes[static_cast<size_t>(s.nodes[i])].opcode == reshape;
      const float* row = configs.data() + (static_cast<size_t>(c) * s.nodes.size() + i) * kLayoutConfigWidth;
      const auto want = [&](int rank) { return whole ? rank : std::min(rank, 2); };
      expect_layout(row, s.out_rank[i], want(s.out_rank[i]));
      expect_layout(row + kLayoutSlots, s.in_rank[i], want(s.in_rank[i]));
      expect_layout(row + 2 * kLayoutSlots, s.kernel_rank[i], want(s.kernel_rank[i]));
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

struct DotInto;
bool test_throws(const DotInto& t, const std::vector<float>& c);

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
    expect_valid_configs(g, s, def, 1);
    for (LayoutSearch search : {LayoutSearch::Random, LayoutSearch::Default}) {
      Rng rng(3);
      const std::vector<float> c = sample_layout_configs(g, s, search, 50, rng);
      expect_valid_configs(g, s, c, 50);
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
  EXPECT_LT(genetic * 2, random);
}

TEST(SynthLayout, MenusAreSmallAndConfigsComeFromThem) {
  for (const HloGraph& g : {resnet_graph(), transformer_graph()}) {
    const LayoutSpace s = layout_space(g);
    Rng menu_rng(7), rng(7);
    const auto menus = layout_menus(g, s, menu_rng);
    const std::vector<float> def = default_layout_config(g, s);
    ASSERT_EQ(menus.size(), s.nodes.size());
    for (size_t i = 0; i < menus.size(); ++i) {
      // Real files: 1 to 9 distinct rows per configurable node.
      ASSERT_GE(menus[i].size(), 1u);
      ASSERT_LE(menus[i].size(), 9u);
      EXPECT_TRUE(std::equal(menus[i][0].begin(), menus[i][0].end(), def.begin() + static_cast<std::ptrdiff_t>(i * 18)));
      for (size_t a = 0; a < menus[i].size(); ++a)
        for (size_t b = a + 1; b < menus[i].size(); ++b) EXPECT_NE(menus[i][a], menus[i][b]);
    }
    // The samplers draw the same menus first, then rows from them.
    for (LayoutSearch search : {LayoutSearch::Random, LayoutSearch::Default}) {
      Rng r(7);
      const std::vector<float> c = sample_layout_configs(g, s, search, 100, r);
      for (int64_t k = 0; k < 100; ++k)
        for (size_t i = 0; i < s.nodes.size(); ++i) {
          LayoutRow row;
          std::copy_n(c.begin() + static_cast<std::ptrdiff_t>((static_cast<size_t>(k) * s.nodes.size() + i) * 18), 18,
                      row.begin());
          ASSERT_NE(std::find(menus[i].begin(), menus[i].end(), row), menus[i].end()) << "config " << k << " node " << i;
        }
    }
  }
}

TEST(SynthLayoutCost, PartialLayoutsTakeTheRestFromTheBuiltOrder) {
  EXPECT_EQ(complete_layout({2}, {3, 2, 1, 0}), std::vector<int>({2, 3, 1, 0}));
  EXPECT_EQ(complete_layout({1, 3}, {3, 2, 1, 0}), std::vector<int>({1, 3, 2, 0}));
  EXPECT_EQ(complete_layout({}, {3, 2, 1, 0}), std::vector<int>({3, 2, 1, 0}));
  EXPECT_EQ(complete_layout({0, 1, 2}, {2, 1, 0}), std::vector<int>({0, 1, 2}));
}

TEST(SynthLayoutCost, TheDefaultAndLeavingAllToTheCompilerCostOnlyCompute) {
  for (const HloGraph& g : {resnet_graph(), transformer_graph()}) {
    const LayoutSpace s = layout_space(g);
    const std::vector<float> def = default_layout_config(g, s);
    const LayoutCostTerms d = layout_cost_terms(g, s, def.data());
    EXPECT_GT(d.compute, 0);
    EXPECT_EQ(d.padding, 0);
    EXPECT_EQ(d.copies, 0);
    EXPECT_EQ(d.mxu, 0);
    const std::vector<float> unset(def.size(), -1.0f);
    EXPECT_DOUBLE_EQ(layout_runtime(g, s, unset.data()), d.total());
  }
}

// param [m, k] x param [k, n] -> dot [m, n] -> a reduce (a fusion barrier:
// the dot's output is written as configured) or an exponential (fusible:
// XLA picks the intermediate's layout).
struct DotInto {
  HloGraph g;
  LayoutSpace s;
  std::vector<float> def;
  double flops = 0;
  DotInto(int64_t m, int64_t k, int64_t n, bool barrier) {
    HloBuilder b;
    const int d = b.matmul(b.parameter(ElementType::F32, {m, k}), b.parameter(ElementType::F32, {k, n}));
    g = b.build(barrier ? b.reduce(d, b.constant(ElementType::F32, {}), {1}) : b.unary("exponential", d));
    s = layout_space(g);
    EXPECT_EQ(s.nodes.size(), 1u);
    def = default_layout_config(g, s);
    flops = 2.0 * static_cast<double>(m * n * k);
  }
  // The output's two minor dims swapped: [m, n] with m minor-most.
  std::vector<float> swapped_output() const {
    std::vector<float> c = def;
    std::swap(c[0], c[1]);
    return c;
  }
  LayoutCostTerms delta(const std::vector<float>& c) const {
    const LayoutCostTerms a = layout_cost_terms(g, s, c.data()), d = layout_cost_terms(g, s, def.data());
    return {a.compute - d.compute, a.padding - d.padding, a.copies - d.copies, a.mxu - d.mxu};
  }
};

TEST(SynthLayoutCost, TheMatrixUnitReadsSwappedOperandsForFree) {
  const DotInto t(256, 128, 256, true);
  std::vector<float> c = t.def;
  std::swap(c[6], c[7]);    // input read with its other dim minor
  std::swap(c[12], c[13]);  // kernel too
  const LayoutCostTerms d = t.delta(c);
  EXPECT_EQ(d.copies, 0);
  EXPECT_EQ(d.padding, 0);  // 128 and 256 both fill whole tiles either way
  EXPECT_EQ(d.mxu, 0);
}

// A batched matmul whose lhs [batch, 256, 384] is read batch-minor: the
// matrix unit's loads stride over a batch of 2 (real unet3d: a
// convolution's input named batch-minor or feature-minor runs alike), but
// a batch of 16 has to be copied into that order first.
TEST(SynthLayoutCost, TheMatrixUnitStridesOverATinyDimButCopiesToMoveALongerOne) {
  const auto copies = [](int64_t batch) {
    HloBuilder b;
    const int lhs = b.unary("exponential", b.parameter(ElementType::F32, {batch, 256, 384}));
    const int d = b.matmul(lhs, b.parameter(ElementType::F32, {batch, 384, 512}));
    const HloGraph g = b.build(b.reduce(d, b.constant(ElementType::F32, {}), {1}));
    const LayoutSpace s = layout_space(g);
    EXPECT_EQ(s.nodes.size(), 1u);
    std::vector<float> c = default_layout_config(g, s);
    EXPECT_EQ(layout_values(c.data() + kLayoutSlots)[0], 2);  // built: k minor-most
    c[kLayoutSlots] = 0;      // the batch minor-most
    c[kLayoutSlots + 1] = 2;  // then k
    const std::vector<float> def = default_layout_config(g, s);
    return layout_cost_terms(g, s, c.data()).copies - layout_cost_terms(g, s, def.data()).copies;
  };
  EXPECT_EQ(copies(kTinyLane - 1), 0);
  EXPECT_EQ(copies(kTinyLane), 0);
  EXPECT_GT(copies(16), 0);
}

TEST(SynthLayoutCost, ARelayoutForABarrierIsCopiedInFullAndFoldedIntoAFusibleUser) {
  // [256, 384] fills whole tiles in either order and keeps the matrix unit
  // busy: only the copy back to the order the user wants differs.
  const double bytes = 256.0 * 384 * 4;
  const LayoutCostTerms full = DotInto(256, 512, 384, true).delta(DotInto(256, 512, 384, true).swapped_output());
  EXPECT_DOUBLE_EQ(full.copies, kLaneTransposeFactor * 2 * bytes / kBytesPerNs);
  EXPECT_EQ(full.padding, 0);
  EXPECT_EQ(full.mxu, 0);
  const DotInto fused(256, 512, 384, false);
  EXPECT_DOUBLE_EQ(fused.delta(fused.swapped_output()).copies, kFusedCopyShare * kLaneTransposeFactor * 2 * bytes / kBytesPerNs);
}

TEST(SynthLayoutCost, PaddingAndAStarvedMatrixUnitCostInFullWhereTheLayoutSticks) {
  // [200, 2048] f32 (1.6 MB, off chip): 200 minor pads to 256 lanes and
  // fills the matrix unit to 200/256; built, 2048 lanes and 200 sublanes
  // fill whole tiles.
  const DotInto pinned(200, 64, 2048, true), fused(200, 64, 2048, false);
  ASSERT_GT(200.0 * 2048 * 4, kOnChipLayoutBytes);
  const double extra = (256.0 - 200.0) * 2048 * 4;
  const double slowdown = 256.0 / 200.0 - 1;
  const LayoutCostTerms p = pinned.delta(pinned.swapped_output()), f = fused.delta(fused.swapped_output());
  EXPECT_DOUBLE_EQ(p.padding, extra * 2 / kBytesPerNs);  // written once, read by its one user
  EXPECT_DOUBLE_EQ(p.mxu, pinned.flops / kFlopsPerNs * slowdown);
  EXPECT_DOUBLE_EQ(f.padding, kFusedCopyShare * extra * 2 / kBytesPerNs);
  EXPECT_DOUBLE_EQ(f.mxu, kFusedMxuShare * fused.flops / kFlopsPerNs * slowdown);
  // A small output stays on chip, where the emitter re-tiles it, pinned or not.
  const DotInto small(200, 64, 128, true);
  EXPECT_DOUBLE_EQ(small.delta(small.swapped_output()).mxu, kFusedMxuShare * small.flops / kFlopsPerNs * slowdown);
}

TEST(SynthLayoutCost, AStarvedTensorCostsInFullEvenWhenFused) {
  // [3, 131072] f32 is 1.5 MB, more than on-chip memory: 3 values per 128 lanes.
  const DotInto t(3, 128, 131072, false);
  ASSERT_GT(3.0 * 131072 * 4, kOnChipLayoutBytes);
  const LayoutCostTerms d = t.delta(t.swapped_output());
  const double built = 131072.0 * 8, swapped = 128.0 * 131072;  // padded elements
  EXPECT_DOUBLE_EQ(d.padding, (swapped - built) * 4 * 2 / kBytesPerNs);
  EXPECT_DOUBLE_EQ(d.mxu, t.flops / kFlopsPerNs * kMaxMxuSlowdown);
  // A small tensor of that shape stays on chip, where the emitter re-tiles it.
  const DotInto small(3, 128, 1024, false);
  EXPECT_DOUBLE_EQ(small.delta(small.swapped_output()).mxu, kFusedMxuShare * small.flops / kFlopsPerNs * kMaxMxuSlowdown);
}

TEST(SynthLayoutCost, ALongerMinorDimThanBuiltIsFaster) {
  // [512, 64]: built 64 lanes (half empty), swapped 512; the reduce then
  // wants it copied back, a fused exponential folds that in.
  const DotInto t(512, 256, 64, false);
  const LayoutCostTerms d = t.delta(t.swapped_output());
  EXPECT_DOUBLE_EQ(d.mxu, -kFusedMxuShare * t.flops / kFlopsPerNs);  // slowdown 1 -> 0
  EXPECT_LT(d.padding, 0);
  EXPECT_LT(layout_runtime(t.g, t.s, t.swapped_output().data()), layout_runtime(t.g, t.s, t.def.data()));
}

// input [2, 128, 128, 32] (*) kernel [1, 1, 32, 32] -> conv [2, 128, 128, 32]
// (4 MB, off chip) -> a reduce, which wants it as built (feature-minor).
// Stored with a spatial dim minor-most, its 128 lanes would fill the matrix
// unit by the old rule (a 0.6x graph in the proposal bench); but the unit's
// columns are the 32 features either way, and the result crosses the lanes
// as it is written: no real file's convolution is stored so.
TEST(SynthLayoutCost, AConvolutionStoredSpatialMinorIsWrittenThroughTheTransposeUnit) {
  HloBuilder b;
  const int c = b.convolution(b.parameter(ElementType::F32, {2, 128, 128, 32}), b.parameter(ElementType::F32, {1, 1, 32, 32}),
                              Window::of({1, 1}), ConvDimensionNumbers::nhwc(2));
  const HloGraph g = b.build(b.reduce(c, b.constant(ElementType::F32, {}), {1}));
  const LayoutSpace s = layout_space(g);
  ASSERT_EQ(s.nodes.size(), 1u);
  const std::vector<float> def = default_layout_config(g, s);
  ASSERT_EQ(layout_values(def.data())[0], 3);  // built: features minor-most
  const LayoutCostTerms d = layout_cost_terms(g, s, def.data());
  const auto delta = [&](int minor, int second) {
    std::vector<float> cfg = def;
    cfg[0] = static_cast<float>(minor);
    cfg[1] = static_cast<float>(second);
    const LayoutCostTerms a = layout_cost_terms(g, s, cfg.data());
    return LayoutCostTerms{a.compute - d.compute, a.padding - d.padding, a.copies - d.copies, a.mxu - d.mxu};
  };
  const double built = 2.0 * 128 * 128 * 128 * 4, spatial = 2.0 * 128 * 128 * 32 * 4;  // padded bytes
  const LayoutCostTerms w = delta(2, 3);  // the width minor-most, then the features
  EXPECT_EQ(w.mxu, 0);
  // Written through the transpose unit, then copied back for the reduce.
  EXPECT_DOUBLE_EQ(w.copies, kLaneTransposeFactor * (spatial + (spatial + built)) / kBytesPerNs);
  EXPECT_GT(w.total(), 0);
  // A batch of 2 named minor-most is strided over: the features still fill
  // the matrix unit and nothing is transposed as written, though the copy
  // back for the reduce moves tiles padded to 128 lanes.
  const LayoutCostTerms n = delta(0, 3);
  const double batch_minor = 128.0 * 32 * 128 * 128 * 4;
  EXPECT_EQ(n.mxu, 0);
  EXPECT_DOUBLE_EQ(n.copies, kLaneTransposeFactor * (batch_minor + built) / kBytesPerNs);
}

bool test_throws(const DotInto& t, const std::vector<float>& c) {
  try {
    layout_cost_terms(t.g, t.s, c.data());
  } catch (const Error&) {
    return true;
  }
  return false;
}

TEST(SynthLayoutCost, RejectsInvalidConfigs) {
  const DotInto t(64, 64, 64, true);
  const auto bad = [&](int slot, float v) {
    std::vector<float> c = t.def;
    c[static_cast<size_t>(slot)] = v;
    return test_throws(t, c);
  };
  EXPECT_TRUE(bad(1, t.def[0]));   // a repeated dim
  EXPECT_TRUE(bad(1, 2.0f));       // rank 2 has dims 0 and 1
  EXPECT_TRUE(bad(0, 0.5f));
  EXPECT_TRUE(bad(0, std::nanf("")));
  EXPECT_TRUE(bad(0, -1.0f));      // a dim after a -1
  EXPECT_FALSE(bad(7, -1.0f));     // one dim named, the rest left to the compiler
  // A reshape has no kernel.
  HloBuilder b;
  const HloGraph r = b.build(b.reshape(b.parameter(ElementType::F32, {8, 16}), {128}));
  const LayoutSpace rs = layout_space(r);
  std::vector<float> c = default_layout_config(r, rs);
  c[12] = 0;
  EXPECT_THROW(layout_cost_terms(r, rs, c.data()), Error);
}

// Calibration: random configs of generated graphs look like the real files'
// (a plateau with a tail; fastslow realism): most configs within 1 % of the
// best, a few slower.
TEST(SynthLayoutCost, RandomConfigsFormAPlateauWithATail) {
  std::vector<double> within, spread;
  for (ModelTemplate t : all_templates())
    for (uint64_t seed : {1, 2, 3}) {
      Rng graph_rng(seed);
      const HloGraph g = generate(t, graph_rng, 800);
      const LayoutSpace s = layout_space(g);
      Rng rng(seed + 10);
      const std::vector<double> r = runtimes(g, s, sample_layout_configs(g, s, LayoutSearch::Random, 300, rng), 300);
      const double lo = *std::min_element(r.begin(), r.end()), hi = *std::max_element(r.begin(), r.end());
      within.push_back(static_cast<double>(std::count_if(r.begin(), r.end(), [&](double x) { return x <= lo * 1.01; })) /
                       300.0);
      spread.push_back(hi / lo);
      std::printf("[ figures  ] %s seed %llu: %zu configurable, within 1%% of the best %.2f, max/min %.4f\n",
                  template_name(t), static_cast<unsigned long long>(seed), s.nodes.size(), within.back(), hi / lo);
      EXPECT_GE(lo, 1e3);  // real layout graphs run 1e5..1e10 ns
      EXPECT_LE(hi / lo, 5.4);
    }
  std::sort(within.begin(), within.end());
  std::sort(spread.begin(), spread.end());
  const size_t mid = within.size() / 2;
  const double mw = within.size() % 2 ? within[mid] : (within[mid - 1] + within[mid]) / 2;
  const double ms = spread.size() % 2 ? spread[mid] : (spread[mid - 1] + spread[mid]) / 2;
  std::printf("[ figures  ] medians: within 1%% %.2f, max/min %.4f\n", mw, ms);
  EXPECT_GE(mw, 0.3);
  EXPECT_LE(mw, 0.95);
  EXPECT_GE(ms, 1.01);
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

TEST(SynthLayoutCost, MeasurementNoiseKeepsMostOfTheOrder) {
  const HloGraph g = transformer_graph();
  const LayoutSpace s = layout_space(g);
  Rng rng(41);
  const std::vector<double> clean = runtimes(g, s, sample_layout_configs(g, s, LayoutSearch::Random, 2000, rng), 2000);
  std::vector<double> noisy;
  Rng noise(42);
  for (double t : clean) noisy.push_back(t * measurement_noise(noise, kLayoutNoise));
  const double tau = kendall_tau(noisy, clean);
  std::printf("[ figures  ] kendall_tau(noisy +-%.3g%%, clean) = %.4f\n", 100 * kLayoutNoise, tau);
  EXPECT_GE(tau, 0.8);
}

}  // namespace
}  // namespace fastslow::synth
