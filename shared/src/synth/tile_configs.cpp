#include "fastslow/synth/tile_configs.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <string_view>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/synth/tile_cost.h"

namespace fastslow::synth {
namespace {

double elements(const std::vector<int64_t>& dims) {
  double p = 1;
  for (int64_t d : dims) p *= static_cast<double>(d);
  return p;
}

int bytes_of(ElementType t) { return std::max(1, element_bits(t) / 8); }

// Ops the vector unit does not execute: data movement the fusion folds into
// addressing, structure, and the contractions the matrix unit runs.
bool is_free(std::string_view op) {
  static const std::set<std::string_view> free = {
      "parameter", "constant", "broadcast", "reshape", "bitcast", "tuple", "get-tuple-element",
      "dot", "convolution", "fusion", "call", "while", "slice", "dynamic-slice"};
  return free.count(op) > 0;
}

// Transcendentals take several vector-unit passes.
double op_weight(std::string_view op) {
  static const std::set<std::string_view> slow = {
      "exponential", "exponential-minus-one", "tanh", "logistic", "rsqrt", "sqrt", "cbrt", "log",
      "log-plus-one", "power", "divide", "sine", "cosine", "atan2", "erf", "remainder"};
  return slow.count(op) > 0 ? 4.0 : 1.0;
}

int root_of(const HloGraph& g) {
  int root = -1;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].is_root && (root < 0 || g.nodes[i].computation >= g.nodes[static_cast<size_t>(root)].computation))
      root = static_cast<int>(i);
  if (root < 0) throw Error("tile_space: the kernel has no root");
  return root;
}

int64_t value_at(const float* c, int col) { return static_cast<int64_t>(std::llround(c[col])); }

}  // namespace

TileSpace tile_space(const HloGraph& g) {
  const HloNode& root = g.nodes[static_cast<size_t>(root_of(g))];
  if (root.type == ElementType::Tuple) throw Error("tile_space: the kernel's root is a tuple");
  if (root.rank() > 5) throw Error("tile_space: the kernel's root has rank > 5");
  TileSpace s;
  s.out_dims = root.dims;
  s.minor_to_major = root.minor_to_major;
  s.elem_bytes = bytes_of(root.type);
  s.side.assign(s.out_dims.size(), 0);

  // The contraction that shapes the loop nest: the costliest dot, convolution
  // or reduce producing the root's shape (an elementwise epilogue keeps it).
  int contraction = -1;
  double best = -1;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const HloNode& n = g.nodes[i];
    const std::string_view op = opcode_name(n.opcode);
    const HloNode* in = n.operands.empty() ? nullptr : &g.nodes[static_cast<size_t>(n.operands[0])];
    double work = 0;
    if (op == "dot") {
      double k = 1;
      for (int64_t c : n.dot_dims.lhs_contracting) k *= static_cast<double>(in->dims[static_cast<size_t>(c)]);
      work = 2 * elements(n.dims) * k;
      s.mxu_flops += work;
    } else if (op == "convolution") {
      double k = static_cast<double>(in->dims[static_cast<size_t>(n.conv_dims.input_feature)]) /
                 static_cast<double>(std::max<int64_t>(1, n.feature_group_count));
      for (int64_t w : n.window.size) k *= static_cast<double>(w);
      work = 2 * elements(n.dims) * k;
      s.mxu_flops += work;
    } else if (op == "reduce" || op == "reduce-window") {
      double in_elems = elements(in->dims);
      if (op == "reduce-window") {
        in_elems = elements(n.dims);
        for (int64_t w : n.window.size) in_elems *= static_cast<double>(w);
      }
      s.vpu_ops += in_elems;
      if (op == "reduce") work = in_elems;
    } else if (!is_free(op)) {
      s.vpu_ops += op_weight(op) * elements(n.dims);
    }
    if (work > 0 && work > best && n.dims == root.dims && n.computation == root.computation) {
      best = work;
      contraction = static_cast<int>(i);
    }
  }

  std::set<int> operands;  // contraction operands: bytes re-read per block, not once
  if (contraction >= 0) {
    const HloNode& c = g.nodes[static_cast<size_t>(contraction)];
    const std::string_view op = opcode_name(c.opcode);
    const HloNode& lhs = g.nodes[static_cast<size_t>(c.operands[0])];
    s.bf16 = c.type == ElementType::BF16;
    if (op == "reduce") {
      s.contract = static_cast<int64_t>(elements(lhs.dims) / std::max(1.0, elements(c.dims)));
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        const HloNode& n = g.nodes[i];
        if (opcode_name(n.opcode) == std::string_view("parameter") && n.dims == lhs.dims) {
          s.in_stream_bytes += bytes_of(n.type);
          ++s.streams;
        }
      }
    } else {
      const HloNode& rhs = g.nodes[static_cast<size_t>(c.operands[1])];
      operands = {c.operands[0], c.operands[1]};
      s.lhs_bytes = elements(lhs.dims) * bytes_of(lhs.type);
      s.rhs_bytes = elements(rhs.dims) * bytes_of(rhs.type);
      s.streams += 2;
      if (op == "dot") {
        const auto& d = c.dot_dims;
        const size_t batch = d.lhs_batch.size();
        const size_t lhs_free = static_cast<size_t>(lhs.rank()) - batch - d.lhs_contracting.size();
        for (size_t i = batch; i < s.side.size(); ++i) s.side[i] = i < batch + lhs_free ? 1 : 2;
        s.contract = static_cast<int64_t>(std::llround(best / 2 / std::max(1.0, elements(c.dims))));
      } else {
        for (size_t i = 0; i < s.side.size(); ++i) s.side[i] = 1;
        s.side[static_cast<size_t>(c.conv_dims.output_feature)] = 2;
        s.contract = static_cast<int64_t>(std::llround(best / 2 / std::max(1.0, elements(c.dims))));
      }
    }
  }

  s.once_bytes = elements(root.dims) * s.elem_bytes;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const HloNode& n = g.nodes[i];
    if (opcode_name(n.opcode) != std::string_view("parameter") || n.computation != root.computation) continue;
    if (operands.count(static_cast<int>(i))) continue;
    s.once_bytes += elements(n.dims) * bytes_of(n.type);
    if (n.dims == root.dims) {
      s.out_stream_bytes += bytes_of(n.type);
      ++s.streams;
    }
  }

  s.iter_dims = s.out_dims;
  s.roles.assign(s.out_dims.size(), TileRole::Major);
  if (!s.minor_to_major.empty()) s.roles[static_cast<size_t>(s.minor_to_major[0])] = TileRole::Lane;
  if (s.minor_to_major.size() > 1) s.roles[static_cast<size_t>(s.minor_to_major[1])] = TileRole::Sublane;
  if (s.contract > 0) {
    s.iter_dims.push_back(s.contract);
    s.roles.push_back(TileRole::Lane);  // the contracted extent feeds the MXU / lanes
  }
  return s;
}

std::vector<int64_t> tile_sizes(const TileSpace& s, int dim) {
  const int64_t d = s.iter_dims.at(static_cast<size_t>(dim));
  const TileRole role = s.roles[static_cast<size_t>(dim)];
  std::set<int64_t> out = {d};
  for (int64_t p = 1; p <= d; p *= 2) out.insert(p);
  const int64_t unit = role == TileRole::Lane ? 128 : role == TileRole::Sublane ? 8 : 0;
  for (int64_t m = 1; unit > 0 && m <= 8 && unit * m <= d; ++m) out.insert(unit * m);
  return {out.begin(), out.end()};
}

std::vector<float> make_tile_config(const TileSpace& s, const std::vector<int64_t>& kernel_tile,
                                    const std::vector<int64_t>& output_block) {
  if (kernel_tile.size() != s.iter_dims.size() || output_block.size() != s.out_dims.size())
    throw Error("make_tile_config: tile ranks do not match the kernel");
  std::vector<float> c(kTileConfigWidth, 0.0f);
  const auto fill = [&](int col, const std::vector<int64_t>& v) {
    double sum = 0, prod = 1;
    for (size_t i = 0; i < v.size(); ++i) {
      c[static_cast<size_t>(col) + i] = static_cast<float>(v[i]);
      sum += static_cast<double>(v[i]);
      prod *= static_cast<double>(v[i]);
    }
    c[static_cast<size_t>(col) + 6] = static_cast<float>(sum);
    c[static_cast<size_t>(col) + 7] = v.empty() ? 0.0f : static_cast<float>(prod);
  };
  fill(kTileKernelCol, kernel_tile);
  fill(kTileOutputCol, output_block);
  return c;
}

std::string check_tile_config(const TileSpace& s, const float* c) {
  for (int col = 0; col < kTileConfigWidth; ++col)
    if (!std::isfinite(c[col]) || c[col] < 0 || c[col] != std::floor(c[col]))
      return "column " + std::to_string(col) + " is not a non-negative integer";
  const auto block = [&](int col, int rank, const char* name) -> std::string {
    double sum = 0, prod = 1;
    for (int i = 0; i < 6; ++i) {
      const int64_t v = value_at(c, col + i);
      if (i >= rank) {
        if (v != 0) return std::string(name) + " dim " + std::to_string(i) + " is beyond the rank but not 0";
        continue;
      }
      sum += static_cast<double>(v);
      prod *= static_cast<double>(v);
    }
    if (c[col + 6] != static_cast<float>(sum)) return std::string(name) + " sum is inconsistent";
    if (c[col + 7] != (rank == 0 ? 0.0f : static_cast<float>(prod))) return std::string(name) + " product is inconsistent";
    return "";
  };
  for (const auto& e : {block(kTileKernelCol, s.iter_rank(), "kernel bounds"),
                        block(kTileOutputCol, s.out_rank(), "output bounds"), block(kTileInputCol, 0, "input bounds")})
    if (!e.empty()) return e;
  for (int i = 0; i < s.iter_rank(); ++i) {
    const auto sizes = tile_sizes(s, i);
    if (!std::binary_search(sizes.begin(), sizes.end(), value_at(c, kTileKernelCol + i)))
      return "kernel bound " + std::to_string(i) + " is not a legal tile size";
  }
  for (int i = 0; i < s.out_rank(); ++i) {
    const auto sizes = tile_sizes(s, i);
    const int64_t t = value_at(c, kTileOutputCol + i);
    if (!std::binary_search(sizes.begin(), sizes.end(), t)) return "output bound " + std::to_string(i) + " is not a legal tile size";
    if (t < value_at(c, kTileKernelCol + i)) return "output bound " + std::to_string(i) + " is below its kernel bound";
  }
  return "";
}

std::vector<float> sample_tile_configs(const HloGraph&, const TileSpace& s, int64_t count, Rng& rng) {
  if (count < 0) throw Error("sample_tile_configs: negative count");
  std::vector<std::vector<int64_t>> sizes;
  for (int i = 0; i < s.iter_rank(); ++i) sizes.push_back(tile_sizes(s, i));
  std::vector<float> out;
  out.reserve(static_cast<size_t>(count) * kTileConfigWidth);
  for (int64_t n = 0; n < count; ++n) {
    std::vector<int64_t> k, t;
    // The max of two draws leans towards larger tiles, as an autotuner's
    // candidates do: it rarely proposes the 1-element tiles a uniform draw
    // would give one time in log2(D).
    for (const auto& v : sizes) {
      const int64_t hi = static_cast<int64_t>(v.size()) - 1;
      const int64_t a = rng.uniform_int(0, hi);  // sequenced: argument order is unspecified
      const int64_t b = rng.uniform_int(0, hi);
      k.push_back(v[static_cast<size_t>(std::max(a, b))]);
    }
    for (int i = 0; i < s.out_rank(); ++i) {
      const auto& v = sizes[static_cast<size_t>(i)];
      const auto first = std::lower_bound(v.begin(), v.end(), k[static_cast<size_t>(i)]);
      const int64_t lo = first - v.begin();
      t.push_back(v[static_cast<size_t>(rng.uniform_int(lo, static_cast<int64_t>(v.size()) - 1))]);
    }
    const auto c = make_tile_config(s, k, t);
    out.insert(out.end(), c.begin(), c.end());
  }
  return out;
}

std::vector<float> default_tile_config(const HloGraph&, const TileSpace& s) {
  // Largest legal size <= cap that divides the dim (1 always does).
  const auto largest_dividing = [&](int i, int64_t cap) {
    const int64_t d = s.iter_dims[static_cast<size_t>(i)];
    int64_t best = 1;
    for (int64_t v : tile_sizes(s, i))
      if (v <= cap && d % v == 0) best = v;
    return best;
  };
  std::vector<int64_t> k(s.iter_dims.size(), 1);
  for (int i = 0; i < s.iter_rank(); ++i) {
    const TileRole r = s.roles[static_cast<size_t>(i)];
    if (r == TileRole::Lane) k[static_cast<size_t>(i)] = largest_dividing(i, 512);
    if (r == TileRole::Sublane) k[static_cast<size_t>(i)] = largest_dividing(i, 256);
  }
  const auto config = [&](const std::vector<int64_t>& kt) {
    return make_tile_config(s, kt, std::vector<int64_t>(kt.begin(), kt.begin() + s.out_rank()));
  };
  // Shrink the largest tile while the working set is too big: many streamed
  // inputs or a long reduction can overflow even the lane / sublane choice.
  while (tile_working_set(s, config(k).data()) > kOnChipBytes / 8) {
    int widest = -1;
    for (int i = 0; i < s.iter_rank(); ++i)
      if (k[static_cast<size_t>(i)] > 1 && (widest < 0 || k[static_cast<size_t>(i)] > k[static_cast<size_t>(widest)]))
        widest = i;
    if (widest < 0) break;
    k[static_cast<size_t>(widest)] = largest_dividing(widest, k[static_cast<size_t>(widest)] - 1);
  }
  // Grow major dims, most minor first, while the working set stays small
  // enough to leave room for double buffering and the compiler's scratch.
  for (size_t j = 2; j < s.minor_to_major.size(); ++j) {
    const int i = s.minor_to_major[j];
    const int64_t d = s.iter_dims[static_cast<size_t>(i)];
    bool stopped = false;
    for (int64_t v : tile_sizes(s, i)) {
      if (v <= k[static_cast<size_t>(i)] || d % v != 0) continue;
      std::vector<int64_t> next = k;
      next[static_cast<size_t>(i)] = v;
      if (tile_working_set(s, config(next).data()) > kOnChipBytes / 8) {
        stopped = true;
        break;
      }
      k = next;
    }
    if (stopped) break;
  }
  return config(k);
}

}  // namespace fastslow::synth
