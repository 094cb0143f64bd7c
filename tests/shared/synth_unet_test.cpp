// The training-step template (template_unet_training.cpp): what makes it a
// training step, checked on the graph itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "fastslow/graph/hlo_tables.h"
#include "fastslow/synth/features.h"
#include "fastslow/synth/layout_configs.h"
#include "fastslow/synth/templates.h"
#include "training_program.h"

namespace fastslow::synth {
namespace {

double product(const std::vector<int64_t>& d) {
  double p = 1;
  for (int64_t x : d) p *= static_cast<double>(x);
  return p;
}

// Multiply-accumulates of a convolution, as XLA counts them: output
// elements x kernel input features x kernel window.
double macs(const HloGraph& g, const HloNode& n) {
  const HloNode& k = g.nodes[static_cast<size_t>(n.operands[1])];
  double per = static_cast<double>(k.dims[static_cast<size_t>(n.conv_dims.kernel_input_feature)]);
  for (int64_t s : n.conv_dims.kernel_spatial) per *= static_cast<double>(k.dims[static_cast<size_t>(s)]);
  return product(n.dims) * per;
}

TEST(SynthUnet, IsATrainingStepWithWhatRealOnesHold) {
  int three_d = 0, pooled = 0, reduced = 0, mixed = 0, looped = 0, accumulated = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    const HloGraph g = unet_training(rng, 1500);
    ASSERT_NO_THROW(check_graph(g));
    const auto ops = opcode_counts(g);
    // The state in a training loop's tuple, or three tuple parameters of a
    // step alone beside the input and labels.
    const int tensors = check_training_program(g, 2, looped);
    accumulated += check_accumulation(g, tensors);
    // Every weight and bias is updated from its two moments.
    EXPECT_GT(tensors, 2);
    EXPECT_GE(ops.at("get-tuple-element"), 3 * tensors);
    EXPECT_GT(ops.at("select"), 0);      // the ReLUs' gradients
    EXPECT_GT(ops.at("sqrt"), tensors);  // Adam
    three_d += std::any_of(g.nodes.begin(), g.nodes.end(), [](const HloNode& n) { return n.rank() == 5; });
    pooled += ops.count("select-and-scatter") > 0;
    reduced += ops.count("all-reduce") > 0;
    mixed += ops.count("convert") > 0;
    if (ops.count("select-and-scatter")) {
      EXPECT_EQ(ops.at("select-and-scatter"), ops.at("reduce-window"));
    }
    if (ops.count("all-reduce")) {
      EXPECT_GE(ops.at("get-tuple-element"), tensors);
    }

    // Each convolution of the forward pass with SAME padding has a
    // weight-gradient convolution of the same work, whose output is the
    // weight's shape: the batch contracted, input batch and feature swapped.
    std::multiset<double> forward, weight_grads;
    std::set<std::vector<int64_t>> weights;
    for (const HloNode& n : g.nodes)
      if (op(n) == "get-tuple-element") weights.insert(n.dims);  // the state tuples' elements
    for (const HloNode& n : g.nodes) {
      if (op(n) != "convolution") continue;
      const bool nhwc = n.conv_dims.input_batch == 0 && n.conv_dims.input_feature == n.rank() - 1;
      const bool same = nhwc && std::all_of(n.window.stride.begin(), n.window.stride.end(), [](int64_t s) { return s == 1; }) &&
                        std::none_of(n.window.reversal.begin(), n.window.reversal.end(), [](bool r) { return r; }) &&
                        std::all_of(n.window.base_dilation.begin(), n.window.base_dilation.end(), [](int64_t d) { return d == 1; });
      const HloNode& in = g.nodes[static_cast<size_t>(n.operands[0])];
      if (same && in.dims[static_cast<size_t>(n.conv_dims.input_spatial[0])] == n.dims[1]) forward.insert(macs(g, n));
      if (n.conv_dims.input_feature == 0) {
        EXPECT_TRUE(weights.count(n.dims)) << "a weight gradient of no weight's shape";
        weight_grads.insert(macs(g, n));
      }
    }
    for (double f : forward) EXPECT_TRUE(weight_grads.count(f)) << "no weight gradient of " << f << " MACs";
  }
  // The draws cover 2-D and 3-D nets, max-pools and strided convolutions,
  // replicated and single steps, bf16 and f32.
  EXPECT_GT(three_d, 0);
  EXPECT_LT(three_d, 12);
  EXPECT_GT(pooled, 0);
  EXPECT_LT(pooled, 12);
  EXPECT_GT(reduced, 0);
  EXPECT_LT(reduced, 12);
  EXPECT_GT(mixed, 0);
  EXPECT_GT(looped, 0);
  EXPECT_LT(looped, 12);
  // Some looped programs accumulate gradients, not all.
  EXPECT_GT(accumulated, 0);
  EXPECT_LT(accumulated, looped);
}

TEST(SynthUnet, LandsNearItsTargetAndItsConfigsUseFiveDimensionalLayouts) {
  for (int target : {300, 800, 2500, 5000}) {
    SCOPED_TRACE("target " + std::to_string(target));
    int64_t nearest = 1 << 30;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      Rng rng(seed);
      const HloGraph g = unet_training(rng, target);
      nearest = std::min<int64_t>(nearest, std::abs(g.num_nodes() - target));
    }
    EXPECT_LE(nearest, target / 5 + 50);
  }
  // A 3-D net's convolutions have rank-5 tensors: layout configs name dims
  // up to 4, as on the real unet3d.
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Rng rng(seed);
    const HloGraph g = unet_training(rng, 800);
    if (std::none_of(g.nodes.begin(), g.nodes.end(), [](const HloNode& n) { return n.rank() == 5; })) continue;
    const LayoutSpace s = layout_space(g);
    ASSERT_FALSE(s.nodes.empty());
    EXPECT_EQ(*std::max_element(s.out_rank.begin(), s.out_rank.end()), 5);
    Rng pick(seed);
    const std::vector<float> cfg = sample_layout_configs(g, s, LayoutSearch::Random, 20, pick);
    EXPECT_EQ(*std::max_element(cfg.begin(), cfg.end()), 4.0f);
    return;
  }
  FAIL() << "no 3-D net in 20 seeds";
}

}  // namespace
}  // namespace fastslow::synth
