#include "fastslow/synth/layout_cost.h"

#include <algorithm>
#include <string>
#include <utility>

#include "fastslow/error.h"
#include "fastslow/hlo_tables.h"

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
double copy_factor(const Layout& from, const Layout& to) {
  if (from.empty() || to.empty() || from[0] != to[0]) return kCopyFactor * kLaneTransposeFactor;
  if (from.size() > 1 && to.size() > 1 && from[1] != to[1]) return kCopyFactor * kSublaneShuffleFactor;
  return kCopyFactor;
}

bool same_physical(const std::vector<int64_t>& dims, const Layout& a, const Layout& b) {
  return physical(dims, a) == physical(dims, b);
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

Layout read_layout(const float* slots, int rank, int64_t node, const char* which) {
  Layout out(static_cast<size_t>(rank));
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int i = 0; i < kLayoutSlots; ++i) {
    const float v = slots[i];
    const bool expect_pad = i >= rank;
    // Range first: casting NaN or a huge float to int is undefined.
    bool ok = v >= -1.0f && v <= 5.0f;
    const int iv = ok ? static_cast<int>(v) : 0;
    ok = ok && static_cast<float>(iv) == v;
    if (ok && expect_pad) ok = iv == -1;
    if (ok && !expect_pad) ok = iv >= 0 && iv < rank && !seen[static_cast<size_t>(iv)];
    if (!ok)
      throw Error("synth: layout config of node " + std::to_string(node) + ": " + which + " slot " +
                  std::to_string(i) + " holds " + std::to_string(v) + ", not a -1-padded permutation of rank " +
                  std::to_string(rank));
    if (!expect_pad) {
      seen[static_cast<size_t>(iv)] = true;
      out[static_cast<size_t>(i)] = iv;
    }
  }
  return out;
}

bool contains(const std::vector<int64_t>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Whether one of `dims` sits in the two minor-most positions of m2m.
bool in_minor_two(const Layout& m2m, const std::vector<int64_t>& dims) {
  for (size_t i = 0; i < m2m.size() && i < 2; ++i)
    if (contains(dims, m2m[i])) return true;
  return false;
}

struct NodeLayouts {
  Layout out, in, kernel;
};

double preference_factor(const HloNode& n, const NodeLayouts& l) {
  double f = 1;
  const auto penalize = [&f](bool violated, double p) {
    if (violated) f *= 1 + p;
  };
  if (n.opcode == ops().conv) {
    const ConvDimensionNumbers& d = n.conv_dims;
    if (!l.in.empty()) {
      penalize(l.in[0] != d.input_feature, 0.6);
      penalize(in_minor_two(l.in, {d.input_batch}), 0.3);
    }
    if (!l.kernel.empty()) {
      penalize(l.kernel[0] != d.kernel_output_feature, 0.4);
      if (l.kernel.size() >= 2) penalize(l.kernel[1] != d.kernel_input_feature, 0.25);
    }
    if (!l.out.empty()) penalize(l.out[0] != d.output_feature, 0.5);
  } else {
    const DotDimensionNumbers& d = n.dot_dims;
    if (!l.in.empty()) {
      penalize(!d.lhs_contracting.empty() && !contains(d.lhs_contracting, l.in[0]), 0.5);
      penalize(in_minor_two(l.in, d.lhs_batch), 0.3);
    }
    if (!l.kernel.empty()) {
      const int minor = l.kernel[0];
      const bool free_dims = d.rhs_contracting.size() + d.rhs_batch.size() < l.kernel.size();
      penalize(free_dims && (contains(d.rhs_contracting, minor) || contains(d.rhs_batch, minor)), 0.4);
      if (l.kernel.size() >= 2)
        penalize(!d.rhs_contracting.empty() && !contains(d.rhs_contracting, l.kernel[1]), 0.2);
    }
    if (!l.out.empty()) penalize(l.out[0] != static_cast<int>(l.out.size()) - 1, 0.3);
  }
  return f;
}

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

double waste_bytes(const HloNode& t, const Layout& m2m) {
  if (!is_array(t)) return 0;
  return (padded_elements(t.dims, m2m) - elements(t.dims)) * elem_bytes(t);
}

double padded_bytes(const HloNode& t, const Layout& m2m) {
  return is_array(t) ? padded_elements(t.dims, m2m) * elem_bytes(t) : 0;
}

}  // namespace

LayoutCostTerms layout_cost_terms(const HloGraph& g, const LayoutSpace& s, const float* config) {
  const Ops& o = ops();
  const size_t n = g.nodes.size();
  std::vector<int> slot(n, -1);  // index into s.nodes, -1 for fixed nodes
  std::vector<NodeLayouts> lay(s.nodes.size());
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    const int64_t id = s.nodes[i];
    if (id < 0 || id >= g.num_nodes()) throw Error("synth: layout space names a node outside the graph");
    slot[static_cast<size_t>(id)] = static_cast<int>(i);
    const float* row = config + i * kLayoutConfigWidth;
    lay[i].out = read_layout(row, s.out_rank[i], id, "output");
    lay[i].in = read_layout(row + kLayoutSlots, s.in_rank[i], id, "input");
    lay[i].kernel = read_layout(row + 2 * kLayoutSlots, s.kernel_rank[i], id, "kernel");
  }

  const std::vector<bool> fused = fused_computations(g);
  LayoutCostTerms t;
  std::vector<std::pair<int, Layout>> copies;  // (producer, layout a consumer wants)
  const auto output_layout = [&](int v) {
    return slot[static_cast<size_t>(v)] >= 0 ? lay[static_cast<size_t>(slot[static_cast<size_t>(v)])].out
                                             : built_layout(g.nodes[static_cast<size_t>(v)]);
  };

  for (size_t u = 0; u < n; ++u) {
    const HloNode& node = g.nodes[u];
    const bool in_fusion = node.computation >= 0 && static_cast<size_t>(node.computation) < fused.size() &&
                           fused[static_cast<size_t>(node.computation)];
    const double base = base_cost(g, node, in_fusion);
    t.compute += base;
    const int si = slot[u];
    if (si >= 0) {
      const NodeLayouts& l = lay[static_cast<size_t>(si)];
      const HloNode* in = node.operands.empty() ? nullptr : &g.nodes[static_cast<size_t>(node.operands[0])];
      if (node.opcode == o.reshape) {
        const bool bitcast = !in || (row_major(node.dims, l.out) && row_major(in->dims, l.in));
        if (!bitcast) {
          const double bytes = elements(node.dims) * elem_bytes(node) + elements(in->dims) * elem_bytes(*in);
          t.copies += bytes / kBytesPerNs;
          t.padding += (waste_bytes(node, l.out) + waste_bytes(*in, l.in)) / kBytesPerNs;
        }
      } else {
        double waste = waste_bytes(node, l.out);
        if (in) waste += waste_bytes(*in, l.in);
        if (node.operands.size() >= 2)
          waste += waste_bytes(g.nodes[static_cast<size_t>(node.operands[1])], l.kernel);
        t.padding += waste / kBytesPerNs;
        t.kernel_pref += base * (preference_factor(node, l) - 1);
      }
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
      if (!same_physical(p.dims, output_layout(v), want)) copies.emplace_back(v, physical(p.dims, want));
    }
  }
  std::sort(copies.begin(), copies.end());
  copies.erase(std::unique(copies.begin(), copies.end()), copies.end());
  for (const auto& c : copies) {
    const HloNode& p = g.nodes[static_cast<size_t>(c.first)];
    // The physical order leaves out size-1 dims; padding them in anywhere
    // major gives the same tile sizes.
    Layout want = c.second;
    for (int d = 0; d < p.rank(); ++d)
      if (p.dims[static_cast<size_t>(d)] <= 1) want.push_back(d);
    t.copies += copy_factor(physical(p.dims, output_layout(c.first)), c.second) *
                (padded_bytes(p, output_layout(c.first)) + padded_bytes(p, want)) / kBytesPerNs;
  }
  return t;
}

double layout_runtime(const HloGraph& g, const LayoutSpace& s, const float* config) {
  return layout_cost_terms(g, s, config).total();
}

}  // namespace fastslow::synth
