#include "export/export_onnx.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>

#include "export/onnx_builder.h"
#include "export/weight_precision.h"
#include "fastslow/error.h"
#include "export/tiling_onnx.h"
#include "fastslow/features/layout_context.h"
#include "models/ensemble_model.h"
#include "models/layout_attn.h"
#include "models/layout_focus.h"
#include "models/layout_sage.h"
#include "models/program_model.h"
#include "models/registry.h"
#include "models/tile_gcn.h"
#include "models/tile_mlp.h"
#include "models/tile_sage.h"

namespace fastslow::exporter {

namespace {

constexpr int32_t kFloat = onnx::TensorProto::FLOAT;
constexpr int32_t kInt64 = onnx::TensorProto::INT64;

std::vector<float> values_of(const torch::Tensor& t) {
  const torch::Tensor c = t.detach().to(torch::kCPU, torch::kFloat32).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

std::vector<int64_t> dims_of(const torch::Tensor& t) { return t.sizes().vec(); }

// Emits the models' pieces as ONNX ops, mirroring models/blocks.h and the
// model files. Node values are node-major [n, B or 1, H] as in LibTorch.
class Emitter {
 public:
  // write_back: each lowered weight's computed values go back into the
  // model (lower_weights).
  Emitter(OnnxBuilder& b, const PrecisionPlan& plan, PrecisionReport* report, bool write_back = false)
      : b_(b), plan_(plan), report_(report), write_back_(write_back) {}

  using Back = std::function<void(const torch::Tensor&)>;
  // A trained tensor: matrices lowered to the plan's precision
  // (weight_precision.h). `back` puts values of t's shape into the parameter
  // t was made from, where t is a transposed or sliced copy; otherwise t is
  // a view of the parameter and takes them itself.
  std::string param(const torch::Tensor& t, const std::string& hint, const Back& back = {}) {
    const std::vector<int64_t> dims = dims_of(t);
    const WeightPrecision p = plan_.at(weights_++, dims);
    const std::vector<float> values = values_of(t);
    if (write_back_ && p != WeightPrecision::Fp32) {
      std::vector<float> v = computed_values(values, dims, p);
      const torch::Tensor lowered = torch::from_blob(v.data(), t.sizes(), torch::kFloat32).clone().to(t.device(), t.dtype());
      if (back) back(lowered);
      else t.detach().copy_(lowered);
    }
    return weight_value(b_, values, dims, p, hint, report_);
  }

  // x [..., in] -> [..., out]; weights stored transposed so it is one MatMul.
  std::string linear(const torch::nn::Linear& l, const std::string& x) {
    const torch::Tensor wt = l->weight.detach().t().contiguous();
    std::string y = b_.op("MatMul", {x, param(wt, "w", [&](const torch::Tensor& v) { l->weight.detach().copy_(v.t()); })});
    if (l->bias.defined()) y = b_.op("Add", {y, param(l->bias, "b")});
    return y;
  }
  std::string layer_norm(const torch::nn::LayerNorm& n, const std::string& x) {
    return b_.op("LayerNormalization", {x, param(n->weight, "ln_w"), param(n->bias, "ln_b")},
                 {{"axis", int64_t{-1}}, {"epsilon", static_cast<float>(n->options.eps())}});
  }
  std::string relu(const std::string& x) { return b_.op("Relu", {x}); }
  // Exact GELU, as torch::gelu computes it: x/2 (1 + erf(x / sqrt 2)),
  // written in the op order ONNX Runtime's GeluFusion recognises, so it runs
  // as one fused kernel there.
  std::string gelu(const std::string& x) {
    const std::string e = b_.op("Erf", {b_.op("Div", {x, b_.scalar(static_cast<float>(M_SQRT2))})});
    return b_.op("Mul", {b_.op("Mul", {x, b_.op("Add", {e, b_.scalar(1.0f)})}), b_.scalar(0.5f)});
  }
  // x / max(||x||, eps) over the last axis, as torch's normalize.
  std::string l2_normalize(const std::string& x, float eps) {
    const std::string norm = b_.op("ReduceL2", {x}, {{"axes", std::vector<int64_t>{-1}}, {"keepdims", int64_t{1}}});
    return b_.op("Div", {x, b_.op("Max", {norm, b_.scalar(eps)})});
  }
  std::string unsqueeze(const std::string& x, std::vector<int64_t> axes) {
    const auto n = static_cast<int64_t>(axes.size());
    return b_.op("Unsqueeze", {x, b_.ints(axes, {n}, "axes")});
  }
  std::string squeeze_last(const std::string& x) { return b_.op("Squeeze", {x, b_.ints({-1}, {1}, "axes")}); }
  std::string mean_over_nodes(const std::string& x) {
    return b_.op("ReduceMean", {x}, {{"axes", std::vector<int64_t>{0}}, {"keepdims", int64_t{0}}});
  }
  // dim `axis` of x's shape as a 1-element int64 tensor.
  std::string dim(const std::string& x, int64_t axis) {
    return b_.op("Shape", {x}, {{"start", axis}, {"end", axis + 1}});
  }

  // Graph values every model needs; computed once.
  void graph_inputs(int64_t vocab) {
    vocab_ = vocab;
    // edge_index rows are [u, v]: v produces, u consumes.
    dst_ = b_.op("Gather", {"edge_index", b_.ints({0}, {}, "col")}, {{"axis", int64_t{1}}}, "dst");
    src_ = b_.op("Gather", {"edge_index", b_.ints({1}, {}, "col")}, {{"axis", int64_t{1}}}, "src");
    dst_idx_ = unsqueeze(dst_, {1});
    src_idx_ = unsqueeze(src_, {1});
    const std::string zeros_n = b_.filled(b_.op("Shape", {"node_opcode"}), 0.0f);
    const std::string ones_m = b_.filled(b_.op("Shape", {dst_}), 1.0f);
    deg_in_ = b_.op("ScatterND", {zeros_n, dst_idx_, ones_m}, {{"reduction", std::string("add")}}, "deg_in");
    deg_out_ = b_.op("ScatterND", {zeros_n, src_idx_, ones_m}, {{"reduction", std::string("add")}}, "deg_out");
  }

  // Sums over neighbours of [n, B, H] values: operands (producers) or users.
  std::string neighbour_sum(const std::string& x, bool operands) {
    const std::string zeros = b_.filled(b_.op("Shape", {x}), 0.0f);
    const std::string from = operands ? src_ : dst_;
    const std::string to = operands ? dst_idx_ : src_idx_;
    return b_.op("ScatterND", {zeros, to, b_.op("Gather", {x, from}, {{"axis", int64_t{0}}})},
                 {{"reduction", std::string("add")}});
  }
  std::string per_node(const std::string& v) { return unsqueeze(v, {1, 2}); }  // [n] -> [n, 1, 1]
  std::string neighbour_mean(const std::string& x, bool operands) {
    const std::string deg = operands ? deg_in_ : deg_out_;
    const std::string inv = b_.op("Reciprocal", {b_.op("Max", {deg, b_.scalar(1.0f)})});
    return b_.op("Mul", {neighbour_sum(x, operands), per_node(inv)});
  }
  // The SAGE layers' lin([x, mean_in(x), mean_out(x)]) for x [n, B, H], as
  // three chained Gemms on 2-D views (Gemm's C input carries the sum), which
  // spares ONNX Runtime the [n, B, 3H] concatenation and the separate bias add.
  std::string sage_linear(const torch::nn::Linear& l, const std::string& x) {
    const int64_t in = l->weight.size(1) / 3, out = l->weight.size(0);
    const std::string flat = b_.ints({-1, in}, {2}, "shape");
    std::string y = param(l->bias.detach(), "b");
    const std::string parts[3] = {x, neighbour_mean(x, true), neighbour_mean(x, false)};
    for (int k = 0; k < 3; ++k) {
      const torch::Tensor wk = l->weight.detach().slice(1, k * in, (k + 1) * in).t().contiguous();
      const Back back = [&](const torch::Tensor& v) { l->weight.detach().slice(1, k * in, (k + 1) * in).copy_(v.t()); };
      y = b_.op("Gemm", {b_.op("Reshape", {parts[k], flat}), param(wk, "w", back), y});
    }
    const std::string shape = b_.op("Concat", {dim(x, 0), dim(x, 1), b_.ints({out}, {1}, "d")}, {{"axis", int64_t{0}}});
    return b_.op("Reshape", {y, shape});
  }

  std::string encoder(const models::NodeEncoder& e) {
    const std::string ids = b_.op("Clip", {"node_opcode", b_.ints({0}, {}, "lo"), b_.ints({vocab_ - 1}, {}, "hi")});
    std::string h = b_.op("Gather", {param(e->opcode->weight, "opcode_table"), ids}, {{"axis", int64_t{0}}});
    if (e->feat) h = b_.op("Add", {h, linear(e->feat, "node_feat")});
    return h;
  }
  // x + gelu(SAGE(LN(x))): models::ResSageBlock.
  std::string res_sage_block(const models::ResSageBlock& block, const std::string& h) {
    return b_.op("Add", {h, gelu(sage_linear(block->lin, layer_norm(block->norm, h)))});
  }
  std::string score_head(const models::ScoreHead& h, const std::string& x) {
    return squeeze_last(linear(h->fc2, relu(linear(h->fc1, x))));
  }

  // [n, H] node values broadcast over the batch: [n, B, H].
  std::string expand_batch(const std::string& node) {
    const std::string shape =
        b_.op("Concat", {dim(node, 0), dim("config_feat", 0), dim(node, 1)}, {{"axis", int64_t{0}}});
    return b_.op("Expand", {unsqueeze(node, {1}), shape});
  }
  // add [B, nc, H] added at the configurable nodes of [n, B, H] values.
  std::string add_at_config_nodes(const std::string& h, const std::string& add) {
    return b_.op("ScatterND",
                 {h, unsqueeze("config_nodes", {1}), b_.op("Transpose", {add}, {{"perm", std::vector<int64_t>{1, 0, 2}}})},
                 {{"reduction", std::string("add")}});
  }
  // Layout values (-1..5) at column p -> table row p*7 + v+1, summed over
  // columns: a multi-hot [B, nc, Fc*7] times the table, as LibTorch does it.
  // A Gather of rows would materialise [B, nc, Fc, H] (290 MB for 256
  // configs of 246 nodes) before the sum. The multi-hot is gathered from an
  // identity: Equal then Cast over [B, nc, Fc, 7] (and OneHot) took a fifth
  // of the page's ranking time.
  std::string layout_values(const models::LayoutValueEmbedding& e, int64_t width, const std::string& config = "config_feat") {
    const std::string v = b_.op("Clip", {b_.op("Round", {config}), b_.scalar(-1.0f),
                                         b_.scalar(static_cast<float>(e->kValues - 2))});
    const std::string index =
        b_.op("Cast", {b_.op("Add", {v, b_.scalar(1.0f)})}, {{"to", int64_t{kInt64}}});  // 0..6, [B, nc, Fc]
    std::vector<float> eye(static_cast<size_t>(e->kValues * e->kValues), 0.0f);
    for (int64_t k = 0; k < e->kValues; ++k) eye[static_cast<size_t>(k * e->kValues + k)] = 1.0f;
    const std::string hot = b_.op("Gather", {b_.floats(eye, {e->kValues, e->kValues}, "eye"), index});  // [B, nc, Fc, 7]
    const std::string flat = b_.op("Reshape", {hot, b_.ints({0, 0, width * e->kValues}, {3}, "shape")});
    return b_.op("MatMul", {flat, param(e->table, "value_table")});
  }

  std::string tile_graph(const models::NodeEncoder& enc, const torch::nn::Linear& config_in,
                         const std::function<std::string(const std::string&)>& layers, const torch::nn::Linear& join,
                         const models::ScoreHead& head) {
    const std::string node = unsqueeze(encoder(enc), {1});  // [n, 1, H]
    std::string h = config_in ? b_.op("Add", {node, unsqueeze(linear(config_in, "config_feat"), {0})}) : node;
    h = layers(relu(h));
    std::string pooled = mean_over_nodes(h);  // [B or 1, H]
    const std::string shape = b_.op("Concat", {dim("config_feat", 0), dim(pooled, 1)}, {{"axis", int64_t{0}}});
    pooled = b_.op("Expand", {pooled, shape});
    if (join) pooled = relu(linear(join, b_.op("Concat", {pooled, "config_feat"}, {{"axis", int64_t{1}}})));
    return score_head(head, pooled);
  }

  std::string deg_in() const { return deg_in_; }
  std::string deg_out() const { return deg_out_; }
  OnnxBuilder& b() { return b_; }
  size_t weights_written() const { return weights_; }

 private:
  OnnxBuilder& b_;
  const PrecisionPlan& plan_;
  PrecisionReport* report_;
  bool write_back_ = false;
  size_t weights_ = 0;  // weight tensors written so far: the plan's index
  int64_t vocab_ = 1;
  std::string src_, dst_, src_idx_, dst_idx_, deg_in_, deg_out_;
};

// One writer per model class of the table (models/registry.h), overloaded
// so that expanding the table picks each by type.
std::string emit(Emitter& e, models::TileMlpImpl& m, const models::ModelOptions&) {
  OnnxBuilder& b = e.b();
  const std::string h = e.relu(e.linear(m.node_fc, e.relu(e.encoder(m.encoder))));
  const std::string graph = e.layer_norm(
      m.graph_norm, b.op("ReduceSum", {h, b.ints({0}, {1}, "axes")}, {{"keepdims", int64_t{1}}}));  // [1, H]
  const std::string shape = b.op("Concat", {e.dim("config_feat", 0), e.dim(graph, 1)}, {{"axis", int64_t{0}}});
  const std::string x = b.op("Concat", {b.op("Expand", {graph, shape}), "config_feat"}, {{"axis", int64_t{1}}});
  return e.score_head(m.head, e.relu(e.linear(m.fc1, x)));
}

std::string emit_sage_layer(Emitter& e, const models::SageLayer& l, const std::string& h) {
  return e.l2_normalize(e.relu(e.sage_linear(l->lin, h)), 1e-6f);
}

std::string emit_gcn_layer(Emitter& e, const models::GcnLayer& l, const std::string& h) {
  OnnxBuilder& b = e.b();
  // Mean over the closed neighbourhood: (h + sum_in + sum_out) / (1 + d_in + d_out).
  const std::string sum = b.op("Add", {b.op("Add", {h, e.neighbour_sum(h, true)}), e.neighbour_sum(h, false)});
  const std::string count = b.op("Add", {b.op("Add", {e.deg_in(), e.deg_out()}), b.scalar(1.0f)});
  const std::string a = b.op("Div", {sum, e.per_node(count)});
  return b.op("Add", {h, e.relu(e.layer_norm(l->norm, e.linear(l->lin, a)))});
}

std::string emit(Emitter& e, models::LayoutSageImpl& m, const models::ModelOptions&) {
  std::string h = e.expand_batch(e.encoder(m.encoder));
  if (m.config_in) h = e.add_at_config_nodes(h, e.linear(m.config_in, "config_feat"));
  h = e.relu(h);
  for (auto& l : m.layers) h = emit_sage_layer(e, l, h);
  return e.score_head(m.head, e.mean_over_nodes(h));
}

std::string emit(Emitter& e, models::LayoutAttnImpl& m, const models::ModelOptions& o) {
  OnnxBuilder& b = e.b();
  const int64_t config_width = o.config_feat_width, hidden = o.hidden;
  std::string h = e.expand_batch(e.encoder(m.encoder));
  if (m.values) h = e.add_at_config_nodes(h, e.layout_values(m.values, config_width));
  for (auto& block : m.blocks)
    h = e.res_sage_block(block, h);
  h = e.layer_norm(m.out_norm, h);
  const std::string at_config = e.mean_over_nodes(b.op("Gather", {h, "config_nodes"}, {{"axis", int64_t{0}}}));
  std::string z = e.linear(m.pool, b.op("Concat", {e.mean_over_nodes(h), at_config}, {{"axis", int64_t{-1}}}));
  // Attention across the configs of the batch.
  const auto& a = m.attn;
  const std::string u = e.layer_norm(a->norm, z);
  const std::string logits = b.op("Mul", {b.op("MatMul", {e.linear(a->q, u), b.op("Transpose", {e.linear(a->k, u)})}),
                                          b.scalar(static_cast<float>(1.0 / std::sqrt(static_cast<double>(hidden))))});
  const std::string weights = b.op("Softmax", {logits}, {{"axis", int64_t{-1}}});
  z = b.op("Add", {z, e.linear(a->o, b.op("MatMul", {weights, e.linear(a->v, u)}))});
  return e.score_head(m.head, e.layer_norm(m.head_norm, z));
}

// LayoutFocusImpl::node_costs: stage 2's blocks and cost head on x, plus the
// tiling features' direct term when `tiling` names them.
std::string emit_node_costs(Emitter& e, models::LayoutFocusImpl& m, std::string x, const std::string& tiling) {
  OnnxBuilder& b = e.b();
  for (auto& block : m.node_blocks)
    x = b.op("Add", {x, e.linear(block->fc2, e.relu(e.linear(block->fc1, e.layer_norm(block->norm, x))))});
  const std::string terms = e.linear(m.cost_fc2, e.relu(e.linear(m.cost_fc1, e.layer_norm(m.node_norm, x))));
  return tiling.empty() ? terms : b.op("Add", {terms, e.linear(m.cost_direct, tiling)});
}

// LayoutFocusImpl::cost_terms as ranking runs it: stage 2 once per distinct
// (node, values, producers' layouts), its terms gathered back to [B, nc, 4].
// The keys are models::layout_stage_keys; three 1-D Unique ops find the
// distinct pairs (one Unique over rows of two columns is several times
// slower in ONNX Runtime Web), the last one's first indices stand for them.
std::string emit_distinct_stage2(Emitter& e, models::LayoutFocusImpl& m, const std::string& node, int64_t width) {
  OnnxBuilder& b = e.b();
  const std::string producers = emit_layout_tiling_producers(b, "config_feat", "config_context");  // [B, nc, 12]
  const std::string clipped = b.op("Clip", {b.op("Round", {"config_feat"}), b.scalar(-1.0f), b.scalar(5.0f)});
  const std::string digits =
      b.op("Cast", {b.op("Reshape", {b.op("Add", {b.op("Concat", {clipped, producers}, {{"axis", int64_t{2}}}), b.scalar(1.0f)}),
                                     b.ints({-1, 30}, {2}, "shape")})},
           {{"to", int64_t{kInt64}}});  // [B nc, 30]
  std::vector<int64_t> powers(18);
  for (size_t j = 0; j < powers.size(); ++j) powers[j] = int64_t{1} << (3 * j);
  const auto packed = [&](int64_t from, int64_t count) {
    const std::string part = b.op("Slice", {digits, b.ints({from}, {1}, "at"), b.ints({from + count}, {1}, "to"), b.ints({1}, {1}, "axis")});
    const std::vector<int64_t> p(powers.begin(), powers.begin() + count);
    return b.op("ReduceSum", {b.op("Mul", {part, b.ints(p, {count}, "powers")}), b.ints({1}, {1}, "axes")},
                {{"keepdims", int64_t{0}}});
  };
  const std::string batch = e.dim("config_feat", 0), nc = e.dim("config_feat", 1);
  const std::string zero = b.ints({0}, {}, "zero"), one = b.ints({1}, {}, "one");
  const std::string nodes = b.op("Range", {zero, b.op("Squeeze", {nc, b.ints({0}, {1}, "axes")}), one});  // [nc]
  const std::string node_of_row =
      b.op("Reshape", {b.op("Expand", {b.op("Unsqueeze", {nodes, b.ints({0}, {1}, "axes")}), b.op("Concat", {batch, nc}, {{"axis", int64_t{0}}})}),
                       b.ints({-1}, {1}, "shape")});  // [B nc]
  const std::string key_a = b.op("Add", {b.op("Mul", {node_of_row, b.ints({int64_t{1} << 36}, {}, "shift")}), packed(0, 12)});
  const std::string key_b = packed(12, 18);
  const auto unique = [&](const std::string& k) {
    const std::vector<std::string> out = b.ops("Unique", {k}, 4, {{"sorted", int64_t{0}}});
    return std::make_pair(out[1], out[2]);  // first indices, inverse
  };
  const std::string rows = b.op("Shape", {key_a});  // [1]: B nc
  const auto [first, inverse] =
      unique(b.op("Add", {b.op("Mul", {unique(key_a).second, rows}), unique(key_b).second}));
  const std::string at_node = b.op("Mod", {first, b.op("Squeeze", {nc, b.ints({0}, {1}, "axes")})});  // [U]
  const auto pick = [&](const std::string& x, int64_t cols) {  // [B, nc, cols] -> [1, U, cols]
    return e.unsqueeze(b.op("Gather", {b.op("Reshape", {x, b.ints({-1, cols}, {2}, "shape")}), first}, {{"axis", int64_t{0}}}), {0});
  };
  const std::string cfg = pick("config_feat", width), prod = pick(producers, 12);
  std::string x = b.op("Gather", {node, at_node}, {{"axis", int64_t{1}}});  // [1, U, C]
  if (m.values) x = b.op("Add", {x, e.layout_values(m.values, width, cfg)});
  const std::string tiling = emit_layout_tiling_from(b, cfg, prod, b.op("Gather", {"config_context", at_node}, {{"axis", int64_t{0}}}));
  x = b.op("Add", {x, e.linear(m.tiling, tiling)});
  const std::string terms = emit_node_costs(e, m, x, tiling);
  const std::string per_row = b.op("Gather", {b.op("Squeeze", {terms, b.ints({0}, {1}, "axes")}), inverse}, {{"axis", int64_t{0}}});
  // An explicit 4: with no configurable node the tensor is empty and -1 would be ambiguous.
  return b.op("Reshape", {per_row, b.op("Concat", {batch, nc, b.ints({models::LayoutFocusImpl::kCostTerms}, {1}, "terms")}, {{"axis", int64_t{0}}})});
}

std::string emit(Emitter& e, models::LayoutFocusImpl& m, const models::ModelOptions& o) {
  OnnxBuilder& b = e.b();
  const int64_t config_width = o.config_feat_width;
  // Stage 1 on [n, 1, H], so the SAGE pieces are the batched ones.
  std::string h = e.unsqueeze(e.encoder(m.encoder), {1});
  for (auto& block : m.blocks)
    h = e.res_sage_block(block, h);
  h = e.layer_norm(m.graph_norm, h);
  const std::string node =
      e.linear(m.node_in, b.op("Transpose", {b.op("Gather", {h, "config_nodes"}, {{"axis", int64_t{0}}})},
                               {{"perm", std::vector<int64_t>{1, 0, 2}}}));  // [1, nc, C]
  // Stage 2 on [B, nc, C].
  std::string terms;
  if (!m.tiling) {
    std::string x = node;
    if (m.values) x = b.op("Add", {x, e.layout_values(m.values, config_width)});
    terms = emit_node_costs(e, m, x, "");
  } else {
    terms = emit_distinct_stage2(e, m, node, config_width);
  }
  const std::string flat = b.op("Reshape", {terms, b.ints({0, -1}, {2}, "shape")});
  const std::string lse = b.op("ReduceLogSumExp", {flat}, {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}});
  const float scale = std::exp(m.log_scale.item<float>());
  const std::string score = b.op("Mul", {lse, b.scalar(scale)});
  // No configurable node: every config is the same graph, LibTorch scores 0.
  return b.op("Where", {b.op("IsInf", {score}), b.scalar(0.0f), score});
}

// models::LayoutWideImpl: the value table read at (node, column, value)
// offsets, and each node's row code matched against its kept rows.
std::string emit_layout_wide(Emitter& e, models::LayoutWideImpl& w) {
  OnnxBuilder& b = e.b();
  const int64_t nc = w.config_nodes(), width = w.config_width(), K = models::LayoutWideImpl::kValues;
  const std::string v = b.op("Clip", {b.op("Round", {"config_feat"}), b.scalar(-1.0f), b.scalar(static_cast<float>(K - 2))});
  const std::string index = b.op("Cast", {b.op("Add", {v, b.scalar(1.0f)})}, {{"to", int64_t{kInt64}}});  // [B, nc, Fc]
  std::vector<int64_t> offsets(static_cast<size_t>(nc * width));
  for (int64_t i = 0; i < nc * width; ++i) offsets[static_cast<size_t>(i)] = i * K;
  const std::string at = b.op("Add", {index, b.ints(offsets, {nc, width}, "offsets")});
  // Summed in float64, as LibTorch sums them (layout_wide.cpp).
  constexpr int64_t kDouble = onnx::TensorProto::DOUBLE;
  const std::string values = b.op("Cast", {b.op("Gather", {e.param(w.value_weight, "value_weight"), at})},
                                  {{"to", kDouble}});  // [B, nc, Fc]
  std::string score = b.op("ReduceSum", {values, b.ints({1, 2}, {2}, "axes")}, {{"keepdims", int64_t{0}}});
  if (w.uses_rows()) {
    std::vector<int64_t> power(static_cast<size_t>(width));
    int64_t p = 1;
    for (int64_t c = 0; c < width; ++c, p *= K) power[static_cast<size_t>(c)] = p;
    const std::string code = b.op("ReduceSum", {b.op("Mul", {index, b.ints(power, {width}, "powers")}), b.ints({2}, {1}, "axes")},
                                  {{"keepdims", int64_t{1}}});  // [B, nc, 1]
    const torch::Tensor rows = w.rows.detach().to(torch::kCPU).contiguous();
    const std::string kept = b.ints(std::vector<int64_t>(rows.data_ptr<int64_t>(), rows.data_ptr<int64_t>() + rows.numel()),
                                    {nc, models::LayoutWideImpl::kRowSlots}, "rows");
    const std::string hit = b.op("Cast", {b.op("Where", {b.op("Equal", {code, kept}), e.param(w.row_weight, "row_weight"),
                                                          b.scalar(0.0f)})},
                                 {{"to", kDouble}});
    score = b.op("Add", {score, b.op("ReduceSum", {hit, b.ints({1, 2}, {2}, "axes")}, {{"keepdims", int64_t{0}}})});
  }
  return b.op("Cast", {score}, {{"to", int64_t{kFloat}}});
}

std::string emit(Emitter& e, models::TileSageImpl& m, const models::ModelOptions&) {
  return e.tile_graph(m.encoder, m.config_in, [&](std::string h) {
    for (auto& l : m.layers) h = emit_sage_layer(e, l, h);
    return h;
  }, m.join, m.head);
}

std::string emit(Emitter& e, models::TileGcnImpl& m, const models::ModelOptions&) {
  return e.tile_graph(m.encoder, m.config_in, [&](std::string h) {
    for (auto& l : m.layers) h = emit_gcn_layer(e, l, h);
    return h;
  }, m.join, m.head);
}

std::string emit_model(Emitter& e, models::RankModelImpl& model, const models::ModelOptions& o) {
  if (auto* m = dynamic_cast<models::EnsembleModelImpl*>(&model)) {
    // The members read the graph values computed once (edges, degrees); the
    // sum runs in member order, as EnsembleModelImpl::forward adds.
    OnnxBuilder& b = e.b();
    std::string sum;
    for (size_t i = 0; i < m->members().size(); ++i) {
      const models::EnsembleMember& member = m->members()[i];
      b.set_prefix("m" + std::to_string(i) + "/");
      const std::string scores = emit_model(e, *member.model, member.options);
      b.set_prefix("");
      const std::string part = b.op("Mul", {scores, b.scalar(m->coefficient(i))}, {}, "member" + std::to_string(i));
      sum = sum.empty() ? part : b.op("Add", {sum, part}, {}, "ensemble");
    }
    return sum;
  }
  if (auto* m = dynamic_cast<models::ProgramModelImpl*>(&model)) {
    const std::string deep = emit_model(e, *m->deep, o);
    // scale * gate as LibTorch forms it (a float32 product) before it meets the deep scores.
    const torch::Tensor factor = m->scale * m->gate;
    return e.b().op("Add", {emit_layout_wide(e, *m->wide), e.b().op("Mul", {deep, e.param(factor, "gate")})});
  }
#define FASTSLOW_EMIT(kind, name, Class, ...) \
  if (auto* m = dynamic_cast<models::Class##Impl*>(&model)) return emit(e, *m, o);
  FASTSLOW_MODEL_TABLE(FASTSLOW_EMIT)
#undef FASTSLOW_EMIT
  throw Error("export: no ONNX writer for " + o.kind + " model '" + o.name + "'");
}

}  // namespace

std::vector<TensorSpec> model_inputs(const models::ModelOptions& o) {
  const Dim nodes = std::string("nodes"), edges = std::string("edges"), configs = std::string("config_nodes"),
            batch = std::string("batch"), F = o.node_feat_width, Fc = o.config_feat_width;
  std::vector<TensorSpec> in = {{"node_feat", "float32", {nodes, F}},
                                {"node_opcode", "int64", {nodes}},
                                {"edge_index", "int64", {edges, int64_t{2}}}};
  if (o.kind == "layout") {
    in.push_back({"config_nodes", "int64", {configs}});
    in.push_back({"config_feat", "float32", {batch, configs, Fc}});
    if (models::uses_layout_context(o)) in.push_back({"config_context", "float32", {configs, int64_t{LayoutContext::kWidth}}});
  } else {
    in.push_back({"config_feat", "float32", {batch, Fc}});
  }
  return in;
}

std::vector<TensorSpec> model_inputs(const models::RankModelImpl& model, const models::ModelOptions& o) {
  const auto* ensemble = dynamic_cast<const models::EnsembleModelImpl*>(&model);
  if (!ensemble) return model_inputs(o);
  // Every member's inputs, each once: they share the graph's preparation,
  // so a name means the same tensor to all of them; the layout context
  // joins when one member reads it.
  std::vector<TensorSpec> all;
  for (const models::EnsembleMember& m : ensemble->members())
    for (const TensorSpec& s : model_inputs(m.options)) {
      bool seen = false;
      for (const TensorSpec& t : all) seen = seen || t.name == s.name;
      if (!seen) all.push_back(s);
    }
  return all;
}

std::vector<TensorSpec> model_outputs() { return {{"scores", "float32", {Dim{std::string("batch")}}}}; }

namespace {

onnx::ModelProto build(models::RankModelImpl& model, const models::ModelOptions& o, const PrecisionPlan& plan,
                       PrecisionReport* report, bool write_back) {
  torch::NoGradGuard no_grad;
  onnx::ModelProto proto;
  proto.set_ir_version(8);  // onnx 1.12 / opset 17
  proto.set_producer_name("fastslow");
  proto.set_doc_string(o.kind + " " + o.name + " ranking model: scores [batch], lower = faster");
  auto* opset = proto.add_opset_import();
  opset->set_domain("");
  opset->set_version(kOpset);
  onnx::GraphProto* graph = proto.mutable_graph();
  graph->set_name("fastslow_" + o.kind + "_" + o.name);
  OnnxBuilder b(graph);
  for (const TensorSpec& s : model_inputs(model, o)) b.input(s.name, s.dtype == "int64" ? kInt64 : kFloat, s.shape);
  if (report) *report = PrecisionReport{plan.weights, plan.per_layer(), {}};
  Emitter e(b, plan, report, write_back);
  e.graph_inputs(o.opcode_vocab);

  const std::string scores = emit_model(e, model, o);
  b.output(scores, "scores", kFloat, model_outputs().front().shape);
  plan.check_count(e.weights_written());
  return proto;
}

}  // namespace

onnx::ModelProto export_onnx(models::RankModelImpl& model, const models::ModelOptions& o, const PrecisionPlan& plan,
                             PrecisionReport* report) {
  return build(model, o, plan, report, false);
}

onnx::ModelProto lower_weights(models::RankModelImpl& model, const models::ModelOptions& o, const PrecisionPlan& plan,
                               PrecisionReport* report) {
  return build(model, o, plan, report, true);
}

void check_onnx(const onnx::ModelProto& model) {
  try {
    onnx::checker::check_model(model);
    onnx::ModelProto copy = model;
    onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(true, 1, false));
  } catch (const std::exception& ex) {
    throw Error(std::string("ONNX check failed: ") + ex.what());
  }
}

}  // namespace fastslow::exporter
