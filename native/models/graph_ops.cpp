#include "models/graph_ops.h"

#include <ATen/Parallel.h>

#include <algorithm>

#include "fastslow/error.h"

namespace fastslow::models {

namespace {

// One kernel for every pass. Rows r in [begin, end) of the destination,
// each made of B segments of H values (segment b of row r starts at
// y + (r * B + b) * y_ld; likewise x with x_ld), so a caller can read or
// write one block of columns of a wider tensor:
//   col_ptr == nullptr: y[r] = sum_{c in N(r)} x[c] / |N(r)|        (forward)
//   col_ptr = the forward's ptr, (ptr, idx) its transpose:
//                       y[r] = sum_{c in N(r)} x[c] / |N_fwd(c)|     (backward)
// accumulate adds to y instead of overwriting it. Each destination row
// belongs to one thread and sums in CSR order, so results do not depend on
// the thread count.
template <typename T>
inline __attribute__((always_inline)) void gather_body(int64_t begin, int64_t end, const int64_t* __restrict ptr,
                                                       const int64_t* __restrict idx,
                                                       const int64_t* __restrict col_ptr, const T* __restrict x,
                                                       int64_t x_ld, T* __restrict y, int64_t y_ld, int64_t B,
                                                       int64_t H, bool accumulate) {
  for (int64_t r = begin; r < end; ++r) {
    const int64_t first = ptr[r], last = ptr[r + 1];
    if (first == last) {
      if (!accumulate)
        for (int64_t b = 0; b < B; ++b) std::fill(y + (r * B + b) * y_ld, y + (r * B + b) * y_ld + H, T(0));
      continue;
    }
    const T row_w = col_ptr ? T(1) : T(1) / static_cast<T>(last - first);
    for (int64_t k = first; k < last; ++k) {
      const int64_t c = idx[k];
      const T w = col_ptr ? T(1) / static_cast<T>(col_ptr[c + 1] - col_ptr[c]) : row_w;
      const bool assign = !accumulate && k == first;
      for (int64_t b = 0; b < B; ++b) {
        T* __restrict yr = y + (r * B + b) * y_ld;
        const T* __restrict xc = x + (c * B + b) * x_ld;
        if (assign) {
          for (int64_t d = 0; d < H; ++d) yr[d] = w * xc[d];
        } else {
          for (int64_t d = 0; d < H; ++d) yr[d] += w * xc[d];
        }
      }
    }
  }
}

// float is the training type: compiled for the widest vector unit the CPU
// has (the build targets baseline x86-64), picked at run time.
__attribute__((target_clones("avx512f", "avx2", "default"))) void gather(int64_t begin, int64_t end,
                                                                      const int64_t* ptr, const int64_t* idx,
                                                                      const int64_t* col_ptr, const float* x,
                                                                      int64_t x_ld, float* y, int64_t y_ld,
                                                                      int64_t B, int64_t H, bool accumulate) {
  gather_body<float>(begin, end, ptr, idx, col_ptr, x, x_ld, y, y_ld, B, H, accumulate);
}

void gather(int64_t begin, int64_t end, const int64_t* ptr, const int64_t* idx, const int64_t* col_ptr,
            const double* x, int64_t x_ld, double* y, int64_t y_ld, int64_t B, int64_t H, bool accumulate) {
  gather_body<double>(begin, end, ptr, idx, col_ptr, x, x_ld, y, y_ld, B, H, accumulate);
}

const int64_t* data_or_null(const torch::Tensor* t) { return t ? t->data_ptr<int64_t>() : nullptr; }

// Rows per task: enough that each task moves ~64 KB.
int64_t grain_for(const torch::Tensor& idx, int64_t rows, int64_t row_values) {
  const int64_t avg_deg = std::max<int64_t>(1, idx.numel() / std::max<int64_t>(rows, 1));
  return std::max<int64_t>(1, 16384 / std::max<int64_t>(1, row_values * avg_deg));
}

template <class F>
void dispatch_float(const torch::Tensor& t, const char* what, F&& f) {
  if (t.scalar_type() == torch::kFloat32) {
    f(float{});
  } else if (t.scalar_type() == torch::kFloat64) {
    f(double{});
  } else {
    throw Error(std::string(what) + ": float32 or float64 input expected");
  }
}

// x [n, ...] -> y of the same shape, y[r] = mean (or transposed sum) over N(r).
torch::Tensor run_rows(const torch::Tensor& x, const torch::Tensor& ptr, const torch::Tensor& idx,
                       const torch::Tensor* col_ptr) {
  const int64_t rows = ptr.size(0) - 1;
  auto xc = x.contiguous();
  auto y = torch::empty_like(xc, at::MemoryFormat::Contiguous);
  const int64_t D = rows > 0 ? xc.numel() / rows : 0;
  if (rows == 0 || D == 0) return y;
  const auto* p = ptr.data_ptr<int64_t>();
  const auto* ix = idx.data_ptr<int64_t>();
  const int64_t* cp = data_or_null(col_ptr);
  dispatch_float(xc, "csr_mean", [&](auto zero) {
    using T = decltype(zero);
    const auto* xp = xc.data_ptr<T>();
    auto* yp = y.data_ptr<T>();
    at::parallel_for(0, rows, grain_for(idx, rows, D),
                     [&](int64_t b, int64_t e) { gather(b, e, p, ix, cp, xp, D, yp, D, 1, D, false); });
  });
  return y;
}

class CsrMean : public torch::autograd::Function<CsrMean> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& ptr, const torch::Tensor& idx, const torch::Tensor& tptr,
                               const torch::Tensor& tidx) {
    ctx->saved_data["ptr"] = ptr;
    ctx->saved_data["tptr"] = tptr;
    ctx->saved_data["tidx"] = tidx;
    return run_rows(x, ptr, idx, nullptr);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad) {
    const auto ptr = ctx->saved_data["ptr"].toTensor();
    const auto tptr = ctx->saved_data["tptr"].toTensor();
    const auto tidx = ctx->saved_data["tidx"].toTensor();
    if (!grad[0].defined()) return {torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
    auto gx = run_rows(grad[0], tptr, tidx, &ptr);
    return {gx, torch::Tensor(), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

// [x, mean_in(x), mean_out(x)] along the last dim in one pass over the rows:
// the input of a SAGE layer without the two intermediate tensors and the
// concatenation copy. Backward: dx = dy_self + in^T dy_in + out^T dy_out,
// again one pass, each row of dx written by one thread.
class SageConcat : public torch::autograd::Function<SageConcat> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& in_ptr, const torch::Tensor& in_idx,
                               const torch::Tensor& out_ptr, const torch::Tensor& out_idx) {
    ctx->saved_data["in_ptr"] = in_ptr;
    ctx->saved_data["in_idx"] = in_idx;
    ctx->saved_data["out_ptr"] = out_ptr;
    ctx->saved_data["out_idx"] = out_idx;
    auto xc = x.contiguous();
    auto sizes = xc.sizes().vec();
    const int64_t n = sizes[0], H = sizes.back();
    const int64_t B = n * H > 0 ? xc.numel() / (n * H) : 0;
    sizes.back() = 3 * H;
    auto y = torch::empty(sizes, xc.options());
    if (y.numel() == 0) return y;
    const auto *ip = in_ptr.data_ptr<int64_t>(), *ii = in_idx.data_ptr<int64_t>();
    const auto *op = out_ptr.data_ptr<int64_t>(), *oi = out_idx.data_ptr<int64_t>();
    dispatch_float(xc, "sage_concat", [&](auto zero) {
      using T = decltype(zero);
      const T* xp = xc.data_ptr<T>();
      T* yp = y.data_ptr<T>();
      at::parallel_for(0, n, grain_for(in_idx, n, 2 * B * H), [&](int64_t b, int64_t e) {
        for (int64_t i = b * B; i < e * B; ++i) std::copy(xp + i * H, xp + (i + 1) * H, yp + i * 3 * H);
        gather(b, e, ip, ii, nullptr, xp, H, yp + H, 3 * H, B, H, false);
        gather(b, e, op, oi, nullptr, xp, H, yp + 2 * H, 3 * H, B, H, false);
      });
    });
    return y;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad) {
    torch::autograd::variable_list out(5);
    if (!grad[0].defined()) return out;
    const auto in_ptr = ctx->saved_data["in_ptr"].toTensor(), in_idx = ctx->saved_data["in_idx"].toTensor();
    const auto out_ptr = ctx->saved_data["out_ptr"].toTensor(), out_idx = ctx->saved_data["out_idx"].toTensor();
    auto gy = grad[0].contiguous();
    auto sizes = gy.sizes().vec();
    const int64_t n = sizes[0], H = sizes.back() / 3;
    const int64_t B = n * H > 0 ? gy.numel() / (n * 3 * H) : 0;
    sizes.back() = H;
    auto gx = torch::empty(sizes, gy.options());
    if (gx.numel() > 0) {
      const auto *ip = in_ptr.data_ptr<int64_t>(), *ii = in_idx.data_ptr<int64_t>();
      const auto *op = out_ptr.data_ptr<int64_t>(), *oi = out_idx.data_ptr<int64_t>();
      dispatch_float(gy, "sage_concat", [&](auto zero) {
        using T = decltype(zero);
        const T* gp = gy.data_ptr<T>();
        T* xp = gx.data_ptr<T>();
        at::parallel_for(0, n, grain_for(in_idx, n, 2 * B * H), [&](int64_t b, int64_t e) {
          for (int64_t i = b * B; i < e * B; ++i) std::copy(gp + i * 3 * H, gp + i * 3 * H + H, xp + i * H);
          // mean_in's transpose walks the users (out CSR), weighted by the
          // users' operand counts; mean_out's the other way round.
          gather(b, e, op, oi, ip, gp + H, 3 * H, xp, H, B, H, true);
          gather(b, e, ip, ii, op, gp + 2 * H, 3 * H, xp, H, B, H, true);
        });
      });
    }
    out[0] = gx;
    return out;
  }
};

// sage_concat_split's kernels. A node c's value for config b: row pos[c] of
// `v` [m_in, B, H] when pos[c] < m_in, else row c of `s` [n, H].
template <typename T>
struct SplitArgs {
  const int64_t *order, *pos, *in_ptr, *in_idx, *out_ptr, *out_idx;
  int64_t m_in, m_out, B, H;
  const T *s, *v;
  T* y;               // forward: [m_out, B, 3H]
  const T* dy;        // backward: [m_out, B, 3H]
  T *ds, *dv;         // backward: [n, H], [m_in, B, H]
};

template <typename T>
inline __attribute__((always_inline)) const T* split_value(const SplitArgs<T>& a, int64_t c, int64_t b) {
  const int64_t p = a.pos[c];
  return (p >= 0 && p < a.m_in) ? a.v + (p * a.B + b) * a.H : a.s + c * a.H;
}

// Output rows i in [begin, end): node order[i].
template <typename T>
inline __attribute__((always_inline)) void split_forward_body(const SplitArgs<T>& a, int64_t begin, int64_t end) {
  const int64_t B = a.B, H = a.H, ld = 3 * H;
  for (int64_t i = begin; i < end; ++i) {
    const int64_t r = a.order[i];
    T* __restrict yi = a.y + i * B * ld;
    for (int64_t b = 0; b < B; ++b) {
      const T* __restrict x = split_value(a, r, b);
      std::copy(x, x + H, yi + b * ld);
    }
    for (int part = 1; part <= 2; ++part) {
      const int64_t* ptr = part == 1 ? a.in_ptr : a.out_ptr;
      const int64_t* idx = part == 1 ? a.in_idx : a.out_idx;
      const int64_t first = ptr[r], last = ptr[r + 1];
      T* __restrict yp = yi + part * H;
      if (first == last) {
        for (int64_t b = 0; b < B; ++b) std::fill(yp + b * ld, yp + b * ld + H, T(0));
        continue;
      }
      const T w = T(1) / static_cast<T>(last - first);
      for (int64_t k = first; k < last; ++k) {
        for (int64_t b = 0; b < B; ++b) {
          const T* __restrict x = split_value(a, idx[k], b);
          T* __restrict yb = yp + b * ld;
          if (k == first) {
            for (int64_t d = 0; d < H; ++d) yb[d] = w * x[d];
          } else {
            for (int64_t d = 0; d < H; ++d) yb[d] += w * x[d];
          }
        }
      }
    }
  }
}

// Source nodes c in [begin, end): each writes its own gradient row, dv[pos[c]]
// per config or ds[c] summed over configs, from every output row that read it.
template <typename T>
inline __attribute__((always_inline)) void split_backward_body(const SplitArgs<T>& a, int64_t begin, int64_t end) {
  const int64_t B = a.B, H = a.H, ld = 3 * H;
  for (int64_t c = begin; c < end; ++c) {
    const int64_t p = a.pos[c];
    const bool varying = p >= 0 && p < a.m_in;
    T* __restrict ds = a.ds + c * H;
    T* __restrict dv = varying ? a.dv + p * B * H : nullptr;
    std::fill(ds, ds + H, T(0));
    if (varying) std::fill(dv, dv + B * H, T(0));
    auto add = [&](const T* __restrict src, T w) {  // src: [B] segments with stride ld
      if (varying) {
        for (int64_t b = 0; b < B; ++b) {
          T* __restrict d = dv + b * H;
          const T* __restrict x = src + b * ld;
          for (int64_t k = 0; k < H; ++k) d[k] += w * x[k];
        }
      } else {
        for (int64_t b = 0; b < B; ++b) {
          const T* __restrict x = src + b * ld;
          for (int64_t k = 0; k < H; ++k) ds[k] += w * x[k];
        }
      }
    };
    if (p >= 0 && p < a.m_out) add(a.dy + p * B * ld, T(1));
    // c is an operand of each of its users r: r's mean_in read it.
    for (int64_t k = a.out_ptr[c]; k < a.out_ptr[c + 1]; ++k) {
      const int64_t r = a.out_idx[k], q = a.pos[r];
      if (q >= 0 && q < a.m_out) add(a.dy + q * B * ld + H, T(1) / static_cast<T>(a.in_ptr[r + 1] - a.in_ptr[r]));
    }
    // c is a user of each of its operands r: r's mean_out read it.
    for (int64_t k = a.in_ptr[c]; k < a.in_ptr[c + 1]; ++k) {
      const int64_t r = a.in_idx[k], q = a.pos[r];
      if (q >= 0 && q < a.m_out)
        add(a.dy + q * B * ld + 2 * H, T(1) / static_cast<T>(a.out_ptr[r + 1] - a.out_ptr[r]));
    }
  }
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void split_forward(const SplitArgs<float>& a,
                                                                             int64_t begin, int64_t end) {
  split_forward_body(a, begin, end);
}
void split_forward(const SplitArgs<double>& a, int64_t begin, int64_t end) { split_forward_body(a, begin, end); }
__attribute__((target_clones("avx512f", "avx2", "default"))) void split_backward(const SplitArgs<float>& a,
                                                                              int64_t begin, int64_t end) {
  split_backward_body(a, begin, end);
}
void split_backward(const SplitArgs<double>& a, int64_t begin, int64_t end) { split_backward_body(a, begin, end); }

class SageConcatSplit : public torch::autograd::Function<SageConcatSplit> {
 public:
  // plan_order, plan_pos, and the CSR arrays are constants (no gradient).
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& shared,
                               const torch::Tensor& varying, const torch::Tensor& order, const torch::Tensor& pos,
                               const torch::Tensor& in_ptr, const torch::Tensor& in_idx, const torch::Tensor& out_ptr,
                               const torch::Tensor& out_idx, int64_t m_out) {
    for (const auto& [k, t] : {std::pair<const char*, const torch::Tensor*>{"order", &order}, {"pos", &pos},
                               {"in_ptr", &in_ptr}, {"in_idx", &in_idx}, {"out_ptr", &out_ptr},
                               {"out_idx", &out_idx}})
      ctx->saved_data[k] = *t;
    ctx->saved_data["m_out"] = m_out;
    ctx->saved_data["B"] = varying.size(1);
    ctx->saved_data["m_in"] = varying.size(0);
    auto s = shared.contiguous();
    auto v = varying.contiguous();
    const int64_t B = v.size(1), H = s.size(1);
    auto y = torch::empty({m_out, B, 3 * H}, s.options());
    if (y.numel() == 0) return y;
    dispatch_float(s, "sage_concat_split", [&](auto zero) {
      using T = decltype(zero);
      SplitArgs<T> a{order.data_ptr<int64_t>(), pos.data_ptr<int64_t>(), in_ptr.data_ptr<int64_t>(),
                     in_idx.data_ptr<int64_t>(), out_ptr.data_ptr<int64_t>(), out_idx.data_ptr<int64_t>(),
                     v.size(0), m_out, B, H, s.data_ptr<T>(), v.data_ptr<T>(), y.data_ptr<T>(), nullptr,
                     nullptr, nullptr};
      at::parallel_for(0, m_out, grain_for(in_idx, s.size(0), 2 * B * H),
                       [&](int64_t b, int64_t e) { split_forward(a, b, e); });
    });
    return y;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad) {
    torch::autograd::variable_list out(9);
    if (!grad[0].defined()) return out;
    auto get = [&](const char* k) { return ctx->saved_data[k].toTensor(); };
    const auto order = get("order"), pos = get("pos"), in_ptr = get("in_ptr"), in_idx = get("in_idx"),
               out_ptr = get("out_ptr"), out_idx = get("out_idx");
    const int64_t m_out = ctx->saved_data["m_out"].toInt(), m_in = ctx->saved_data["m_in"].toInt(),
                  B = ctx->saved_data["B"].toInt();
    auto dy = grad[0].contiguous();
    const int64_t n = pos.size(0), H = dy.size(2) / 3;
    auto ds = torch::empty({n, H}, dy.options());
    auto dv = torch::empty({m_in, B, H}, dy.options());
    if (n * H > 0) {
      dispatch_float(dy, "sage_concat_split", [&](auto zero) {
        using T = decltype(zero);
        SplitArgs<T> a{order.data_ptr<int64_t>(), pos.data_ptr<int64_t>(), in_ptr.data_ptr<int64_t>(),
                       in_idx.data_ptr<int64_t>(), out_ptr.data_ptr<int64_t>(), out_idx.data_ptr<int64_t>(),
                       m_in, m_out, B, H, nullptr, nullptr, nullptr, dy.data_ptr<T>(), ds.data_ptr<T>(),
                       dv.data_ptr<T>()};
        at::parallel_for(0, n, grain_for(in_idx, n, 2 * B * H), [&](int64_t b, int64_t e) { split_backward(a, b, e); });
      });
    }
    out[0] = ds;
    out[1] = dv;
    return out;
  }
};

void check_args(const torch::Tensor& x, const torch::Tensor& ptr, const torch::Tensor& idx) {
  if (x.dim() < 1 || x.size(0) != ptr.size(0) - 1)
    throw Error("csr_mean: x has " + std::to_string(x.dim() ? x.size(0) : 0) + " rows, the adjacency " +
                std::to_string(ptr.size(0) - 1));
  if (ptr.scalar_type() != torch::kInt64 || idx.scalar_type() != torch::kInt64)
    throw Error("csr_mean: int64 adjacency expected");
}

}  // namespace

torch::Tensor csr_mean(const torch::Tensor& x, const torch::Tensor& ptr, const torch::Tensor& idx,
                       const torch::Tensor& tptr, const torch::Tensor& tidx) {
  check_args(x, ptr, idx);
  if (!x.device().is_cpu()) return csr_mean_reference(x, ptr, idx);
  return CsrMean::apply(x, ptr, idx, tptr, tidx);
}

torch::Tensor csr_mean_reference(const torch::Tensor& x, const torch::Tensor& ptr, const torch::Tensor& idx) {
  check_args(x, ptr, idx);
  const int64_t n = ptr.size(0) - 1;
  auto deg = ptr.slice(0, 1) - ptr.slice(0, 0, n);
  // The output size given: repeat_interleave would otherwise read the
  // degrees' sum back from the device (a sync per layer on a GPU, and no
  // CUDA graph could hold it).
  auto rows = torch::repeat_interleave(torch::arange(n, ptr.options()), deg, /*dim=*/0, /*output_size=*/idx.size(0));
  auto sum = torch::zeros_like(x).index_add(0, rows, x.index_select(0, idx));
  std::vector<int64_t> shape(x.dim(), 1);
  shape[0] = n;
  return sum / deg.clamp_min(1).to(x.scalar_type()).view(shape);
}

torch::Tensor sage_concat(const GraphTensors& g, const torch::Tensor& x) {
  check_args(x, g.in_ptr, g.in_idx);
  if (x.dim() < 2) throw Error("sage_concat: x [n, ..., H] expected, got " + std::to_string(x.dim()) + " dims");
  if (!x.device().is_cpu()) return sage_concat_reference(g, x);
  return SageConcat::apply(x, g.in_ptr, g.in_idx, g.out_ptr, g.out_idx);
}

torch::Tensor sage_concat_reference(const GraphTensors& g, const torch::Tensor& x) {
  return torch::cat({x, csr_mean_reference(x, g.in_ptr, g.in_idx), csr_mean_reference(x, g.out_ptr, g.out_idx)}, -1);
}

HopPlan hop_plan(const GraphTensors& g, int64_t hops) {
  const int64_t n = g.num_nodes;
  HopPlan plan;
  plan.pos = torch::full({n}, -1, torch::kInt64);
  auto* pos = plan.pos.data_ptr<int64_t>();
  std::vector<int64_t> order;
  const int64_t nc = g.config_nodes.defined() ? g.config_nodes.numel() : 0;
  const auto cn = g.config_nodes.defined() ? g.config_nodes.to(torch::kCPU).contiguous() : torch::Tensor();
  for (int64_t j = 0; j < nc; ++j) {
    const int64_t c = cn.data_ptr<int64_t>()[j];
    if (pos[c] < 0) {
      pos[c] = static_cast<int64_t>(order.size());
      order.push_back(c);
    }
  }
  plan.count.push_back(static_cast<int64_t>(order.size()));
  const auto in_ptr = g.in_ptr.to(torch::kCPU).contiguous(), in_idx = g.in_idx.to(torch::kCPU).contiguous();
  const auto out_ptr = g.out_ptr.to(torch::kCPU).contiguous(), out_idx = g.out_idx.to(torch::kCPU).contiguous();
  const auto *ip = in_ptr.data_ptr<int64_t>(), *ii = in_idx.data_ptr<int64_t>();
  const auto *op = out_ptr.data_ptr<int64_t>(), *oi = out_idx.data_ptr<int64_t>();
  int64_t ring_begin = 0;
  for (int64_t l = 1; l <= hops; ++l) {
    const auto ring_end = static_cast<int64_t>(order.size());
    for (int64_t i = ring_begin; i < ring_end; ++i) {
      const int64_t r = order[i];
      for (const auto& [ptr, idx] : {std::pair{ip, ii}, std::pair{op, oi}})
        for (int64_t k = ptr[r]; k < ptr[r + 1]; ++k)
          if (pos[idx[k]] < 0) {
            pos[idx[k]] = static_cast<int64_t>(order.size());
            order.push_back(idx[k]);
          }
    }
    ring_begin = ring_end;
    plan.count.push_back(static_cast<int64_t>(order.size()));
  }
  plan.order = torch::tensor(order, torch::kInt64);
  std::vector<int64_t> outside, config_rows(nc);
  for (int64_t c = 0; c < n; ++c)
    if (pos[c] < 0) outside.push_back(c);
  for (int64_t j = 0; j < nc; ++j) config_rows[j] = pos[cn.data_ptr<int64_t>()[j]];
  plan.outside = torch::tensor(outside, torch::kInt64);
  plan.config_rows = torch::tensor(config_rows, torch::kInt64);
  return plan;
}

torch::Tensor sage_concat_split(const GraphTensors& g, const HopPlan& plan, const torch::Tensor& shared,
                                const torch::Tensor& varying, int64_t m_out) {
  if (shared.dim() != 2 || shared.size(0) != g.num_nodes || varying.dim() != 3 ||
      varying.size(2) != shared.size(1) || varying.size(0) > plan.order.numel() || m_out > plan.order.numel() ||
      m_out < 0)
    throw Error("sage_concat_split: shared [n, H] and varying [m, B, H] expected, got " +
                std::to_string(shared.dim()) + " and " + std::to_string(varying.dim()) + " dims");
  if (!shared.device().is_cpu()) return sage_concat_split_reference(g, plan, shared, varying, m_out);
  return SageConcatSplit::apply(shared, varying, plan.order, plan.pos, g.in_ptr, g.in_idx, g.out_ptr, g.out_idx,
                                m_out);
}

torch::Tensor sage_concat_split_reference(const GraphTensors& g, const HopPlan& plan,
                                          const torch::Tensor& shared, const torch::Tensor& varying, int64_t m_out) {
  const int64_t n = shared.size(0), B = varying.size(1), H = shared.size(1);
  auto full = shared.unsqueeze(1).expand({n, B, H}).index_copy(0, plan.order.slice(0, 0, varying.size(0)), varying);
  return sage_concat_reference(g, full).index_select(0, plan.order.slice(0, 0, m_out));
}

torch::Tensor mean_pool_at(const torch::Tensor& x, const torch::Tensor& nodes) {
  if (nodes.numel() == 0) return torch::zeros_like(x[0]);
  return x.index_select(0, nodes).mean(0);
}

}  // namespace fastslow::models
