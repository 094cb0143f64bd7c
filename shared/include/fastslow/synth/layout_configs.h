// Layout configurations of a synthetic layout graph: the published
// node_config_feat rows, shaped like the real ones. Each configurable node
// (convolution, dot, reshape) gets 18 values: three minor-to-major orders,
// of its output, its first operand (input) and its second operand (kernel;
// conv/dot only), 6 slots each, -1 padded. As in the published files:
//  - a convolution's or dot's layout names only its two minor-most dims
//    (one for rank 1): the rest of the order is left to the compiler;
//  - a reshape's layout is a whole permutation;
//  - a layout of all -1 leaves the tensor to the compiler (its layout as
//    built, row-major);
//  - a node takes its rows from a small menu (2-9 distinct rows per node,
//    as in the real files): a search explores a handful of candidate
//    layouts per op, not every permutation of every tensor.
// The cost model (layout_cost.h) completes a partial layout with the rest
// of the built order.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fastslow/synth/hlo.h"
#include "fastslow/rng.h"

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
// The space of some of them: a real file's configurable nodes, which need
// not be every convolution, dot and reshape (graph_from_features.h).
LayoutSpace layout_space(const HloGraph& g, std::vector<int64_t> nodes);

using LayoutRow = std::array<float, kLayoutConfigWidth>;

// Per configurable node, its candidate rows; row 0 is the default (every
// tensor's layout as built: the two minor-most dims of its built order for
// conv/dot, the whole built order for reshape). The others combine, per
// tensor, the built order with its two minor-most dims swapped, "left to
// the compiler" (all -1), and for a convolution's input and output its
// (feature, batch) pair in either order, as the real files' menus do.
std::vector<std::vector<LayoutRow>> layout_menus(const HloGraph& g, const LayoutSpace& s, Rng& rng);

// nodes x 18: every node's default row.
std::vector<float> default_layout_config(const HloGraph& g, const LayoutSpace& s);

// count x nodes x 18, row-major, from the menus layout_menus(g, s, rng) draws.
// Random: each node's row uniform over its menu, independently.
// Default: a genetic-search-like walk from the default config: each
//   config copies a parent (now and then the default, usually an earlier
//   sampled config) and moves 1 to max(3, nodes / 6) nodes to another row
//   of their menu, so configs are closer to each other than random ones.
std::vector<float> sample_layout_configs(const HloGraph& g, const LayoutSpace& s, LayoutSearch search,
                                         int64_t count, Rng& rng);

}  // namespace fastslow::synth
