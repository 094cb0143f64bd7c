#include "models/layout_tiling.h"

#include <string>

#include "fastslow/error.h"
#include "fastslow/features/layout_context.h"

namespace fastslow::models {

namespace {

using C = LayoutContext;

torch::Tensor as_float(const torch::Tensor& t) { return t.to(torch::kFloat32); }

// log2(ceil(d / m) * m / d) for d > 0, else 0.
torch::Tensor log2_padding(const torch::Tensor& d, double m) {
  const auto safe = d.clamp_min(1.0);
  return torch::where(d > 0, torch::log2(torch::ceil(safe / m) * m / safe), torch::zeros_like(d));
}

// What a layout makes of a tensor with dims [.., nc, 6].
struct Placed {
  torch::Tensor size;      // size of the dim at each slot (0 past the rank)
  torch::Tensor valid0;    // the layout has a minor-most slot
  torch::Tensor d0, d1;    // sizes of the minor-most and second-minor dims (0 when absent)
  torch::Tensor log_pad;   // log2 of the (8 x 128)-tile padding factor
  torch::Tensor phys0, phys1, key;  // physical order: minor-most, second-minor, the whole order as one number
};

Placed place(const torch::Tensor& layout, const torch::Tensor& dims) {
  Placed p;
  const auto valid = layout >= 0;
  const auto idx = layout.clamp_min(0).to(torch::kInt64);
  p.size = dims.gather(2, idx) * as_float(valid);
  const auto& size = p.size;
  p.valid0 = valid.select(2, 0);
  p.d0 = size.select(2, 0);
  p.d1 = size.select(2, 1);
  p.log_pad = log2_padding(p.d0, 128) + log2_padding(p.d1, 8);
  // Dims of size 1 hold no data: the physical order skips them.
  const auto big = as_float(size > 1);
  const auto rank = big.cumsum(2);
  const auto nth = [&](double k) {
    const auto hit = big * as_float(rank == k);
    const auto at = hit.argmax(2, true);  // the first hit
    return torch::where(hit.amax(2) > 0, layout.gather(2, at).squeeze(2), torch::full_like(p.d0, -1));
  };
  p.phys0 = nth(1);
  p.phys1 = nth(2);
  // Digits base 8 of (dim + 1), one per physical slot: equal keys, equal orders.
  p.key = (big * (layout + 1) * torch::pow(8.0, (rank - 1).clamp_min(0))).sum(2);
  return p;
}

torch::Tensor log2_1p(const torch::Tensor& x, double scale) { return torch::log2(1 + x) / scale; }

// The key (see place()) of the row-major physical order of a tensor with
// dims [1, nc, 6]: dim d (of size > 1) sits at the position counted by the
// larger dims of size > 1. A layout is row-major (what a reshape reads as
// a bitcast) when its key equals this one; per node, not per config.
torch::Tensor row_major_key(const torch::Tensor& dims) {
  const auto big = as_float(dims > 1);
  const auto larger = big.sum(2, true) - big.cumsum(2);  // big dims with a higher index
  const auto index = torch::arange(1, C::kSlots + 1, dims.options());
  return (big * index * torch::pow(8.0, larger)).sum(2);
}

// Whether slot `slot` of the layout misses the op's preferred dim (when one is known).
torch::Tensor misses(const torch::Tensor& layout, const torch::Tensor& preferred, int64_t slot) {
  return as_float((preferred >= 0) & (layout.select(2, slot) != preferred));
}

// [B, nc, 6] layout, [1, nc, 6] dims, [1 or B, nc, 6] reference, [1, nc] bits,
// [1, nc, 3] the op's preferences (LayoutContext::kPrefer0..kAvoid).
torch::Tensor one_layout(const torch::Tensor& layout, const torch::Tensor& dims, const torch::Tensor& ref,
                         const torch::Tensor& bits, const torch::Tensor& prefs) {
  const int64_t B = layout.size(0);
  const auto dims_b = dims.expand({B, dims.size(1), dims.size(2)});
  // A reference without a batch axis (the output's built layout) is placed
  // once per node; its values broadcast.
  const Placed l = place(layout, dims_b), r = ref.size(0) == B ? place(ref, dims_b) : place(ref, dims);
  const auto comparable = as_float(l.valid0 & r.valid0);
  const auto elements = dims_b.clamp_min(1.0).prod(2) * as_float(dims_b.select(2, 0) > 0);
  const auto bytes = elements * bits / 8;
  const auto padded_l = bytes * torch::exp2(l.log_pad), padded_r = bytes * torch::exp2(r.log_pad);
  const auto avoid = prefs.select(2, 2);
  const auto avoid_hit = as_float((avoid >= 0) & ((layout.select(2, 0) == avoid) | (layout.select(2, 1) == avoid)));
  return torch::stack({log2_1p(l.d0, 8), log2_1p(l.d1, 8), log2_padding(l.d0, 128), log2_padding(l.d1, 8), comparable,
                       comparable * as_float(l.phys0 == r.phys0), comparable * as_float(l.phys1 == r.phys1),
                       comparable * as_float(l.key == r.key), log2_1p(bytes, 16), log2_1p(padded_l, 16),
                       log2_1p(padded_r, 16), log2_1p(padded_l + padded_r, 16),
                       misses(layout, prefs.select(2, 0).expand_as(l.d0), 0),
                       misses(layout, prefs.select(2, 1).expand_as(l.d0), 1), avoid_hit.expand_as(l.d0),
                       as_float(l.key == row_major_key(dims))},
                      2);
}

}  // namespace

namespace {

void check_inputs(const torch::Tensor& config, const torch::Tensor& context) {
  if (config.dim() != 3 || config.size(2) != 3 * C::kSlots)
    throw Error("layout tiling features: config values of shape [B, nc, 18] expected");
  if (!context.defined() || context.dim() != 2 || context.size(0) != config.size(1) || context.size(1) != C::kWidth)
    throw Error("layout tiling features: layout context [" + std::to_string(config.size(1)) + ", " +
                std::to_string(C::kWidth) + "] expected");
}

// Out-of-range values (a rescaled or corrupt file) index no dim.
torch::Tensor clamped(const torch::Tensor& config) { return config.round().clamp(-1, C::kSlots - 1); }

torch::Tensor slots(const torch::Tensor& t, int64_t at) { return t.narrow(-1, at, C::kSlots); }

}  // namespace

torch::Tensor layout_tiling_producers(const torch::Tensor& config, const torch::Tensor& context) {
  check_inputs(config, context);
  const int64_t B = config.size(0), nc = config.size(1);
  if (nc == 0) return torch::zeros({B, 0, 2 * C::kSlots}, config.options());
  const auto values = clamped(config);
  const auto ctx = context.unsqueeze(0);  // [1, nc, width]
  // A configurable producer's output layout comes from the same config.
  const auto producer_layout = [&](int64_t producer_col, int64_t tensor) {
    const auto p = context.select(1, producer_col).round().to(torch::kInt64);  // [nc]
    const auto from_config = slots(values.index_select(1, p.clamp_min(0)), 0);  // [B, nc, 6]
    return torch::where((p >= 0).view({1, nc, 1}), from_config, slots(ctx, tensor + C::kLayout).expand_as(from_config));
  };
  return torch::cat({producer_layout(C::kInProducer, C::kInput), producer_layout(C::kKernelProducer, C::kKernel)}, 2);
}

torch::Tensor layout_tiling_from(const torch::Tensor& config, const torch::Tensor& producers,
                                 const torch::Tensor& context) {
  check_inputs(config, context);
  const int64_t B = config.size(0), nc = config.size(1);
  if (nc == 0) return torch::zeros({B, 0, kTilingFeatures}, config.options());
  const auto values = clamped(config);
  const auto ctx = context.unsqueeze(0);  // [1, nc, width]
  const auto block = [&](int64_t at, int64_t tensor, const torch::Tensor& ref) {
    return one_layout(slots(values, at), slots(ctx, tensor + C::kDims), ref, ctx.select(2, tensor + C::kBits),
                      ctx.narrow(2, tensor + C::kPrefer0, 3));
  };
  return torch::cat({block(0, C::kOutput, slots(ctx, C::kOutput + C::kLayout)),
                     block(6, C::kInput, producers.narrow(2, 0, C::kSlots)),
                     block(12, C::kKernel, producers.narrow(2, C::kSlots, C::kSlots))},
                    2);
}

torch::Tensor layout_tiling_features(const torch::Tensor& config, const torch::Tensor& context) {
  return layout_tiling_from(config, layout_tiling_producers(config, context), context);
}

}  // namespace fastslow::models
