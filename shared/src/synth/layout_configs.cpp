#include "fastslow/synth/layout_configs.h"

#include <algorithm>
#include <string>
#include <utility>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"

namespace fastslow::synth {
namespace {

using Slots = std::array<float, kLayoutSlots>;

int array_rank(const HloNode& n) { return n.type == ElementType::Tuple ? 0 : n.rank(); }

// The layout a node was built with; a missing or malformed one falls back
// to the row-major default so the config stays a valid permutation.
std::vector<int> built_layout(const HloNode& n) {
  const int r = array_rank(n);
  if (static_cast<int>(n.minor_to_major.size()) == r) return n.minor_to_major;
  return default_layout(r);
}

Slots slots_of(const std::vector<int>& dims) {
  Slots s;
  s.fill(-1.0f);
  for (size_t i = 0; i < dims.size() && i < s.size(); ++i) s[i] = static_cast<float>(dims[i]);
  return s;
}

void add_option(std::vector<Slots>& options, const Slots& s) {
  if (std::find(options.begin(), options.end(), s) == options.end()) options.push_back(s);
}

// Candidate layouts of one tensor: as built (the default), the two
// minor-most dims swapped, "left to the compiler", and for a convolution's
// input and output its (feature, batch) pair in either order, the layouts
// TPU convolutions use (the real files' convolutions offer exactly those).
// A convolution's output keeps its feature dim minor-most, as the real
// files' forward convolutions do; a weight-gradient convolution's output
// (its "batch" dim is the weight's input features, not dim 0) is offered
// both orders of the pair, as real unet3d's menus offer them.
// `pair`: conv/dot layouts name their two minor-most dims; reshapes name
// whole orders. `feature`, `batch`: a convolution's dims of this tensor,
// -1 elsewhere.
std::vector<Slots> tensor_options(const HloNode& t, bool pair, int feature, int batch, bool conv_output) {
  const int r = array_rank(t);
  std::vector<Slots> out;
  const Slots unset = slots_of({});
  if (r == 0) return {unset};
  const std::vector<int> b = built_layout(t);
  if (r == 1) return {slots_of({0}), unset};
  if (pair) {
    add_option(out, slots_of({b[0], b[1]}));
    if (!conv_output) add_option(out, slots_of({b[1], b[0]}));
    if (feature >= 0 && batch >= 0 && feature != batch && feature < r && batch < r) {
      add_option(out, slots_of({feature, batch}));
      if (!conv_output || batch != 0) add_option(out, slots_of({batch, feature}));
    }
  } else {
    add_option(out, slots_of(b));
    std::vector<int> swapped = b;
    std::swap(swapped[0], swapped[1]);
    add_option(out, slots_of(swapped));
  }
  add_option(out, unset);
  return out;
}

int rank_of(const LayoutSpace& s, size_t node, int which) {
  return which == 0 ? s.out_rank[node] : which == 1 ? s.in_rank[node] : s.kernel_rank[node];
}

void check_space(const HloGraph& g, const LayoutSpace& s) {
  const size_t n = s.nodes.size();
  if (s.out_rank.size() != n || s.in_rank.size() != n || s.kernel_rank.size() != n)
    throw Error("synth: layout space has ranks for " + std::to_string(s.out_rank.size()) + " nodes, expected " +
                std::to_string(n));
  for (int64_t id : s.nodes)
    if (id < 0 || id >= g.num_nodes()) throw Error("synth: layout space names node " + std::to_string(id) +
                                                   " outside the graph");
}

// The default row of a node: its three tensors as built.
LayoutRow default_row(const HloGraph& g, const LayoutSpace& s, size_t i) {
  static const int reshape = require_opcode("reshape");
  const HloNode& n = g.nodes[static_cast<size_t>(s.nodes[i])];
  const bool pair = n.opcode != reshape;
  LayoutRow row;
  row.fill(-1.0f);
  for (int which = 0; which < 3; ++which) {
    if (rank_of(s, i, which) == 0) continue;
    const HloNode& t = which == 0 ? n : g.nodes[static_cast<size_t>(n.operands[static_cast<size_t>(which - 1)])];
    std::vector<int> b = built_layout(t);
    if (pair && b.size() > 2) b.resize(2);
    const Slots sl = slots_of(b);
    std::copy(sl.begin(), sl.end(), row.begin() + which * kLayoutSlots);
  }
  return row;
}

}  // namespace

LayoutSpace layout_space(const HloGraph& g) { return layout_space(g, g.layout_configurable_nodes()); }

LayoutSpace layout_space(const HloGraph& g, std::vector<int64_t> nodes) {
  static const int reshape = require_opcode("reshape");
  LayoutSpace s;
  s.nodes = std::move(nodes);
  for (int64_t id : s.nodes) {
    const HloNode& n = g.nodes[static_cast<size_t>(id)];
    const auto operand_rank = [&](size_t k) {
      return k < n.operands.size() ? array_rank(g.nodes[static_cast<size_t>(n.operands[k])]) : 0;
    };
    s.out_rank.push_back(array_rank(n));
    s.in_rank.push_back(operand_rank(0));
    s.kernel_rank.push_back(n.opcode == reshape ? 0 : operand_rank(1));
  }
  return s;
}

std::vector<std::vector<LayoutRow>> layout_menus(const HloGraph& g, const LayoutSpace& s, Rng& rng) {
  check_space(g, s);
  static const int reshape = require_opcode("reshape");
  static const int conv = require_opcode("convolution");
  std::vector<std::vector<LayoutRow>> menus(s.nodes.size());
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const HloNode& n = g.nodes[static_cast<size_t>(s.nodes[i])];
    const bool pair = n.opcode != reshape;
    std::array<std::vector<Slots>, 3> options;
    for (int which = 0; which < 3; ++which) {
      if (rank_of(s, i, which) == 0) {
        options[static_cast<size_t>(which)] = {slots_of({})};
        continue;
      }
      const HloNode& t = which == 0 ? n : g.nodes[static_cast<size_t>(n.operands[static_cast<size_t>(which - 1)])];
      int feature = -1, batch = -1;
      if (n.opcode == conv && which == 0) {
        feature = static_cast<int>(n.conv_dims.output_feature);
        batch = static_cast<int>(n.conv_dims.output_batch);
      } else if (n.opcode == conv && which == 1) {
        feature = static_cast<int>(n.conv_dims.input_feature);
        batch = static_cast<int>(n.conv_dims.input_batch);
      }
      options[static_cast<size_t>(which)] = tensor_options(t, pair, feature, batch, n.opcode == conv && which == 0);
    }
    int64_t combos = 1;
    for (const auto& o : options) combos *= static_cast<int64_t>(o.size());
    const int64_t size = std::min<int64_t>(rng.uniform_int(2, 9), combos);
    std::vector<LayoutRow>& menu = menus[i];
    menu.push_back(default_row(g, s, i));
    for (int tries = 0; static_cast<int64_t>(menu.size()) < size && tries < 100; ++tries) {
      LayoutRow row;
      for (int which = 0; which < 3; ++which) {
        const auto& o = options[static_cast<size_t>(which)];
        const Slots& pick = o[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(o.size()) - 1))];
        std::copy(pick.begin(), pick.end(), row.begin() + which * kLayoutSlots);
      }
      if (std::find(menu.begin(), menu.end(), row) == menu.end()) menu.push_back(row);
    }
  }
  return menus;
}

std::vector<float> default_layout_config(const HloGraph& g, const LayoutSpace& s) {
  check_space(g, s);
  std::vector<float> out;
  out.reserve(s.nodes.size() * kLayoutConfigWidth);
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const LayoutRow row = default_row(g, s, i);
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

std::vector<float> sample_layout_configs(const HloGraph& g, const LayoutSpace& s, LayoutSearch search,
                                         int64_t count, Rng& rng) {
  check_space(g, s);
  if (count < 0) throw Error("synth: negative config count");
  const std::vector<std::vector<LayoutRow>> menus = layout_menus(g, s, rng);
  const size_t nc = s.nodes.size(), width = nc * kLayoutConfigWidth;
  std::vector<float> out(static_cast<size_t>(count) * width, -1.0f);
  const auto put = [&](float* config, size_t node, const LayoutRow& row) {
    std::copy(row.begin(), row.end(), config + node * kLayoutConfigWidth);
  };
  const auto any_row = [&](size_t node) -> const LayoutRow& {
    const auto& m = menus[node];
    return m[static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(m.size()) - 1))];
  };
  if (search == LayoutSearch::Random) {
    for (int64_t c = 0; c < count; ++c)
      for (size_t i = 0; i < nc; ++i) put(out.data() + static_cast<size_t>(c) * width, i, any_row(i));
    return out;
  }
  const std::vector<float> base = default_layout_config(g, s);
  for (int64_t c = 0; c < count; ++c) {
    float* row = out.data() + static_cast<size_t>(c) * width;
    // Restarting from the default now and then keeps the walk near it, the
    // way XLA's default search keeps the default's good choices; children
    // of children drift far: real default-search configs differ from the
    // commonest row at 30-70 % of their nodes (unet3d: a median 16 of 56).
    if (c == 0 || rng.chance(0.05)) {
      std::copy(base.begin(), base.end(), row);
    } else {
      const size_t parent = static_cast<size_t>(rng.uniform_int(0, c - 1));
      std::copy_n(out.data() + parent * width, width, row);
    }
    if (nc == 0) continue;
    const int64_t mutations = rng.uniform_int(1, std::max<int64_t>(3, static_cast<int64_t>(nc) / 6));
    for (int64_t m = 0; m < mutations; ++m) {
      const size_t node = static_cast<size_t>(rng.uniform_int(0, static_cast<int64_t>(nc) - 1));
      put(row, node, any_row(node));
    }
  }
  return out;
}

}  // namespace fastslow::synth
