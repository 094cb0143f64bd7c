#include "export/tiling_onnx.h"

#include <cmath>
#include <map>
#include <vector>

#include "fastslow/features/layout_context.h"

namespace fastslow::exporter {

namespace {

using C = LayoutContext;
constexpr int64_t kFloat = 1, kInt64 = 7;  // onnx::TensorProto element types

// The torch code's structure, op by op; every helper names the line of
// models/layout_tiling.cpp it mirrors.
class Tiling {
 public:
  explicit Tiling(OnnxBuilder& b) : b_(b) {}

  std::string op(const std::string& t, const std::vector<std::string>& in, const std::vector<Attr>& a = {}) {
    return b_.op(t, in, a);
  }
  // Each constant once: the file stays "weights plus a few constants".
  std::string f(float v) {
    auto it = scalars_.find(v);
    if (it == scalars_.end()) it = scalars_.emplace(v, b_.scalar(v)).first;
    return it->second;
  }
  std::string i64(std::vector<int64_t> v) {
    const auto n = static_cast<int64_t>(v.size());
    return b_.ints(v, {n}, "i");
  }
  std::string as_float(const std::string& x) { return op("Cast", {x}, {{"to", kFloat}}); }
  std::string slots(const std::string& x, int64_t at) { return op("Slice", {x, i64({at}), i64({at + C::kSlots}), i64({-1})}); }
  // x[..., k] on the last of three axes, dropping it.
  std::string select2(const std::string& x, int64_t k) {
    return op("Gather", {x, b_.ints({k}, {}, "k")}, {{"axis", int64_t{2}}});
  }
  std::string unsqueeze(const std::string& x, std::vector<int64_t> axes) { return op("Unsqueeze", {x, i64(axes)}); }
  std::string log2(const std::string& x) { return op("Div", {op("Log", {x}), f(static_cast<float>(M_LN2))}); }
  std::string log2_1p(const std::string& x, float scale) {
    return op("Div", {op("Log", {op("Add", {x, f(1.0f)})}), f(static_cast<float>(M_LN2) * scale)});
  }
  std::string log2_padding(const std::string& d, float m) {
    const std::string safe = op("Max", {d, f(1.0f)});
    const std::string factor = op("Div", {op("Mul", {op("Ceil", {op("Div", {safe, f(m)})}), f(m)}), safe});
    return op("Where", {op("Greater", {d, f(0.0f)}), log2(factor), f(0.0f)});
  }

  struct Placed {
    std::string size, valid0, d0, d1, log_pad, phys0, phys1, key;
  };

  Placed place(const std::string& layout, const std::string& dims) {
    Placed p;
    const std::string valid = op("GreaterOrEqual", {layout, f(0.0f)});
    const std::string idx = op("Cast", {op("Max", {layout, f(0.0f)})}, {{"to", kInt64}});
    // Where rather than Mul by a cast mask: casts were the largest cost of
    // these features in ONNX Runtime Web.
    p.size = op("Where", {valid, op("GatherElements", {dims, idx}, {{"axis", int64_t{2}}}), f(0.0f)});
    p.valid0 = select2(valid, 0);
    p.d0 = select2(p.size, 0);
    p.d1 = select2(p.size, 1);
    p.log_pad = op("Add", {log2_padding(p.d0, 128), log2_padding(p.d1, 8)});
    const std::string big = as_float(op("Greater", {p.size, f(1.0f)}));
    const std::string rank = op("CumSum", {big, b_.ints({2}, {}, "axis")});
    const auto nth = [&](float k) {
      const std::string hit = op("Where", {op("Equal", {rank, f(k)}), big, f(0.0f)});
      const std::string at = op("ArgMax", {hit}, {{"axis", int64_t{2}}, {"keepdims", int64_t{1}}});
      const std::string value = op("Squeeze", {op("GatherElements", {layout, at}, {{"axis", int64_t{2}}}), i64({2})});
      const std::string any = op("Greater", {op("ReduceMax", {hit}, {{"axes", std::vector<int64_t>{2}}, {"keepdims", int64_t{0}}}),
                                             f(0.0f)});
      return op("Where", {any, value, f(-1.0f)});
    };
    p.phys0 = nth(1);
    p.phys1 = nth(2);
    const std::string power = op("Pow", {f(8.0f), op("Max", {op("Sub", {rank, f(1.0f)}), f(0.0f)})});
    p.key = op("ReduceSum", {op("Mul", {op("Mul", {big, op("Add", {layout, f(1.0f)})}), power}), i64({2})},
               {{"keepdims", int64_t{0}}});
    return p;
  }

  std::string flag(const std::string& comparable, const std::string& a, const std::string& b) {
    return op("Mul", {comparable, as_float(op("Equal", {a, b}))});
  }
  std::string misses(const std::string& layout, const std::string& preferred, int64_t slot) {
    return as_float(op("And", {op("GreaterOrEqual", {preferred, f(0.0f)}),
                               op("Not", {op("Equal", {select2(layout, slot), preferred})})}));
  }
  std::string row_major_key(const std::string& dims) {
    const std::string big = as_float(op("Greater", {dims, f(1.0f)}));
    const std::string total = op("ReduceSum", {big, i64({2})}, {{"keepdims", int64_t{1}}});
    const std::string larger = op("Sub", {total, op("CumSum", {big, b_.ints({2}, {}, "axis")})});
    std::vector<float> index(C::kSlots);
    for (int i = 0; i < C::kSlots; ++i) index[static_cast<size_t>(i)] = static_cast<float>(i + 1);
    if (index_.empty()) index_ = b_.floats(index, {C::kSlots}, "index");
    const std::string terms = op("Mul", {op("Mul", {big, index_}), op("Pow", {f(8.0f), larger})});
    return op("ReduceSum", {terms, i64({2})}, {{"keepdims", int64_t{0}}});
  }

  // layout [B, nc, 6], dims [1, nc, 6], ref [1 or B, nc, 6], bits [1, nc],
  // prefs [1, nc, 3]. A ref without a batch axis (the output's built
  // layout) is placed once per node; its values broadcast.
  std::string one_layout(const std::string& layout, const std::string& dims, const std::string& ref, bool ref_batched,
                         const std::string& bits, const std::string& prefs) {
    const std::string shape = op("Shape", {layout});
    const std::string dims_b = op("Expand", {dims, shape});
    const Placed l = place(layout, dims_b), r = ref_batched ? place(ref, dims_b) : place(ref, dims);
    const std::string comparable = as_float(op("And", {l.valid0, r.valid0}));
    const std::string elements =
        op("Mul", {op("ReduceProd", {op("Max", {dims_b, f(1.0f)})}, {{"axes", std::vector<int64_t>{2}}, {"keepdims", int64_t{0}}}),
                   as_float(op("Greater", {select2(dims_b, 0), f(0.0f)}))});
    const std::string bytes = op("Div", {op("Mul", {elements, bits}), f(8.0f)});
    const std::string padded_l = op("Mul", {bytes, op("Pow", {f(2.0f), l.log_pad})});
    const std::string padded_r = op("Mul", {bytes, op("Pow", {f(2.0f), r.log_pad})});
    const std::string avoid = select2(prefs, 2);
    const std::string avoid_hit = as_float(op("And", {op("GreaterOrEqual", {avoid, f(0.0f)}),
                                                      op("Or", {op("Equal", {select2(layout, 0), avoid}),
                                                                op("Equal", {select2(layout, 1), avoid})})}));
    const std::string batch_nodes = op("Shape", {l.d0});  // [B, nc]
    const auto full = [&](const std::string& x) { return op("Expand", {x, batch_nodes}); };
    const std::vector<std::string> features = {
        log2_1p(l.d0, 8), log2_1p(l.d1, 8), log2_padding(l.d0, 128), log2_padding(l.d1, 8), comparable,
        flag(comparable, l.phys0, r.phys0), flag(comparable, l.phys1, r.phys1), flag(comparable, l.key, r.key),
        log2_1p(bytes, 16), log2_1p(padded_l, 16), log2_1p(padded_r, 16),
        log2_1p(op("Add", {padded_l, padded_r}), 16), misses(layout, select2(prefs, 0), 0),
        misses(layout, select2(prefs, 1), 1), full(avoid_hit), as_float(op("Equal", {l.key, row_major_key(dims)}))};
    std::vector<std::string> columns;
    for (const auto& x : features) columns.push_back(unsqueeze(full(x), {2}));
    return op("Concat", columns, {{"axis", int64_t{2}}});
  }

 private:
  OnnxBuilder& b_;
  std::map<float, std::string> scalars_;
  std::string index_;
};

}  // namespace

std::string emit_layout_tiling_producers(OnnxBuilder& b, const std::string& config, const std::string& context) {
  Tiling t(b);
  const std::string values = t.op("Clip", {t.op("Round", {config}), t.f(-1.0f), t.f(static_cast<float>(C::kSlots - 1))});
  const std::string ctx = t.unsqueeze(context, {0});  // [1, nc, width]
  const auto producer_layout = [&](int64_t producer_col, int64_t tensor) {
    const std::string column = t.op("Gather", {context, b.ints({producer_col}, {}, "k")}, {{"axis", int64_t{1}}});
    const std::string p = t.op("Cast", {t.op("Round", {column})}, {{"to", kInt64}});  // [nc]
    const std::string zero = b.ints({0}, {}, "zero");
    const std::string from_config =
        t.slots(t.op("Gather", {values, t.op("Max", {p, zero})}, {{"axis", int64_t{1}}}), 0);  // [B, nc, 6]
    const std::string configurable = t.unsqueeze(t.op("GreaterOrEqual", {p, zero}), {0, 2});
    return t.op("Where", {configurable, from_config, t.slots(ctx, tensor + C::kLayout)});
  };
  return t.op("Concat", {producer_layout(C::kInProducer, C::kInput), producer_layout(C::kKernelProducer, C::kKernel)},
              {{"axis", int64_t{2}}});
}

std::string emit_layout_tiling_from(OnnxBuilder& b, const std::string& config, const std::string& producers,
                                    const std::string& context) {
  Tiling t(b);
  const std::string values = t.op("Clip", {t.op("Round", {config}), t.f(-1.0f), t.f(static_cast<float>(C::kSlots - 1))});
  const std::string ctx = t.unsqueeze(context, {0});  // [1, nc, width]
  const auto block = [&](int64_t at, int64_t tensor, const std::string& ref, bool ref_batched) {
    return t.one_layout(t.slots(values, at), t.slots(ctx, tensor + C::kDims), ref, ref_batched,
                        t.select2(ctx, tensor + C::kBits),
                        t.op("Slice", {ctx, t.i64({tensor + C::kPrefer0}), t.i64({tensor + C::kAvoid + 1}), t.i64({2})}));
  };
  return t.op("Concat",
              {block(0, C::kOutput, t.slots(ctx, C::kOutput + C::kLayout), false),
               block(6, C::kInput, t.slots(producers, 0), true),
               block(12, C::kKernel, t.slots(producers, C::kSlots), true)},
              {{"axis", int64_t{2}}});
}

std::string emit_layout_tiling(OnnxBuilder& b, const std::string& config, const std::string& context) {
  return emit_layout_tiling_from(b, config, emit_layout_tiling_producers(b, config, context), context);
}

}  // namespace fastslow::exporter
