#include "fastslow/synth/hlo.h"

#include <algorithm>
#include <numeric>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"

namespace fastslow::synth {
namespace {

[[noreturn]] void fail(const std::string& what) { throw Error("synth: " + what); }

std::string dims_str(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

bool same_shape(const Shape& a, const Shape& b) {
  if (a.type != b.type || a.dims != b.dims || a.tuple.size() != b.tuple.size()) return false;
  for (size_t i = 0; i < a.tuple.size(); ++i)
    if (!same_shape(a.tuple[i], b.tuple[i])) return false;
  return true;
}

bool is_permutation_of_rank(const std::vector<int64_t>& p, size_t rank) {
  if (p.size() != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t v : p) {
    if (v < 0 || v >= static_cast<int64_t>(rank) || seen[v]) return false;
    seen[v] = true;
  }
  return true;
}

void check_rank(size_t rank, const char* op) {
  if (rank > 6) fail(std::string(op) + ": rank " + std::to_string(rank) + " above 6");
}

void check_dims(const std::vector<int64_t>& dims, const char* op) {
  check_rank(dims.size(), op);
  for (int64_t d : dims)
    if (d < 0) fail(std::string(op) + ": negative dimension in " + dims_str(dims));
}

// Output extent of one windowed dimension, as XLA computes it.
int64_t window_output(int64_t in, int64_t size, int64_t stride, int64_t lo, int64_t hi,
                      int64_t wdil, int64_t bdil) {
  if (size < 1 || stride < 1 || wdil < 1 || bdil < 1) fail("window: size, stride and dilations must be >= 1");
  const int64_t base = in == 0 ? 0 : (in - 1) * bdil + 1;
  const int64_t padded = base + lo + hi;
  const int64_t span = (size - 1) * wdil + 1;
  return padded < span ? 0 : (padded - span) / stride + 1;
}

void check_window(const Window& w, size_t n, const char* op) {
  const auto ok = [n](size_t s) { return s == n; };
  if (!ok(w.size.size()) || !ok(w.stride.size()) || !ok(w.pad_low.size()) || !ok(w.pad_high.size()) ||
      !ok(w.window_dilation.size()) || !ok(w.base_dilation.size()) || !ok(w.reversal.size()))
    fail(std::string(op) + ": window needs " + std::to_string(n) + " entries in every field");
}

}  // namespace

const char* element_type_name(ElementType t) {
  switch (t) {
    case ElementType::Invalid: return "invalid_type";
    case ElementType::Pred: return "pred";
    case ElementType::S8: return "s8";
    case ElementType::S16: return "s16";
    case ElementType::S32: return "s32";
    case ElementType::S64: return "s64";
    case ElementType::U8: return "u8";
    case ElementType::U16: return "u16";
    case ElementType::U32: return "u32";
    case ElementType::U64: return "u64";
    case ElementType::F16: return "f16";
    case ElementType::F32: return "f32";
    case ElementType::F64: return "f64";
    case ElementType::BF16: return "bf16";
    case ElementType::C64: return "c64";
    case ElementType::C128: return "c128";
    case ElementType::Tuple: return "tuple";
    case ElementType::Opaque: return "opaque_type";
    case ElementType::Token: return "token";
  }
  return "invalid_type";
}

int element_bits(ElementType t) { return element_type_bits(static_cast<int>(t)); }

int64_t Shape::elements() const {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

std::vector<int> default_layout(int rank) {
  std::vector<int> m2m(static_cast<size_t>(rank));
  for (int i = 0; i < rank; ++i) m2m[i] = rank - 1 - i;
  return m2m;
}

Shape array_shape(ElementType type, std::vector<int64_t> dims) {
  Shape s;
  s.type = type;
  s.minor_to_major = default_layout(static_cast<int>(dims.size()));
  s.dims = std::move(dims);
  return s;
}

Window Window::of(std::vector<int64_t> size) {
  Window w;
  const size_t n = size.size();
  w.size = std::move(size);
  w.stride.assign(n, 1);
  w.pad_low.assign(n, 0);
  w.pad_high.assign(n, 0);
  w.window_dilation.assign(n, 1);
  w.base_dilation.assign(n, 1);
  w.reversal.assign(n, false);
  return w;
}

ConvDimensionNumbers ConvDimensionNumbers::nhwc(int spatial) {
  ConvDimensionNumbers d;
  d.input_batch = 0;
  d.input_feature = spatial + 1;
  d.kernel_input_feature = spatial;
  d.kernel_output_feature = spatial + 1;
  d.output_batch = 0;
  d.output_feature = spatial + 1;
  for (int i = 0; i < spatial; ++i) {
    d.input_spatial.push_back(i + 1);
    d.kernel_spatial.push_back(i);
    d.output_spatial.push_back(i + 1);
  }
  return d;
}

Shape HloNode::shape() const {
  Shape s;
  s.type = type;
  s.dims = dims;
  s.minor_to_major = minor_to_major;
  s.tuple = tuple_shapes;
  return s;
}

// ---------------------------------------------------------------- HloGraph

std::vector<int64_t> HloGraph::edges() const {
  std::vector<int64_t> out;
  std::vector<int> seen;
  for (size_t u = 0; u < nodes.size(); ++u) {
    seen.clear();
    for (int v : nodes[u].operands) {
      if (std::find(seen.begin(), seen.end(), v) != seen.end()) continue;
      seen.push_back(v);
      out.push_back(static_cast<int64_t>(u));
      out.push_back(v);
    }
  }
  return out;
}

std::vector<int32_t> HloGraph::opcodes() const {
  std::vector<int32_t> out;
  out.reserve(nodes.size());
  for (const auto& n : nodes) out.push_back(n.opcode);
  return out;
}

std::vector<int64_t> HloGraph::layout_configurable_nodes() const {
  static const int conv = require_opcode("convolution"), dot = require_opcode("dot"),
                   reshape = require_opcode("reshape");
  std::vector<int64_t> out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const int op = nodes[i].opcode;
    if (op == conv || op == dot || op == reshape) out.push_back(static_cast<int64_t>(i));
  }
  return out;
}

void check_graph(const HloGraph& g) {
  const int64_t n = g.num_nodes();
  const auto& splits = g.node_splits;
  if (n > 0 && (splits.empty() || splits[0] != 0)) fail("check: node_splits must start at 0");
  for (size_t i = 1; i < splits.size(); ++i)
    if (splits[i] <= splits[i - 1] || splits[i] >= n) fail("check: node_splits not increasing inside the graph");
  std::vector<int> roots(splits.size(), 0);
  size_t comp = 0;
  for (int64_t i = 0; i < n; ++i) {
    const HloNode& node = g.nodes[i];
    const std::string at = "check: node " + std::to_string(i) + ": ";
    while (comp + 1 < splits.size() && splits[comp + 1] <= i) ++comp;
    if (node.computation != static_cast<int>(comp)) fail(at + "computation does not match node_splits");
    if (node.opcode < 1 || node.opcode > opcode_count() || opcode_removed(node.opcode))
      fail(at + "bad opcode " + std::to_string(node.opcode));
    check_rank(node.dims.size(), "check");
    if (node.type == ElementType::Tuple) {
      if (!node.dims.empty() || !node.minor_to_major.empty()) fail(at + "tuple with array dims");
    } else {
      std::vector<int64_t> m(node.minor_to_major.begin(), node.minor_to_major.end());
      if (!is_permutation_of_rank(m, node.dims.size())) fail(at + "layout is not a permutation of its rank");
    }
    if (node.is_root) ++roots[comp];
    for (int v : node.operands) {
      if (v < 0 || v >= i) fail(at + "operand " + std::to_string(v) + " not before it");
      const HloNode& o = g.nodes[v];
      if (o.computation != node.computation && !o.is_root)
        fail(at + "uses a non-root node of another computation");
    }
  }
  for (size_t c = 0; c < roots.size(); ++c)
    if (roots[c] != 1) fail("check: computation " + std::to_string(c) + " has " + std::to_string(roots[c]) + " roots");
}

// ---------------------------------------------------------------- HloBuilder

HloBuilder::HloBuilder() { open_computation(); }

int HloBuilder::opcode(std::string_view name) { return require_opcode(name); }

int HloBuilder::open_computation() {
  const int c = num_computations_++;
  next_parameter_.push_back(0);
  roots_.push_back(-1);
  stack_.push_back(c);
  return c;
}

void HloBuilder::close_computation(int root) {
  const int c = stack_.back();
  if (root < 0 || root >= size() || nodes_[root].computation != c)
    fail("computation root must be a node of that computation");
  nodes_[root].is_root = true;
  roots_[c] = root;
  stack_.pop_back();
  closed_order_.push_back(c);
}

int HloBuilder::add(HloNode n) {
  n.computation = stack_.back();
  if (n.type != ElementType::Tuple && n.minor_to_major.empty())
    n.minor_to_major = default_layout(n.rank());
  check_dims(n.dims, opcode_name(n.opcode));
  nodes_.push_back(std::move(n));
  return size() - 1;
}

const HloNode& HloBuilder::operand(int id) const {
  if (id < 0 || id >= size()) fail("operand " + std::to_string(id) + " does not exist");
  const HloNode& n = nodes_[id];
  if (n.computation != stack_.back())
    fail("operand " + std::to_string(id) + " belongs to another computation");
  return n;
}

static HloNode node_of(int opcode, const Shape& s) {
  HloNode n;
  n.opcode = opcode;
  n.type = s.type;
  n.dims = s.dims;
  n.minor_to_major = s.minor_to_major;
  n.tuple_shapes = s.tuple;
  return n;
}

int HloBuilder::parameter(const Shape& shape) {
  HloNode n = node_of(opcode("parameter"), shape);
  n.parameter_number = next_parameter_[stack_.back()]++;
  return add(std::move(n));
}

int HloBuilder::parameter(ElementType type, std::vector<int64_t> dims) {
  return parameter(array_shape(type, std::move(dims)));
}

int HloBuilder::constant(ElementType type, std::vector<int64_t> dims) {
  if (!dims.empty()) return add(node_of(opcode("constant"), array_shape(type, std::move(dims))));
  const int c = current_computation();
  int64_t k = scalars_asked_[{c, static_cast<int>(type)}]++;
  int slot = 0;
  for (++k; (k & 1) == 0 && slot < 7; k >>= 1) ++slot;
  const auto key = std::make_tuple(c, static_cast<int>(type), slot);
  const auto found = scalar_nodes_.find(key);
  if (found != scalar_nodes_.end()) return found->second;
  const int id = add(node_of(opcode("constant"), array_shape(type, {})));
  scalar_nodes_[key] = id;
  return id;
}

int HloBuilder::iota(ElementType type, std::vector<int64_t> dims, int64_t iota_dimension) {
  if (iota_dimension < 0 || iota_dimension >= static_cast<int64_t>(dims.size())) fail("iota: bad dimension");
  HloNode n = node_of(opcode("iota"), array_shape(type, std::move(dims)));
  n.dimensions = {iota_dimension};
  return add(std::move(n));
}

int HloBuilder::unary(std::string_view name, int x) {
  const HloNode& a = operand(x);
  if (a.type == ElementType::Tuple) fail(std::string(name) + ": tuple operand");
  HloNode n = node_of(opcode(name), array_shape(a.type, a.dims));
  n.operands = {x};
  return add(std::move(n));
}

int HloBuilder::binary(std::string_view name, int x, int y) {
  const HloNode& a = operand(x);
  const HloNode& b = operand(y);
  if (a.dims != b.dims || a.type != b.type || a.type == ElementType::Tuple)
    fail(std::string(name) + ": operand shapes differ: " + dims_str(a.dims) + " vs " + dims_str(b.dims));
  HloNode n = node_of(opcode(name), array_shape(a.type, a.dims));
  n.operands = {x, y};
  return add(std::move(n));
}

int HloBuilder::compare(int x, int y) {
  const int id = binary("compare", x, y);
  nodes_[id].type = ElementType::Pred;
  return id;
}

int HloBuilder::select(int p, int t, int f) {
  const HloNode& pn = operand(p);
  const HloNode& a = operand(t);
  const HloNode& b = operand(f);
  if (pn.type != ElementType::Pred || a.dims != b.dims || a.type != b.type ||
      (pn.rank() != 0 && pn.dims != a.dims))
    fail("select: needs a pred of the operands' shape and operands of one shape");
  HloNode n = node_of(opcode("select"), array_shape(a.type, a.dims));
  n.operands = {p, t, f};
  return add(std::move(n));
}

int HloBuilder::convert(int x, ElementType type) {
  const int id = unary("convert", x);
  nodes_[id].type = type;
  return id;
}

int HloBuilder::op(std::string_view name, const std::vector<int>& operands, const Shape& shape) {
  for (int o : operands) operand(o);
  HloNode n = node_of(opcode(name), shape);
  if (n.minor_to_major.size() != n.dims.size()) n.minor_to_major = default_layout(n.rank());
  n.operands = operands;
  return add(std::move(n));
}

int HloBuilder::broadcast(int x, std::vector<int64_t> out_dims, std::vector<int64_t> bdims) {
  const HloNode& a = operand(x);
  if (bdims.size() != a.dims.size()) fail("broadcast: need one output dim per operand dim");
  for (size_t i = 0; i < bdims.size(); ++i) {
    if (bdims[i] < 0 || bdims[i] >= static_cast<int64_t>(out_dims.size()) ||
        (i > 0 && bdims[i] <= bdims[i - 1]))
      fail("broadcast: dimensions must be increasing output dims");
    if (out_dims[bdims[i]] != a.dims[i])
      fail("broadcast: operand " + dims_str(a.dims) + " does not fit " + dims_str(out_dims));
  }
  auto key = std::make_tuple(x, out_dims, bdims);
  const auto found = broadcasts_.find(key);
  if (found != broadcasts_.end()) return found->second;
  HloNode n = node_of(opcode("broadcast"), array_shape(a.type, std::move(out_dims)));
  n.dimensions = std::move(bdims);
  n.operands = {x};
  const int id = add(std::move(n));
  broadcasts_[std::move(key)] = id;
  return id;
}

int HloBuilder::reshape(int x, std::vector<int64_t> dims) {
  const HloNode& a = operand(x);
  Shape s = array_shape(a.type, std::move(dims));
  if (s.elements() != a.shape().elements())
    fail("reshape: " + dims_str(a.dims) + " to " + dims_str(s.dims) + " changes the element count");
  HloNode n = node_of(opcode("reshape"), s);
  n.operands = {x};
  return add(std::move(n));
}

int HloBuilder::transpose(int x, std::vector<int64_t> perm) {
  const HloNode& a = operand(x);
  if (!is_permutation_of_rank(perm, a.dims.size())) fail("transpose: not a permutation of the operand's rank");
  std::vector<int64_t> out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = a.dims[perm[i]];
  HloNode n = node_of(opcode("transpose"), array_shape(a.type, std::move(out)));
  n.dimensions = std::move(perm);
  n.operands = {x};
  return add(std::move(n));
}

int HloBuilder::slice(int x, std::vector<int64_t> start, std::vector<int64_t> limit,
                      std::vector<int64_t> stride) {
  const HloNode& a = operand(x);
  const size_t r = a.dims.size();
  if (stride.empty()) stride.assign(r, 1);
  if (start.size() != r || limit.size() != r || stride.size() != r) fail("slice: need one entry per dim");
  std::vector<int64_t> out(r);
  for (size_t i = 0; i < r; ++i) {
    if (start[i] < 0 || start[i] > limit[i] || limit[i] > a.dims[i] || stride[i] < 1)
      fail("slice: bounds outside " + dims_str(a.dims));
    out[i] = (limit[i] - start[i] + stride[i] - 1) / stride[i];
  }
  HloNode n = node_of(opcode("slice"), array_shape(a.type, std::move(out)));
  n.slice_start = std::move(start);
  n.slice_limit = std::move(limit);
  n.slice_stride = std::move(stride);
  n.operands = {x};
  return add(std::move(n));
}

int HloBuilder::dynamic_slice(int x, const std::vector<int>& starts, std::vector<int64_t> sizes) {
  const HloNode& a = operand(x);
  if (starts.size() != a.dims.size() || sizes.size() != a.dims.size())
    fail("dynamic-slice: need one start index and size per dim");
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] < 0 || sizes[i] > a.dims[i]) fail("dynamic-slice: size outside " + dims_str(a.dims));
  for (int s : starts)
    if (operand(s).rank() != 0) fail("dynamic-slice: start indices must be scalars");
  HloNode n = node_of(opcode("dynamic-slice"), array_shape(a.type, sizes));
  n.dynamic_slice_sizes = std::move(sizes);
  n.operands = {x};
  n.operands.insert(n.operands.end(), starts.begin(), starts.end());
  return add(std::move(n));
}

int HloBuilder::dynamic_update_slice(int x, int update, const std::vector<int>& starts) {
  const HloNode& a = operand(x);
  const HloNode& u = operand(update);
  if (starts.size() != a.dims.size() || u.dims.size() != a.dims.size() || u.type != a.type)
    fail("dynamic-update-slice: rank or type mismatch");
  for (size_t i = 0; i < a.dims.size(); ++i)
    if (u.dims[i] > a.dims[i]) fail("dynamic-update-slice: update larger than operand");
  for (int s : starts)
    if (operand(s).rank() != 0) fail("dynamic-update-slice: start indices must be scalars");
  HloNode n = node_of(opcode("dynamic-update-slice"), array_shape(a.type, a.dims));
  n.operands = {x, update};
  n.operands.insert(n.operands.end(), starts.begin(), starts.end());
  return add(std::move(n));
}

int HloBuilder::pad(int x, int pad_value, std::vector<int64_t> low, std::vector<int64_t> high,
                    std::vector<int64_t> interior) {
  const HloNode& a = operand(x);
  const HloNode& v = operand(pad_value);
  const size_t r = a.dims.size();
  if (interior.empty()) interior.assign(r, 0);
  if (low.size() != r || high.size() != r || interior.size() != r) fail("pad: need one entry per dim");
  if (v.rank() != 0 || v.type != a.type) fail("pad: padding value must be a scalar of the operand's type");
  std::vector<int64_t> out(r);
  for (size_t i = 0; i < r; ++i) {
    if (interior[i] < 0) fail("pad: negative interior padding");
    const int64_t d = a.dims[i];
    out[i] = low[i] + high[i] + d + (d > 0 ? (d - 1) * interior[i] : 0);
    if (out[i] < 0) fail("pad: negative result dimension");
  }
  HloNode n = node_of(opcode("pad"), array_shape(a.type, std::move(out)));
  n.pad_low = std::move(low);
  n.pad_high = std::move(high);
  n.pad_interior = std::move(interior);
  n.operands = {x, pad_value};
  return add(std::move(n));
}

int HloBuilder::concatenate(const std::vector<int>& xs, int64_t dim) {
  if (xs.empty()) fail("concatenate: no operands");
  const HloNode& first = operand(xs[0]);
  if (dim < 0 || dim >= first.rank()) fail("concatenate: bad dimension");
  std::vector<int64_t> out = first.dims;
  out[dim] = 0;
  for (int x : xs) {
    const HloNode& a = operand(x);
    if (a.rank() != first.rank() || a.type != first.type) fail("concatenate: rank or type mismatch");
    for (int i = 0; i < a.rank(); ++i)
      if (i != dim && a.dims[i] != first.dims[i]) fail("concatenate: shapes differ off the axis");
    out[dim] += a.dims[dim];
  }
  HloNode n = node_of(opcode("concatenate"), array_shape(first.type, std::move(out)));
  n.dimensions = {dim};
  n.operands = xs;
  return add(std::move(n));
}

int HloBuilder::reduce(int x, int init, std::vector<int64_t> rdims) {
  const HloNode& a = operand(x);
  const HloNode& v = operand(init);
  if (v.rank() != 0) fail("reduce: init must be a scalar");
  std::sort(rdims.begin(), rdims.end());
  std::vector<int64_t> out;
  for (int i = 0; i < a.rank(); ++i)
    if (!std::binary_search(rdims.begin(), rdims.end(), i)) out.push_back(a.dims[i]);
  if (std::adjacent_find(rdims.begin(), rdims.end()) != rdims.end() ||
      (!rdims.empty() && (rdims.front() < 0 || rdims.back() >= a.rank())))
    fail("reduce: bad dimensions for " + dims_str(a.dims));
  HloNode n = node_of(opcode("reduce"), array_shape(a.type, std::move(out)));
  n.dimensions = std::move(rdims);
  n.operands = {x, init};
  return add(std::move(n));
}

int HloBuilder::reduce_window(int x, int init, const Window& w) {
  const HloNode& a = operand(x);
  if (operand(init).rank() != 0) fail("reduce-window: init must be a scalar");
  check_window(w, a.dims.size(), "reduce-window");
  std::vector<int64_t> out(a.dims.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = window_output(a.dims[i], w.size[i], w.stride[i], w.pad_low[i], w.pad_high[i],
                           w.window_dilation[i], w.base_dilation[i]);
  HloNode n = node_of(opcode("reduce-window"), array_shape(a.type, std::move(out)));
  n.window = w;
  n.operands = {x, init};
  return add(std::move(n));
}

int HloBuilder::select_and_scatter(int x, int source, int init, const Window& w) {
  const HloNode& a = operand(x);
  const HloNode& src = operand(source);
  if (operand(init).rank() != 0) fail("select-and-scatter: init must be a scalar");
  check_window(w, a.dims.size(), "select-and-scatter");
  if (src.type != a.type || src.rank() != a.rank()) fail("select-and-scatter: source and operand differ in type or rank");
  for (size_t i = 0; i < a.dims.size(); ++i)
    if (window_output(a.dims[i], w.size[i], w.stride[i], w.pad_low[i], w.pad_high[i], w.window_dilation[i],
                      w.base_dilation[i]) != src.dims[i])
      fail("select-and-scatter: source " + dims_str(src.dims) + " is not one value per window of " + dims_str(a.dims));
  HloNode n = node_of(opcode("select-and-scatter"), array_shape(a.type, a.dims));
  n.window = w;
  n.operands = {x, source, init};
  return add(std::move(n));
}

int HloBuilder::convolution(int input, int kernel, const Window& w, const ConvDimensionNumbers& d,
                            int64_t fgc, int64_t bgc) {
  const HloNode& in = operand(input);
  const HloNode& k = operand(kernel);
  const size_t sp = d.input_spatial.size();
  const size_t r = sp + 2;
  if (in.dims.size() != r || k.dims.size() != r || d.kernel_spatial.size() != sp || d.output_spatial.size() != sp)
    fail("convolution: ranks do not match the dimension numbers");
  std::vector<int64_t> in_order = {d.input_batch, d.input_feature}, k_order = {d.kernel_input_feature, d.kernel_output_feature},
                       out_order = {d.output_batch, d.output_feature};
  in_order.insert(in_order.end(), d.input_spatial.begin(), d.input_spatial.end());
  k_order.insert(k_order.end(), d.kernel_spatial.begin(), d.kernel_spatial.end());
  out_order.insert(out_order.end(), d.output_spatial.begin(), d.output_spatial.end());
  if (!is_permutation_of_rank(in_order, r) || !is_permutation_of_rank(k_order, r) ||
      !is_permutation_of_rank(out_order, r))
    fail("convolution: dimension numbers are not permutations");
  check_window(w, sp, "convolution");
  if (fgc < 1 || bgc < 1) fail("convolution: group counts must be >= 1");
  if (in.dims[d.input_feature] != k.dims[d.kernel_input_feature] * fgc)
    fail("convolution: input features " + std::to_string(in.dims[d.input_feature]) + " != kernel input features " +
         std::to_string(k.dims[d.kernel_input_feature]) + " x feature groups " + std::to_string(fgc));
  if (k.dims[d.kernel_output_feature] % fgc != 0 || in.dims[d.input_batch] % bgc != 0)
    fail("convolution: group counts do not divide the features / batch");
  std::vector<int64_t> out(r);
  out[d.output_batch] = in.dims[d.input_batch] / bgc;
  out[d.output_feature] = k.dims[d.kernel_output_feature];
  for (size_t i = 0; i < sp; ++i) {
    if (k.dims[d.kernel_spatial[i]] != w.size[i]) fail("convolution: window size differs from the kernel's");
    out[d.output_spatial[i]] = window_output(in.dims[d.input_spatial[i]], w.size[i], w.stride[i], w.pad_low[i],
                                             w.pad_high[i], w.window_dilation[i], w.base_dilation[i]);
  }
  HloNode n = node_of(opcode("convolution"), array_shape(in.type, std::move(out)));
  n.window = w;
  n.has_conv_dims = true;
  n.conv_dims = d;
  n.feature_group_count = fgc;
  n.batch_group_count = bgc;
  n.operands = {input, kernel};
  return add(std::move(n));
}

int HloBuilder::dot(int lhs, int rhs, const DotDimensionNumbers& d) {
  const HloNode& a = operand(lhs);
  const HloNode& b = operand(rhs);
  if (d.lhs_batch.size() != d.rhs_batch.size() || d.lhs_contracting.size() != d.rhs_contracting.size())
    fail("dot: batch / contracting dims differ in count");
  const auto in_range = [](const std::vector<int64_t>& v, int rank) {
    for (int64_t x : v)
      if (x < 0 || x >= rank) return false;
    return true;
  };
  if (!in_range(d.lhs_batch, a.rank()) || !in_range(d.lhs_contracting, a.rank()) ||
      !in_range(d.rhs_batch, b.rank()) || !in_range(d.rhs_contracting, b.rank()))
    fail("dot: dimension out of range");
  for (size_t i = 0; i < d.lhs_batch.size(); ++i)
    if (a.dims[d.lhs_batch[i]] != b.dims[d.rhs_batch[i]]) fail("dot: batch sizes differ");
  for (size_t i = 0; i < d.lhs_contracting.size(); ++i)
    if (a.dims[d.lhs_contracting[i]] != b.dims[d.rhs_contracting[i]])
      fail("dot: contracting sizes differ: " + dims_str(a.dims) + " x " + dims_str(b.dims));
  const auto used = [](const std::vector<int64_t>& x, const std::vector<int64_t>& y, int64_t i) {
    return std::find(x.begin(), x.end(), i) != x.end() || std::find(y.begin(), y.end(), i) != y.end();
  };
  std::vector<int64_t> out;
  for (int64_t i : d.lhs_batch) out.push_back(a.dims[i]);
  for (int i = 0; i < a.rank(); ++i)
    if (!used(d.lhs_batch, d.lhs_contracting, i)) out.push_back(a.dims[i]);
  for (int i = 0; i < b.rank(); ++i)
    if (!used(d.rhs_batch, d.rhs_contracting, i)) out.push_back(b.dims[i]);
  HloNode n = node_of(opcode("dot"), array_shape(a.type, std::move(out)));
  n.dot_dims = d;
  n.operands = {lhs, rhs};
  return add(std::move(n));
}

int HloBuilder::matmul(int lhs, int rhs) {
  const int r = operand(lhs).rank();
  if (r < 2 || operand(rhs).rank() != r) fail("matmul: operands need one rank >= 2");
  DotDimensionNumbers d;
  for (int i = 0; i < r - 2; ++i) {
    d.lhs_batch.push_back(i);
    d.rhs_batch.push_back(i);
  }
  d.lhs_contracting = {r - 1};
  d.rhs_contracting = {r - 2};
  return dot(lhs, rhs, d);
}

int HloBuilder::tuple(const std::vector<int>& xs) {
  HloNode n;
  n.opcode = opcode("tuple");
  n.type = ElementType::Tuple;
  for (int x : xs) n.tuple_shapes.push_back(operand(x).shape());
  n.operands = xs;
  return add(std::move(n));
}

int HloBuilder::get_tuple_element(int t, int64_t index) {
  const HloNode& a = operand(t);
  if (a.type != ElementType::Tuple || index < 0 || index >= static_cast<int64_t>(a.tuple_shapes.size()))
    fail("get-tuple-element: index outside the tuple");
  HloNode n = node_of(opcode("get-tuple-element"), a.tuple_shapes[index]);
  n.tuple_index = index;
  n.operands = {t};
  return add(std::move(n));
}

int HloBuilder::callee(const std::vector<Shape>& shapes, const Body& body) {
  open_computation();
  std::vector<int> params;
  for (const Shape& s : shapes) params.push_back(parameter(s));
  const int root = body(*this, params);
  close_computation(root);
  return root;
}

int HloBuilder::call(const std::vector<int>& args, const Body& body) {
  std::vector<Shape> shapes;
  for (int a : args) shapes.push_back(operand(a).shape());
  const int root = callee(shapes, body);
  HloNode n = node_of(opcode("call"), nodes_[root].shape());
  n.operands = args;
  n.operands.push_back(root);
  return add(std::move(n));
}

int HloBuilder::fusion(const std::vector<int>& args, const Body& body) {
  const int id = call(args, body);
  nodes_[id].opcode = opcode("fusion");
  return id;
}

int HloBuilder::fusion(const std::vector<int>& args, const Shape& shape) {
  return op("fusion", args, shape);
}

int HloBuilder::while_loop(int state, const Body& cond, const Body& body) {
  const Shape s = operand(state).shape();
  if (s.type != ElementType::Tuple) fail("while: state must be a tuple");
  const int cond_root = callee({s}, cond);
  if (nodes_[cond_root].type != ElementType::Pred || !nodes_[cond_root].dims.empty())
    fail("while: condition must return a pred scalar");
  const int body_root = callee({s}, body);
  if (!same_shape(nodes_[body_root].shape(), s)) fail("while: body must return the state's shape");
  HloNode n = node_of(opcode("while"), s);
  n.operands = {state, cond_root, body_root};
  return add(std::move(n));
}

int HloBuilder::conditional(int pred, int true_arg, int false_arg, const Body& on_true, const Body& on_false) {
  const HloNode& p = operand(pred);
  if (p.type != ElementType::Pred || !p.dims.empty()) fail("conditional: the predicate must be a pred scalar");
  const Shape true_shape = operand(true_arg).shape();
  const Shape false_shape = operand(false_arg).shape();
  const int true_root = callee({true_shape}, on_true);
  const int false_root = callee({false_shape}, on_false);
  if (!same_shape(nodes_[true_root].shape(), nodes_[false_root].shape()))
    fail("conditional: the branches must return one shape");
  HloNode n = node_of(opcode("conditional"), nodes_[true_root].shape());
  n.operands = {pred, true_arg, false_arg, true_root, false_root};
  return add(std::move(n));
}

void HloBuilder::set_layout(int node, std::vector<int> m2m) {
  HloNode& n = nodes_.at(static_cast<size_t>(node));
  std::vector<int64_t> p(m2m.begin(), m2m.end());
  if (!is_permutation_of_rank(p, n.dims.size())) fail("set_layout: not a permutation of the node's rank");
  n.minor_to_major = std::move(m2m);
}

HloGraph HloBuilder::build(int root) {
  if (stack_.size() != 1) fail("build: a nested computation is still open");
  close_computation(root);
  // Callees closed before their callers, so closing order is a valid
  // computation post-order; nodes keep their creation order inside each.
  std::vector<int> rank_of(static_cast<size_t>(num_computations_));
  for (size_t i = 0; i < closed_order_.size(); ++i) rank_of[closed_order_[i]] = static_cast<int>(i);
  std::vector<int> order(nodes_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return rank_of[nodes_[a].computation] < rank_of[nodes_[b].computation];
  });
  std::vector<int> new_id(nodes_.size());
  for (size_t i = 0; i < order.size(); ++i) new_id[order[i]] = static_cast<int>(i);
  HloGraph g;
  g.nodes.reserve(nodes_.size());
  for (int old : order) {
    HloNode n = std::move(nodes_[old]);
    for (int& o : n.operands) o = new_id[o];
    n.computation = rank_of[n.computation];
    if (g.node_splits.empty() || n.computation != g.nodes.back().computation)
      g.node_splits.push_back(static_cast<int64_t>(g.nodes.size()));
    g.nodes.push_back(std::move(n));
  }
  nodes_.clear();
  stack_.clear();
  check_graph(g);
  return g;
}

}  // namespace fastslow::synth
