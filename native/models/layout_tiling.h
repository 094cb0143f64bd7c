// Features of a layout choice that a TPU's tiling makes decisive, computed
// from the raw config values and the core's layout context
// (fastslow/layout_context.h). A TPU stores a tensor in 8 x 128 tiles:
// the dim a layout puts minor-most is padded to 128 lanes, the second-minor
// to 8 sublanes, so [.., 3, 224] costs little and [.., 224, 3] is 43x
// larger in memory; and a tensor whose layout differs from what its reader
// wants is copied first (a transpose when the minor-most dim moves). An
// embedding of the layout values alone has to learn "which dim index
// points at which size" per graph; these features hand it over.
//
// Per layout L (output, input = operand 0, kernel = operand 1) and its
// reference P, 12 values:
//   log2(1 + size of L's minor-most dim) / 8, the same for the second-minor,
//   log2 of L's lane padding factor ceil(d/128)*128/d, of its sublane one
//   ceil(d/8)*8/d, whether L can be compared with P, whether their
//   physical orders (size-1 dims left out: moving them moves no data)
//   agree on the minor-most dim, on the second-minor one, on all dims,
//   and log2(1 + x) / 16 of the tensor's bytes, of its padded bytes under
//   L, under P, and of the two together (what a relayout copy moves);
//   whether L's minor-most slot misses the dim the op prefers there
//   (LayoutContext::kPrefer0), whether its second-minor one does, whether
//   the dim the op wants kept out of the minor two sits there, and
//   whether L's physical order is row-major (a reshape is a free bitcast
//   only between row-major layouts).
// P is the layout the neighbour has or wants: for the output, the node's
// layout as built (what non-configurable users read); for the input and
// kernel, the producer's output layout, taken from the config itself when
// the producer is configurable too.
#pragma once

#include <torch/torch.h>

namespace fastslow::models {

constexpr int64_t kTilingPerLayout = 16;
constexpr int64_t kTilingFeatures = 3 * kTilingPerLayout;

// config [B, nc, 18] raw layout values (-1..5), context [nc, LayoutContext::kWidth] ->
// [B, nc, kTilingFeatures]. Not differentiable (inputs are data). Written
// with ops that ONNX has one-for-one (export/export_onnx.cpp mirrors it).
torch::Tensor layout_tiling_features(const torch::Tensor& config, const torch::Tensor& context);
// The same in two steps, for callers that compute the features once per
// distinct input (layout_focus.h): the layouts of each node's input and
// kernel producers, [B, nc, 12] (from the config when the producer is
// configurable, else the context's); then the features of configs whose
// producers' layouts are given, each row with its own context row.
torch::Tensor layout_tiling_producers(const torch::Tensor& config, const torch::Tensor& context);
torch::Tensor layout_tiling_from(const torch::Tensor& config, const torch::Tensor& producers, const torch::Tensor& context);

}  // namespace fastslow::models
