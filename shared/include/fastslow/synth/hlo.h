// An in-memory HLO-like graph for the synthetic data generator: nodes carry
// the opcode, output shape and layout, operands and the op attributes that the
// published node features describe. HloBuilder infers output shapes the way
// XLA does, so features built from a graph are mutually consistent.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <string_view>
#include <vector>

namespace fastslow::synth {

// In the order of the element-type one-hot columns of the node features.
enum class ElementType {
  Invalid, Pred, S8, S16, S32, S64, U8, U16, U32, U64,
  F16, F32, F64, BF16, C64, C128, Tuple, Opaque, Token
};
// The suffix of the one-hot column: "pred", "f32", "opaque_type", ...
const char* element_type_name(ElementType t);
int element_bits(ElementType t);  // 0 for tuple, opaque, token, invalid

// An array shape (or a tuple of them when type == Tuple).
struct Shape {
  ElementType type = ElementType::F32;
  std::vector<int64_t> dims;         // rank 0..6
  std::vector<int> minor_to_major;   // a permutation of 0..rank-1
  std::vector<Shape> tuple;          // elements when type == Tuple
  int64_t elements() const;          // product of dims (1 for scalars)
};
// XLA's default layout: the last dimension is the most minor.
std::vector<int> default_layout(int rank);
Shape array_shape(ElementType type, std::vector<int64_t> dims);

// Window of a convolution (spatial dims) or reduce-window (all dims).
struct Window {
  std::vector<int64_t> size, stride, pad_low, pad_high, window_dilation, base_dilation;
  std::vector<bool> reversal;
  bool empty() const { return size.empty(); }
  // A window of `size` with stride 1, no padding or dilation; then edit fields.
  static Window of(std::vector<int64_t> size);
};

struct ConvDimensionNumbers {
  int64_t input_batch = 0, input_feature = 0;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 0, kernel_output_feature = 0;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0, output_feature = 0;
  std::vector<int64_t> output_spatial;
  // NHWC input, HWIO kernel, NHWC output with `spatial` spatial dims.
  static ConvDimensionNumbers nhwc(int spatial = 2);
};

struct DotDimensionNumbers {
  std::vector<int64_t> lhs_batch, lhs_contracting, rhs_batch, rhs_contracting;
};

struct HloNode {
  int opcode = 0;  // id in hlo_opcodes.tsv
  ElementType type = ElementType::F32;
  std::vector<int64_t> dims;
  std::vector<int> minor_to_major;  // this node's own output layout
  std::vector<Shape> tuple_shapes;  // when type == Tuple
  std::vector<int> operands;        // node ids, all smaller than this node's
  int computation = 0;              // index into HloGraph::node_splits
  bool is_root = false;             // root of its computation

  // Op attributes; empty / 0 where the op has none.
  std::vector<int64_t> dimensions;  // reduce, broadcast, transpose, concatenate, reverse, sort
  Window window;                    // convolution, reduce-window
  bool has_conv_dims = false;
  ConvDimensionNumbers conv_dims;
  int64_t feature_group_count = 0, batch_group_count = 0;  // 1+ on convolutions
  DotDimensionNumbers dot_dims;
  std::vector<int64_t> slice_start, slice_limit, slice_stride;
  std::vector<int64_t> dynamic_slice_sizes;
  std::vector<int64_t> pad_low, pad_high, pad_interior;
  int64_t parameter_number = 0;     // parameters: position in their computation
  int64_t tuple_index = 0;          // get-tuple-element
  bool is_stable = false;           // sort

  Shape shape() const;
  int rank() const { return static_cast<int>(dims.size()); }
};

// A flattened graph: the nodes of each computation are contiguous, callees
// before callers, the entry computation last (XLA's computation post-order),
// which is what the published node_splits describe.
struct HloGraph {
  std::vector<HloNode> nodes;
  std::vector<int64_t> node_splits;  // start node of each computation

  int64_t num_nodes() const { return static_cast<int64_t>(nodes.size()); }
  // Rows [u, v], u consuming v's output (v < u), flattened m x 2; an operand
  // used twice by one node gives one edge.
  std::vector<int64_t> edges() const;
  std::vector<int32_t> opcodes() const;
  // Convolution, dot and reshape nodes: the ones layout configs apply to.
  std::vector<int64_t> layout_configurable_nodes() const;
};

// Checks the structural promises above (topological operands, contiguous
// computations, ranks, layouts, opcode ids); throws fastslow::Error naming the
// first broken one. Tests and the generator call it on everything they make.
void check_graph(const HloGraph& g);

// Builds an HloGraph node by node. Every helper checks its operands' shapes,
// computes the output shape, and returns the new node's id. Ids stay valid
// handles while building; build() renumbers so computations are contiguous.
class HloBuilder {
 public:
  HloBuilder();

  // --- leaves
  // Parameters are numbered 0, 1, ... per computation in creation order.
  //
  // Common subexpressions are merged as XLA's CSE pass merges them before
  // layout assignment, which is where the real files' constants and
  // broadcasts get their fan-out (real nlp: one constant with 1,072 users):
  //  - scalar constants: the generator's constants carry no values, so the
  //    k-th scalar constant of a type in a computation stands for one of at
  //    most 8 values, value j taking a 2^-(j+1) share of them (most are
  //    zeros and ones): k and k' with the same count of trailing zero bits
  //    in k + 1 are one node;
  //  - broadcasts of one operand to one shape along the same dims.
  // Larger constants (an inference graph's folded weights) stay distinct.
  int parameter(const Shape& shape);
  int parameter(ElementType type, std::vector<int64_t> dims);
  int constant(ElementType type, std::vector<int64_t> dims);
  int iota(ElementType type, std::vector<int64_t> dims, int64_t iota_dimension);

  // --- elementwise (operands of one shape; no implicit broadcasting)
  int unary(std::string_view opcode, int x);   // exponential, rsqrt, tanh, negate, ...
  int binary(std::string_view opcode, int a, int b);  // add, multiply, maximum, ...
  int compare(int a, int b);                   // pred result
  int select(int pred, int on_true, int on_false);
  int convert(int x, ElementType type);
  // Elementwise op with an explicit result shape: for ops the helpers lack.
  int op(std::string_view opcode, const std::vector<int>& operands, const Shape& shape);

  // --- shape ops
  // Operand dim i becomes output dim broadcast_dims[i] (XLA semantics).
  int broadcast(int x, std::vector<int64_t> out_dims, std::vector<int64_t> broadcast_dims);
  int reshape(int x, std::vector<int64_t> dims);
  int transpose(int x, std::vector<int64_t> permutation);  // out[i] = in[permutation[i]]
  int slice(int x, std::vector<int64_t> start, std::vector<int64_t> limit,
            std::vector<int64_t> stride = {});
  // Start indices are scalar s32 operands, one per dimension.
  int dynamic_slice(int x, const std::vector<int>& start_indices, std::vector<int64_t> sizes);
  int dynamic_update_slice(int x, int update, const std::vector<int>& start_indices);
  int pad(int x, int pad_value, std::vector<int64_t> low, std::vector<int64_t> high,
          std::vector<int64_t> interior = {});
  int concatenate(const std::vector<int>& xs, int64_t dimension);

  // --- reductions and contractions
  int reduce(int x, int init, std::vector<int64_t> reduce_dims);
  int reduce_window(int x, int init, const Window& window);  // window over all dims of x
  // The gradient of a max-pool: scatters `source` (one value per window of
  // x) back to where each window's maximum sits; the result has x's shape.
  int select_and_scatter(int x, int source, int init, const Window& window);
  int convolution(int input, int kernel, const Window& window, const ConvDimensionNumbers& dnums,
                  int64_t feature_group_count = 1, int64_t batch_group_count = 1);
  int dot(int lhs, int rhs, const DotDimensionNumbers& dnums);
  // Plain [.., m, k] x [.., k, n] matmul with all leading dims as batch dims.
  int matmul(int lhs, int rhs);

  // --- tuples
  int tuple(const std::vector<int>& xs);
  int get_tuple_element(int t, int64_t index);

  // --- nested computations. `body` builds the callee inside a new
  // computation from its parameters (one per element of `params`) and
  // returns its root; the caller node then consumes the callee's root.
  using Body = std::function<int(HloBuilder&, const std::vector<int>& params)>;
  int call(const std::vector<int>& args, const Body& body);
  // A fused kernel: like call, with the fusion opcode.
  int fusion(const std::vector<int>& args, const Body& body);
  // A fusion node standing for a subgraph that is not emitted.
  int fusion(const std::vector<int>& args, const Shape& shape);
  // `state` is a tuple; cond and body each get one parameter of its shape;
  // cond returns a pred scalar, body a tuple of the same shape.
  int while_loop(int state, const Body& cond, const Body& body);
  // `pred` is a pred scalar; on_true gets one parameter of true_arg's shape,
  // on_false one of false_arg's, and both return one shape (the result's).
  // The node's operands are (pred, true_arg, false_arg, true root, false
  // root), as a while lists its state and its callees' roots.
  int conditional(int pred, int true_arg, int false_arg, const Body& on_true, const Body& on_false);

  // Replaces a node's layout (a permutation of 0..rank-1).
  void set_layout(int node, std::vector<int> minor_to_major);

  const HloNode& node(int id) const { return nodes_.at(static_cast<size_t>(id)); }
  Shape shape(int id) const { return node(id).shape(); }
  const std::vector<int64_t>& dims(int id) const { return node(id).dims; }
  int size() const { return static_cast<int>(nodes_.size()); }
  int current_computation() const { return stack_.back(); }

  // Marks `root` as the entry computation's root and returns the graph.
  HloGraph build(int root);

 private:
  int add(HloNode n);
  int opcode(std::string_view name);
  const HloNode& operand(int id) const;  // checks it is in the open computation
  // Builds `body` in a new computation with parameters of `shapes`; returns its root.
  int callee(const std::vector<Shape>& shapes, const Body& body);
  int open_computation();
  void close_computation(int root);

  std::vector<HloNode> nodes_;
  std::vector<int> stack_;          // open computations, innermost last
  std::vector<int> closed_order_;   // computations in the order they closed
  std::vector<int> next_parameter_; // per computation
  std::vector<int> roots_;          // per computation, -1 while open
  int num_computations_ = 0;
  // What CSE merges (see the leaves): per (computation, type) the scalar
  // constants asked for, and their nodes by value slot; broadcasts by what
  // makes one.
  std::map<std::pair<int, int>, int64_t> scalars_asked_;
  std::map<std::tuple<int, int, int>, int> scalar_nodes_;
  std::map<std::tuple<int, std::vector<int64_t>, std::vector<int64_t>>, int> broadcasts_;
};

}  // namespace fastslow::synth
