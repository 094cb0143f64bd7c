#include "fastslow/synth/layout_cost.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/view/op_family.h"

namespace fastslow::synth {
namespace {

using Layout = std::vector<int>;

struct Ops {
  int conv, dot, reshape, tuple, gte, parameter, constant;
};

const Ops& ops() {
  static const Ops o{require_opcode("convolution"), require_opcode("dot"),     require_opcode("reshape"),
                     require_opcode("tuple"),       require_opcode("get-tuple-element"),
                     require_opcode("parameter"),   require_opcode("constant")};
  return o;
}

bool is_array(const HloNode& n) { return n.type != ElementType::Tuple && element_bits(n.type) > 0; }

double elem_bytes(const HloNode& n) { return element_bits(n.type) / 8.0; }

double elements(const std::vector<int64_t>& dims) {
  double p = 1;
  for (int64_t d : dims) p *= static_cast<double>(d);
  return p;
}

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// Elements of the tensor once laid out in (8 x 128) tiles.
double padded_elements(const std::vector<int64_t>& dims, const Layout& m2m) {
  if (dims.empty()) return 1;
  double p = static_cast<double>(round_up(dims[static_cast<size_t>(m2m[0])], 128));
  if (dims.size() >= 2) p *= static_cast<double>(round_up(dims[static_cast<size_t>(m2m[1])], 8));
  for (size_t i = 2; i < m2m.size(); ++i) p *= static_cast<double>(dims[static_cast<size_t>(m2m[i])]);
  return p;
}

// The order of the dims that hold data: size-1 dims can sit anywhere.
Layout physical(const std::vector<int64_t>& dims, const Layout& m2m) {
  Layout out;
  for (int d : m2m)
    if (dims[static_cast<size_t>(d)] > 1) out.push_back(d);
  return out;
}

// How hard a relayout is: permuting major dims is a strided DMA; moving the
// minor-most dim transposes data across the 128 lanes, the second-minor one
// shuffles the 8 sublanes.
double move_factor(const Layout& from, const Layout& to) {
  if (from.empty() || to.empty() || from[0] != to[0]) return kLaneTransposeFactor;
  if (from.size() > 1 && to.size() > 1 && from[1] != to[1]) return kSublaneShuffleFactor;
  return 1.0;
}

bool row_major(const std::vector<int64_t>& dims, const Layout& m2m) {
  const Layout p = physical(dims, m2m);
  for (size_t i = 1; i < p.size(); ++i)
    if (p[i] > p[i - 1]) return false;
  return true;
}

Layout built_layout(const HloNode& n) {
  if (n.minor_to_major.size() == n.dims.size()) return n.minor_to_major;
  return default_layout(n.rank());
}

// The named dims of one layout: a -1-padded list of distinct dims of a
// rank-`rank` tensor (empty: all -1).
Layout read_layout(const float* slots, int rank, int64_t node, const char* which) {
  Layout named;
  bool ended = false;
  for (int i = 0; i < kLayoutSlots; ++i) {
    const float v = slots[i];
    // Range first: casting NaN or a huge float to int is undefined.
    bool ok = v >= -1.0f && v <= 5.0f;
    const int iv = ok ? static_cast<int>(v) : 0;
    ok = ok && static_cast<float>(iv) == v;
    if (ok && iv == -1) {
      ended = true;
    } else if (ok) {
      ok = !ended && iv < rank && std::find(named.begin(), named.end(), iv) == named.end();
      if (ok) named.push_back(iv);
    }
    if (!ok)
      throw Error("synth: layout config of node " + std::to_string(node) + ": " + which + " slot " +
                  std::to_string(i) + " holds " + std::to_string(v) + ", not a -1-padded list of distinct dims of rank " +
                  std::to_string(rank));
  }
  return named;
}

struct NodeLayouts {
  Layout out, in, kernel;  // complete orders
};

double flops(const HloGraph& g, const HloNode& n) {
  const double out = is_array(n) ? elements(n.dims) : 0;
  if (n.opcode == ops().conv && n.operands.size() >= 2) {
    const HloNode& k = g.nodes[static_cast<size_t>(n.operands[1])];
    double per = static_cast<double>(k.dims[static_cast<size_t>(n.conv_dims.kernel_input_feature)]);
    for (int64_t sd : n.conv_dims.kernel_spatial) per *= static_cast<double>(k.dims[static_cast<size_t>(sd)]);
    return 2 * out * per;
  }
  if (n.opcode == ops().dot && !n.operands.empty()) {
    const HloNode& a = g.nodes[static_cast<size_t>(n.operands[0])];
    double per = 1;
    for (int64_t cd : n.dot_dims.lhs_contracting) per *= static_cast<double>(a.dims[static_cast<size_t>(cd)]);
    return 2 * out * per;
  }
  return out;
}

// Computations that are bodies of fusion nodes: a fusion node consumes its
// callee's root, which lives in another computation.
std::vector<bool> fused_computations(const HloGraph& g) {
  static const int fusion = require_opcode("fusion");
  std::vector<bool> fused(std::max<size_t>(g.node_splits.size(), 1), false);
  for (const HloNode& n : g.nodes) {
    if (n.opcode != fusion) continue;
    for (int v : n.operands) {
      const int c = g.nodes[static_cast<size_t>(v)].computation;
      if (c != n.computation && c >= 0 && static_cast<size_t>(c) < fused.size()) fused[static_cast<size_t>(c)] = true;
    }
  }
  return fused;
}

// The config-independent cost of a node: overhead + flops + real bytes.
double base_cost(const HloGraph& g, const HloNode& n, bool fused) {
  const Ops& o = ops();
  if (fused) return flops(g, n) / kFlopsPerNs;
  if (n.opcode == o.tuple || n.opcode == o.gte || n.opcode == o.parameter || n.opcode == o.constant ||
      n.opcode == o.reshape)
    return kOpOverheadNs;
  double bytes = is_array(n) ? elements(n.dims) * elem_bytes(n) : 0;
  for (size_t k = 0; k < n.operands.size(); ++k) {
    const int v = n.operands[k];
    if (std::find(n.operands.begin(), n.operands.begin() + static_cast<std::ptrdiff_t>(k), v) !=
        n.operands.begin() + static_cast<std::ptrdiff_t>(k))
      continue;
    const HloNode& a = g.nodes[static_cast<size_t>(v)];
    // A callee's root is this node's own result, not a second read.
    if (is_array(a) && a.computation == n.computation) bytes += elements(a.dims) * elem_bytes(a);
  }
  return kOpOverheadNs + flops(g, n) / kFlopsPerNs + bytes / kBytesPerNs;
}

double padded_bytes(const HloNode& t, const Layout& m2m) {
  return is_array(t) ? padded_elements(t.dims, m2m) * elem_bytes(t) : 0;
}

// The size of the minor-most physical dim (1 for scalars).
int64_t lane_dim(const HloNode& n, const Layout& m2m) {
  const Layout p = physical(n.dims, m2m);
  return p.empty() ? 1 : n.dims[static_cast<size_t>(p[0])];
}

// Whether `t` is too large to stay in on-chip memory.
bool off_chip(const HloNode& t) { return is_array(t) && elements(t.dims) * elem_bytes(t) > kOnChipLayoutBytes; }

// Tile padding of `t` in layout m2m beyond its built layout's (negative
// when m2m pads less).
double extra_padding(const HloNode& t, const Layout& m2m) {
  return is_array(t) ? padded_bytes(t, m2m) - padded_bytes(t, built_layout(t)) : 0.0;
}

// A tensor too large for on-chip memory whose minor-most dim is tiny: most
// of every tile it occupies in memory is padding, fused or not.
bool starved(const HloNode& t, const Layout& m2m) { return off_chip(t) && lane_dim(t, m2m) <= kTinyLane; }

// Whether XLA can fold a relayout of this producer's output into the kernel
// that writes it: elementwise and data-movement ops fuse, the rest are
// fusion barriers.
bool fusible(const HloNode& p) {
  static const int fusion = require_opcode("fusion");
  const OpFamily f = op_family(p.opcode);
  return f == OpFamily::Elementwise || f == OpFamily::Movement || p.opcode == fusion;
}

// The program's inputs and constants are laid out as the compiler likes
// when they are transferred or folded: no kernel rewrites them. A called
// computation's parameters are not: they arrive as the caller laid them out.
bool placed_at_will(const HloGraph& g, const HloNode& p) {
  if (op_family(p.opcode) != OpFamily::Parameter) return false;
  const int entry = static_cast<int>(std::max<size_t>(g.node_splits.size(), 1)) - 1;
  return p.opcode != ops().parameter || p.computation == entry;
}

// Whether a node's output is written to memory in its own layout: XLA fuses
// an op into its fusible users (and a fusible producer into its consumer),
// choosing the intermediate's layout itself, so a config's layout of a
// tensor only sticks where the tensor crosses a fusion barrier or a
// computation boundary (a root, a use in another computation), or where it
// has several users (XLA does not recompute it in each).
bool output_pinned(const HloGraph& g, const std::vector<std::vector<int>>& users_of, int v) {
  const HloNode& n = g.nodes[static_cast<size_t>(v)];
  if (n.is_root || users_of[static_cast<size_t>(v)].size() > 1) return true;
  for (int u : users_of[static_cast<size_t>(v)]) {
    const HloNode& user = g.nodes[static_cast<size_t>(u)];
    if (user.computation != n.computation || !fusible(user)) return true;
  }
  return false;
}

// A physical order without the dims of at most kTinyLane elements.
Layout without_tiny(const std::vector<int64_t>& dims, const Layout& p) {
  Layout out;
  for (int d : p)
    if (dims[static_cast<size_t>(d)] > kTinyLane) out.push_back(d);
  return out;
}

bool is_conv(const HloNode& n) {
  return n.opcode == ops().conv && n.has_conv_dims && n.conv_dims.output_feature >= 0 &&
         n.conv_dims.output_feature < n.rank() && n.conv_dims.output_batch >= 0 && n.conv_dims.output_batch < n.rank();
}

// Whether a convolution's output is stored with a spatial dim minor-most
// (spatial dims of at most kTinyLane elements, a 3x3x3 kernel's, left out).
// Its matrix-unit columns are its features or, with the operands' roles
// swapped, its batch (a weight-gradient convolution's batch is the
// weight's input features): spatial lanes put them across the lanes, and
// the result is written through the transpose unit.
bool conv_output_transposed(const HloNode& n, const Layout& m2m) {
  if (!is_conv(n)) return false;
  const int feature = static_cast<int>(n.conv_dims.output_feature), batch = static_cast<int>(n.conv_dims.output_batch);
  for (int d : physical(n.dims, m2m)) {
    if (d == feature || d == batch) return false;
    if (n.dims[static_cast<size_t>(d)] > kTinyLane) return true;
  }
  return false;
}

// The matrix unit's use of its columns: the output's minor-most physical
// dim (a dot's operands can swap roles, so any of its output dims can be
// the columns), but a transposed convolution's are its feature or batch
// dim, whichever lies minor-most.
double mxu_efficiency(const HloNode& n, const Layout& m2m) {
  const Layout p = physical(n.dims, m2m);
  if (p.empty()) return 1.0;
  int c = p[0];
  if (conv_output_transposed(n, m2m))
    for (int d : m2m)
      if (d == n.conv_dims.output_feature || d == n.conv_dims.output_batch) {
        c = d;
        break;
      }
  const int64_t d = n.dims[static_cast<size_t>(c)];
  return static_cast<double>(d) / static_cast<double>(round_up(d, 128));
}

// The two minor-most dims of a physical order, as a set.
std::pair<int, int> minor_pair(const Layout& p) {
  const int a = p.size() > 0 ? p[0] : -1, b = p.size() > 1 ? p[1] : -1;
  return {std::min(a, b), std::max(a, b)};
}

struct Copy {
  int producer;
  Layout wanted;  // physical order
  double share;   // kFusedCopyShare or 1
};

}  // namespace

Layout complete_layout(const Layout& named, const Layout& built) {
  Layout out = named;
  for (int d : built)
    if (std::find(named.begin(), named.end(), d) == named.end()) out.push_back(d);
  return out;
}

LayoutCostTerms layout_cost_terms(const HloGraph& g, const LayoutSpace& s, const float* config) {
  const Ops& o = ops();
  const size_t n = g.nodes.size();
  std::vector<int> slot(n, -1);  // index into s.nodes, -1 for fixed nodes
  std::vector<NodeLayouts> lay(s.nodes.size());
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const int64_t id = s.nodes[i];
    if (id < 0 || id >= g.num_nodes()) throw Error("synth: layout space names a node outside the graph");
    slot[static_cast<size_t>(id)] = static_cast<int>(i);
    const HloNode& node = g.nodes[static_cast<size_t>(id)];
    const float* row = config + i * kLayoutConfigWidth;
    const auto operand = [&](size_t k) -> const HloNode* {
      return k < node.operands.size() ? &g.nodes[static_cast<size_t>(node.operands[k])] : nullptr;
    };
    lay[i].out = complete_layout(read_layout(row, s.out_rank[i], id, "output"), built_layout(node));
    const Layout in = read_layout(row + kLayoutSlots, s.in_rank[i], id, "input");
    const Layout ker = read_layout(row + 2 * kLayoutSlots, s.kernel_rank[i], id, "kernel");
    if (s.in_rank[i] > 0) lay[i].in = complete_layout(in, built_layout(*operand(0)));
    if (s.kernel_rank[i] > 0) lay[i].kernel = complete_layout(ker, built_layout(*operand(1)));
  }

  // Distinct users: an op reading one tensor twice (x * x) reads it once,
  // and a file's edges cannot say it twice, so a graph read back from its
  // features (graph_from_features.h) prices as made.
  std::vector<std::vector<int>> users_of(n);
  for (size_t u = 0; u < n; ++u)
    for (int v : g.nodes[u].operands) {
      std::vector<int>& users = users_of[static_cast<size_t>(v)];
      if (users.empty() || users.back() != static_cast<int>(u)) users.push_back(static_cast<int>(u));
    }

  const std::vector<bool> fused = fused_computations(g);
  LayoutCostTerms t;
  std::vector<Copy> copies;
  const auto output_layout = [&](int v) {
    return slot[static_cast<size_t>(v)] >= 0 ? lay[static_cast<size_t>(slot[static_cast<size_t>(v)])].out
                                             : built_layout(g.nodes[static_cast<size_t>(v)]);
  };

  for (size_t u = 0; u < n; ++u) {
    const HloNode& node = g.nodes[u];
    const bool in_fusion = node.computation >= 0 && static_cast<size_t>(node.computation) < fused.size() &&
                           fused[static_cast<size_t>(node.computation)];
    t.compute += base_cost(g, node, in_fusion);
    const int si = slot[u];
    if (si >= 0) {
      const NodeLayouts& l = lay[static_cast<size_t>(si)];
      const double out_share = output_pinned(g, users_of, static_cast<int>(u)) ? 1.0 : kFusedCopyShare;
      const HloNode* in = node.operands.empty() ? nullptr : &g.nodes[static_cast<size_t>(node.operands[0])];
      if (node.opcode == o.reshape) {
        const bool bitcast = !in || (row_major(node.dims, l.out) && row_major(in->dims, l.in));
        if (!bitcast)
          t.copies += out_share * (elements(node.dims) * elem_bytes(node) + elements(in->dims) * elem_bytes(*in)) /
                      kBytesPerNs;
      } else {
        // Relative to the built layout, which compute assumes: a layout
        // with a longer minor-most dim than built makes the op faster.
        const auto slowdown = [&](const Layout& m2m) {
          return std::min(kMaxMxuSlowdown, 1.0 / mxu_efficiency(node, m2m) - 1.0);
        };
        // A vector register holding a handful of values per 128 lanes is a
        // loss no fusion hides: a tiny minor-most dim costs in full.
        // A small output lives on chip, where the emitter re-tiles it too.
        const double share = off_chip(node) && (starved(node, l.out) || out_share == 1.0) ? 1.0 : kFusedMxuShare;
        t.mxu += share * flops(g, node) / kFlopsPerNs * (slowdown(l.out) - slowdown(built_layout(node)));
        // No real file's convolution stores a spatial dim minor-most: the
        // convolution writes its result through the transpose unit.
        const double transposed = (conv_output_transposed(node, l.out) ? padded_bytes(node, l.out) : 0.0) -
                                  (conv_output_transposed(node, built_layout(node)) ? padded_bytes(node, built_layout(node)) : 0.0);
        t.copies += out_share * kLaneTransposeFactor * transposed / kBytesPerNs;
      }
      // Only the stored output pads memory: the op streams its operands as
      // they are stored (through a copy where it wants another order, see
      // copies), whatever order it names for them (on real unet3d, a
      // convolution input's batch of 2 named minor-most costs nothing).
      const double tiny_out = starved(node, l.out) ? 1.0 : out_share;
      const double extra = tiny_out * extra_padding(node, l.out) * static_cast<double>(1 + users_of[u].size());
      t.padding += extra / kBytesPerNs;
    }
    // What each operand must look like for this node.
    for (size_t k = 0; k < node.operands.size(); ++k) {
      const int v = node.operands[k];
      const HloNode& p = g.nodes[static_cast<size_t>(v)];
      if (!is_array(p) || p.rank() < 2) continue;
      Layout want;
      if (si >= 0 && k == 0)
        want = lay[static_cast<size_t>(si)].in;
      else if (si >= 0 && k == 1 && node.opcode != o.reshape)
        want = lay[static_cast<size_t>(si)].kernel;
      else
        want = built_layout(p);
      const Layout wanted = physical(p.dims, want), stored = physical(p.dims, output_layout(v));
      if (stored == wanted) continue;
      // The matrix unit loads an operand transposed for free: a conv or dot
      // minds which two dims are minor-most, not their order. Nor does it
      // mind where a tiny dim sits (a batch of 2): its loads stride over it.
      // On real unet3d a convolution's input named batch-minor (0, 4) or
      // feature-minor (4, 0) runs alike, where a copy priced one such
      // choice at up to 2.4 % of the whole program.
      const bool matrix = node.opcode == o.conv || node.opcode == o.dot;
      if (matrix && k < 2 &&
          minor_pair(without_tiny(p.dims, stored)) == minor_pair(without_tiny(p.dims, wanted)))
        continue;
      const double share = fusible(p) || fusible(node) || placed_at_will(g, p) ? kFusedCopyShare : 1.0;
      copies.push_back({v, wanted, share});
    }
  }
  // Consumers that want one layout of a producer share one copy, made in
  // full if any of them needs it made in full.
  std::sort(copies.begin(), copies.end(), [](const Copy& a, const Copy& b) {
    return std::tie(a.producer, a.wanted, b.share) < std::tie(b.producer, b.wanted, a.share);
  });
  for (size_t i = 0; i < copies.size(); ++i) {
    const Copy& c = copies[i];
    if (i > 0 && copies[i - 1].producer == c.producer && copies[i - 1].wanted == c.wanted) continue;
    const HloNode& p = g.nodes[static_cast<size_t>(c.producer)];
    // The physical order leaves out size-1 dims; padding them in anywhere
    // major gives the same tile sizes.
    Layout want = c.wanted;
    for (int d = 0; d < p.rank(); ++d)
      if (p.dims[static_cast<size_t>(d)] <= 1) want.push_back(d);
    const Layout from = output_layout(c.producer);
    t.copies += c.share * move_factor(physical(p.dims, from), c.wanted) *
                (padded_bytes(p, from) + padded_bytes(p, want)) / kBytesPerNs;
  }
  return t;
}

double layout_runtime(const HloGraph& g, const LayoutSpace& s, const float* config) {
  return layout_cost_terms(g, s, config).total();
}

}  // namespace fastslow::synth
