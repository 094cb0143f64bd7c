// Layout configurations of a synthetic layout graph: the published
// node_config_feat rows. Each configurable node (convolution, dot, reshape)
// gets 18 values: the minor-to-major order of its output, of its first
// operand (input) and of its second operand (kernel; conv/dot only), each a
// permutation of 0..rank-1 padded with -1 to 6 slots.
#pragma once

#include <cstdint>
#include <vector>

#include "fastslow/synth/hlo.h"
#include "fastslow/synth/rng.h"

namespace fastslow::synth {

constexpr int kLayoutSlots = 6;          // per layout
constexpr int kLayoutConfigWidth = 18;   // output, input, kernel

// How a collection's configs were searched, as in the published
// layout:{xla,nlp}:{random,default} collections.
enum class LayoutSearch { Random, Default };

// The nodes a config covers and the rank of each of their three layouts.
struct LayoutSpace {
  std::vector<int64_t> nodes;                  // configurable node ids, ascending
  std::vector<int> out_rank, in_rank, kernel_rank;  // per node, 0 when absent
  int64_t size() const { return static_cast<int64_t>(nodes.size()); }
};

LayoutSpace layout_space(const HloGraph& g);

// nodes x 18: every node keeps the layouts the graph was built with (XLA's
// default row-major layouts), which the cost model (layout_cost.h) prefers
// for most nodes: no copies at all, preferred conv/dot layouts for the
// common NHWC / [.., m, k] x [.., k, n] operand shapes.
std::vector<float> default_layout_config(const HloGraph& g, const LayoutSpace& s);

// count x nodes x 18, row-major.
// Random: every layout of every node is uniform over the permutations of its
//   rank, independently.
// Default: a genetic-search-like walk around default_layout_config: each
//   config copies a parent (the default, or an earlier sampled config) and
//   mutates one to three nodes (a fresh random layout, or two adjacent
//   dimensions swapped), so configs are close to each other and to the default.
std::vector<float> sample_layout_configs(const HloGraph& g, const LayoutSpace& s, LayoutSearch search,
                                         int64_t count, Rng& rng);

}  // namespace fastslow::synth
