#include "fastslow/synth/graph_from_features.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "fastslow/error.h"
#include "fastslow/graph/computations.h"
#include "fastslow/graph/hlo_tables.h"

namespace fastslow::synth {
namespace {

struct Columns {
  int is_root = require_node_feature("is_root");
  int first_type = require_node_feature("shape_element_type_is_invalid_type");
  int dims0 = require_node_feature("shape_dimensions_0");
  int dims_product = require_node_feature("shape_dimensions_product");
  int layout0 = require_node_feature("layout_minor_to_major_0");
  int parameter_number = require_node_feature("parameter_number");
  int dimensions0 = require_node_feature("dimensions_0");
  int window_size0 = require_node_feature("window_size_0");
  int window_stride0 = require_node_feature("window_stride_0");
  int pad_low0 = require_node_feature("window_padding_low_0");
  int pad_high0 = require_node_feature("window_padding_high_0");
  int input_batch = require_node_feature("convolution_dim_numbers_input_batch_dim");
  int input_feature = require_node_feature("convolution_dim_numbers_input_feature_dim");
  int input_spatial0 = require_node_feature("convolution_dim_numbers_input_spatial_dims_0");
  int kernel_in = require_node_feature("convolution_dim_numbers_kernel_input_feature_dim");
  int kernel_out = require_node_feature("convolution_dim_numbers_kernel_output_feature_dim");
  int kernel_spatial0 = require_node_feature("convolution_dim_numbers_kernel_spatial_dims_0");
  int output_batch = require_node_feature("convolution_dim_numbers_output_batch_dim");
  int output_feature = require_node_feature("convolution_dim_numbers_output_feature_dim");
  int feature_groups = require_node_feature("feature_group_count");
  int batch_groups = require_node_feature("batch_group_count");
};

constexpr int kPublishedDims = 6;
constexpr int kPublishedSpatial = 4;

int64_t whole(float v) { return static_cast<int64_t>(std::llround(v)); }

std::vector<int64_t> read_ints(const float* row, int first, int count) {
  std::vector<int64_t> out;
  for (int i = 0; i < count; ++i) out.push_back(whole(row[first + i]));
  return out;
}

double product(const std::vector<int64_t>& dims) {
  double p = 1;
  for (int64_t d : dims) p *= static_cast<double>(d);
  return p;
}

// Dims up to the last non-zero one; a seventh dim (and beyond) folded into
// one that holds the elements the published six miss.
std::vector<int64_t> read_dims(const Columns& c, const float* row) {
  std::vector<int64_t> dims = read_ints(row, c.dims0, kPublishedDims);
  while (!dims.empty() && dims.back() == 0) dims.pop_back();
  const double want = row[c.dims_product], have = product(dims);
  if (dims.size() == kPublishedDims && have > 0 && want > have * 1.5)
    dims.push_back(static_cast<int64_t>(std::llround(want / have)));
  return dims;
}

std::vector<int> read_layout(const Columns& c, const float* row, size_t rank) {
  std::vector<int> m2m;
  for (size_t i = 0; i < std::min<size_t>(rank, kPublishedDims); ++i) m2m.push_back(static_cast<int>(whole(row[c.layout0 + static_cast<int>(i)])));
  std::vector<int> sorted = m2m;
  std::sort(sorted.begin(), sorted.end());
  bool permutation = sorted.size() == rank;
  for (size_t i = 0; permutation && i < sorted.size(); ++i) permutation = sorted[i] == static_cast<int>(i);
  return permutation ? m2m : default_layout(static_cast<int>(rank));
}

// The positions of `dims` (among `at`) left once `part` is matched as a
// subsequence, first match first; nullopt when `part` is not one.
std::optional<std::vector<int64_t>> without(const std::vector<int64_t>& dims, const std::vector<int64_t>& at,
                                            const std::vector<int64_t>& part) {
  std::vector<int64_t> left;
  size_t k = 0;
  for (int64_t i : at) {
    if (k < part.size() && dims[static_cast<size_t>(i)] == part[k]) {
      ++k;
    } else {
      left.push_back(i);
    }
  }
  if (k < part.size()) return std::nullopt;
  return left;
}

// The lhs dims a dot contracts, if (lhs, rhs) in this order can make `out`
// as XLA lays out a dot's result: its batch dims (anywhere in each operand,
// in the same order: attention's [B, S, H, D] operands batch B and H), then
// the lhs's free dims in order, then the rhs's; both sides contracting the
// same number of elements. nullopt if they cannot.
std::optional<std::vector<int64_t>> contraction_of(const std::vector<int64_t>& lhs, const std::vector<int64_t>& rhs,
                                                   const std::vector<int64_t>& out) {
  const auto all = [](const std::vector<int64_t>& dims) {
    std::vector<int64_t> at(dims.size());
    for (size_t i = 0; i < at.size(); ++i) at[i] = static_cast<int64_t>(i);
    return at;
  };
  const auto elements = [](const std::vector<int64_t>& dims, const std::vector<int64_t>& at) {
    double p = 1;
    for (int64_t i : at) p *= static_cast<double>(dims[static_cast<size_t>(i)]);
    return p;
  };
  const auto part = [&](size_t from, size_t to) {
    return std::vector<int64_t>(out.begin() + static_cast<std::ptrdiff_t>(from), out.begin() + static_cast<std::ptrdiff_t>(to));
  };
  for (size_t nb = 0; nb <= out.size(); ++nb) {
    const auto lb = without(lhs, all(lhs), part(0, nb)), rb = without(rhs, all(rhs), part(0, nb));
    if (!lb || !rb) break;  // a longer batch is no subsequence either
    for (size_t j = nb; j <= out.size(); ++j) {
      const auto cl = without(lhs, *lb, part(nb, j)), cr = without(rhs, *rb, part(j, out.size()));
      if (cl && cr && !cl->empty() && elements(lhs, *cl) == elements(rhs, *cr)) return cl;
    }
  }
  return std::nullopt;
}

// The lhs dims a dot contracts, which no published column names: the ones
// contraction_of finds, else (no file here has such a dot) the lhs's
// minor-most dim, the one XLA's dots contract most often.
std::vector<int64_t> dot_contracting(const std::vector<int64_t>& lhs, const std::vector<int64_t>& rhs,
                                     const std::vector<int64_t>& out) {
  if (lhs.empty()) return {};
  if (const auto read = contraction_of(lhs, rhs, out)) return *read;
  return {static_cast<int64_t>(lhs.size()) - 1};
}

// Which of a convolution's or dot's two operands comes first: the files
// list a node's operands by producer id, not in operand order, so the
// order is read from the shapes. Convolution: the input's batch and the
// kernel's output feature have the output's batch and feature sizes, the
// kernel's spatial dims the window's. Dot:
// the output is the batch dims, the lhs's free dims, the rhs's free dims
// (contraction_of). A tie (q and k of one shape) keeps the file's order.
bool swap_operands(const HloNode& n, const HloNode& a, const HloNode& b, int conv) {
  const auto fits = [&](const HloNode& first, const HloNode& second) {
    int score = 0;
    if (n.opcode == conv) {
      const ConvDimensionNumbers& d = n.conv_dims;
      const auto at = [](const HloNode& t, int64_t i) { return i >= 0 && i < t.rank() ? t.dims[static_cast<size_t>(i)] : -1; };
      score += n.batch_group_count <= 1 && at(first, d.input_batch) == at(n, d.output_batch);
      score += at(second, d.kernel_output_feature) == at(n, d.output_feature);
      score += first.rank() == n.rank();
      score += at(first, d.input_feature) == at(second, d.kernel_input_feature);
      // The kernel's spatial dims are the window.
      for (size_t i = 0; i < d.kernel_spatial.size() && i < n.window.size.size(); ++i)
        score += at(second, d.kernel_spatial[i]) == n.window.size[i];
    } else {
      score = contraction_of(first.dims, second.dims, n.dims).has_value();
    }
    return score;
  };
  return fits(b, a) > fits(a, b);
}

void read_convolution(const Columns& c, const float* row, HloNode& n, int spatial) {
  n.has_conv_dims = true;
  ConvDimensionNumbers& d = n.conv_dims;
  d.input_batch = whole(row[c.input_batch]);
  d.input_feature = whole(row[c.input_feature]);
  d.kernel_input_feature = whole(row[c.kernel_in]);
  d.kernel_output_feature = whole(row[c.kernel_out]);
  d.output_batch = whole(row[c.output_batch]);
  d.output_feature = whole(row[c.output_feature]);
  const int named = std::min(spatial, kPublishedSpatial);
  d.input_spatial = read_ints(row, c.input_spatial0, named);
  d.kernel_spatial = read_ints(row, c.kernel_spatial0, named);
  for (int64_t i = 0; i < n.rank(); ++i)
    if (i != d.output_batch && i != d.output_feature) d.output_spatial.push_back(i);
  n.window = Window::of(read_ints(row, c.window_size0, named));
  n.window.stride = read_ints(row, c.window_stride0, named);
  n.window.pad_low = read_ints(row, c.pad_low0, named);
  n.window.pad_high = read_ints(row, c.pad_high0, named);
  n.feature_group_count = whole(row[c.feature_groups]);
  n.batch_group_count = whole(row[c.batch_groups]);
}

}  // namespace

HloGraph graph_from_features(const LayoutGraph& g) {
  const int64_t width = static_cast<int64_t>(node_feature_names().size());
  if (g.node_feat_width != width)
    throw Error(g.file, "node_feat",
                "has " + std::to_string(g.node_feat_width) + " columns, not the " + std::to_string(width) +
                    " published ones: the graph cannot be read back from its features (a cleaned file drops columns)");
  static const Columns c;
  static const int conv = require_opcode("convolution"), dot = require_opcode("dot");
  const auto n = static_cast<size_t>(g.num_nodes);
  HloGraph out;
  out.nodes.resize(n);
  for (int64_t e = 0; e < g.num_edges(); ++e) {
    const int64_t u = g.edge_index[static_cast<size_t>(2 * e)], v = g.edge_index[static_cast<size_t>(2 * e + 1)];
    if (u < 0 || v < 0 || u >= g.num_nodes || v >= g.num_nodes || u == v)
      throw Error(g.file, "edge_index", "edge " + std::to_string(e) + " [" + std::to_string(u) + ", " + std::to_string(v) +
                                            "] names a node outside the graph's " + std::to_string(g.num_nodes) + " or a self-loop");
    // The file's order (by producer id); a convolution's or dot's is read
    // from the shapes below.
    out.nodes[static_cast<size_t>(u)].operands.push_back(static_cast<int>(v));
  }
  const std::vector<int64_t> starts = computation_starts(g.node_splits, g.num_nodes);
  out.node_splits = starts.empty() ? std::vector<int64_t>{0} : starts;
  size_t comp = 0;
  for (size_t i = 0; i < n; ++i) {
    const float* row = g.node_feat.data() + i * static_cast<size_t>(width);
    HloNode& node = out.nodes[i];
    node.opcode = g.node_opcode[i];
    while (comp + 1 < out.node_splits.size() && out.node_splits[comp + 1] <= static_cast<int64_t>(i)) ++comp;
    node.computation = static_cast<int>(comp);
    node.is_root = row[c.is_root] > 0.5f;
    node.type = ElementType::Invalid;
    for (int t = 0; t <= static_cast<int>(ElementType::Token); ++t)
      if (row[c.first_type + t] > 0.5f) {
        node.type = static_cast<ElementType>(t);
        break;
      }
    if (node.type != ElementType::Tuple) {
      node.dims = read_dims(c, row);
      for (int64_t d : node.dims)
        if (d < 0) throw Error(g.file, "node_feat", "node " + std::to_string(i) + " has a negative dimension");
      node.minor_to_major = read_layout(c, row, node.dims.size());
    }
    node.parameter_number = whole(row[c.parameter_number]);
    if (node.opcode == conv) {
      read_convolution(c, row, node, std::max(0, node.rank() - 2));  // output rank = input rank
    } else {
      node.dimensions = read_ints(row, c.dimensions0, kPublishedDims);
      while (!node.dimensions.empty() && node.dimensions.back() == 0) node.dimensions.pop_back();
    }
  }
  // Operand order and dots' contractions last: they read the operands'
  // shapes, wherever those sit. A dot of a tensor with itself (x x^T) has
  // one edge: both operands are that tensor.
  for (HloNode& node : out.nodes)
    if ((node.opcode == dot || node.opcode == conv) && node.operands.size() == 1) node.operands.push_back(node.operands[0]);
  for (HloNode& node : out.nodes)
    if ((node.opcode == dot || node.opcode == conv) && node.operands.size() == 2 &&
        swap_operands(node, out.nodes[static_cast<size_t>(node.operands[0])], out.nodes[static_cast<size_t>(node.operands[1])], conv))
      std::swap(node.operands[0], node.operands[1]);
  for (size_t i = 0; i < n; ++i) {
    const HloNode& node = out.nodes[i];
    if (node.opcode != conv) continue;
    // What the cost model indexes tensors by: every named dim must be one.
    const ConvDimensionNumbers& d = node.conv_dims;
    const auto within = [](const HloNode& t, const std::vector<int64_t>& dims) {
      return std::all_of(dims.begin(), dims.end(), [&](int64_t x) { return x >= 0 && x < t.rank(); });
    };
    bool ok = node.operands.size() == 2 && within(node, {d.output_batch, d.output_feature});
    if (ok) {
      const HloNode &input = out.nodes[static_cast<size_t>(node.operands[0])], &kernel = out.nodes[static_cast<size_t>(node.operands[1])];
      std::vector<int64_t> in = d.input_spatial, ker = d.kernel_spatial;
      in.push_back(d.input_batch);
      in.push_back(d.input_feature);
      ker.push_back(d.kernel_input_feature);
      ker.push_back(d.kernel_output_feature);
      ok = within(input, in) && within(kernel, ker);
    }
    if (!ok)
      throw Error(g.file, "node_feat", "node " + std::to_string(i) +
                                           ": a convolution whose dimension numbers name dims its operands or output lack");
  }
  for (HloNode& node : out.nodes)
    if (node.opcode == dot && node.operands.size() >= 2)
      node.dot_dims.lhs_contracting = dot_contracting(out.nodes[static_cast<size_t>(node.operands[0])].dims,
                                                      out.nodes[static_cast<size_t>(node.operands[1])].dims, node.dims);
  // The file's configurable nodes are some of its convolutions, dots and
  // reshapes (real nlp: 848 of 852); the rest keep their layouts.
  const std::vector<int64_t> configurable = out.layout_configurable_nodes();
  for (size_t i = 0; i < g.node_config_ids.size(); ++i) {
    const int64_t id = g.node_config_ids[i];
    if ((i > 0 && id <= g.node_config_ids[i - 1]) || !std::binary_search(configurable.begin(), configurable.end(), id))
      throw Error(g.file, "node_config_ids",
                  "entry " + std::to_string(i) + " (node " + std::to_string(id) +
                      ") is not a convolution, dot or reshape in increasing order: the cost model prices layouts of those");
  }
  return out;
}

}  // namespace fastslow::synth
