#include "fastslow/synth/layout_configs.h"

#include <algorithm>
#include <string>

#include "fastslow/error.h"
#include "fastslow/hlo_tables.h"

namespace fastslow::synth {
namespace {

int array_rank(const HloNode& n) { return n.type == ElementType::Tuple ? 0 : n.rank(); }

// The layout a node was built with; a missing or malformed one falls back
// to the row-major default so the config stays a valid permutation.
std::vector<int> built_layout(const HloNode& n) {
  const int r = array_rank(n);
  if (static_cast<int>(n.minor_to_major.size()) == r) return n.minor_to_major;
  return default_layout(r);
}

void write_layout(float* slots, const std::vector<int>& m2m) {
  for (int i = 0; i < kLayoutSlots; ++i)
    slots[i] = i < static_cast<int>(m2m.size()) ? static_cast<float>(m2m[static_cast<size_t>(i)]) : -1.0f;
}

// Fisher-Yates over Rng, not std::shuffle: std::shuffle's draws are not
// specified, so libstdc++ and libc++ would give different configs.
void random_layout(float* slots, int rank, Rng& rng) {
  std::vector<int> p(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) p[static_cast<size_t>(i)] = i;
  for (int i = rank - 1; i > 0; --i)
    std::swap(p[static_cast<size_t>(i)], p[static_cast<size_t>(rng.uniform_int(0, i))]);
  write_layout(slots, p);
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

// One mutation of a node's layouts, as a genetic search's mutation operator
// would make: usually a small step (two adjacent dims swapped), sometimes a
// fresh random permutation.
void mutate_node(float* row, const LayoutSpace& s, size_t node, Rng& rng) {
  int which = static_cast<int>(rng.uniform_int(0, 2));
  // Fall back to a layout that has something to permute.
  for (int tries = 0; tries < 3 && rank_of(s, node, which) < 2; ++tries) which = (which + 1) % 3;
  const int rank = rank_of(s, node, which);
  if (rank < 2) return;
  float* slots = row + node * kLayoutConfigWidth + which * kLayoutSlots;
  if (rng.chance(0.6)) {
    const int64_t i = rng.uniform_int(0, rank - 2);
    std::swap(slots[i], slots[i + 1]);
  } else {
    random_layout(slots, rank, rng);
  }
}

}  // namespace

LayoutSpace layout_space(const HloGraph& g) {
  static const int reshape = require_opcode("reshape");
  LayoutSpace s;
  s.nodes = g.layout_configurable_nodes();
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

std::vector<float> default_layout_config(const HloGraph& g, const LayoutSpace& s) {
  check_space(g, s);
  std::vector<float> out(s.nodes.size() * kLayoutConfigWidth, -1.0f);
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const HloNode& n = g.nodes[static_cast<size_t>(s.nodes[i])];
    float* row = out.data() + i * kLayoutConfigWidth;
    write_layout(row, built_layout(n));
    if (s.in_rank[i] > 0) write_layout(row + kLayoutSlots, built_layout(g.nodes[static_cast<size_t>(n.operands[0])]));
    if (s.kernel_rank[i] > 0)
      write_layout(row + 2 * kLayoutSlots, built_layout(g.nodes[static_cast<size_t>(n.operands[1])]));
  }
  return out;
}

std::vector<float> sample_layout_configs(const HloGraph& g, const LayoutSpace& s, LayoutSearch search,
                                         int64_t count, Rng& rng) {
  check_space(g, s);
  if (count < 0) throw Error("synth: negative config count");
  const size_t width = s.nodes.size() * kLayoutConfigWidth;
  std::vector<float> out(static_cast<size_t>(count) * width, -1.0f);
  if (search == LayoutSearch::Random) {
    for (int64_t c = 0; c < count; ++c) {
      float* row = out.data() + static_cast<size_t>(c) * width;
      for (size_t i = 0; i < s.nodes.size(); ++i)
        for (int which = 0; which < 3; ++which)
          random_layout(row + i * kLayoutConfigWidth + which * kLayoutSlots, rank_of(s, i, which), rng);
    }
    return out;
  }
  const std::vector<float> base = default_layout_config(g, s);
  for (int64_t c = 0; c < count; ++c) {
    float* row = out.data() + static_cast<size_t>(c) * width;
    // Restarting from the default now and then keeps the walk near it, the
    // way XLA's default search keeps the default's good choices.
    if (c == 0 || rng.chance(0.25)) {
      std::copy(base.begin(), base.end(), row);
    } else {
      const size_t parent = static_cast<size_t>(rng.uniform_int(0, c - 1));
      std::copy_n(out.data() + parent * width, width, row);
    }
    if (s.nodes.empty()) continue;
    const int64_t mutations = rng.uniform_int(1, 3);
    for (int64_t m = 0; m < mutations; ++m)
      mutate_node(row, s, static_cast<size_t>(rng.uniform_int(0, s.size() - 1)), rng);
  }
  return out;
}

}  // namespace fastslow::synth
