// The "wide" half of the per-program layout model: a learned table over one
// program's configurable nodes, the memorisation that a network shared by
// every node does poorly.
//  - one weight per configurable node x config column x value (-1..5):
//    what a ridge regression on one-hot config values fits;
//  - one weight per configurable node x whole layout row, for up to
//    kRowSlots distinct rows per node: a node's output, input and kernel
//    layouts choose its algorithm together. On real unet3d one
//    convolution's output and input layouts make configs 3x slower only in
//    one combination, which no sum over single values expresses (ridge on
//    values: held-out Kendall 0.16-0.28; on rows: 0.79-0.86).
// A row is one int64 code, sum over columns of (v + 1) * 7^column, exact
// for up to kMaxRowColumns columns; wider configs get the value table only.
// The table belongs to one graph's configurable nodes: it is meaningless
// for another graph, which the model card records (a per-program model).
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace fastslow::models {

class LayoutWideImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kValues = 7;         // layout values -1..5
  static constexpr int64_t kRowSlots = 16;      // distinct rows kept per node
  static constexpr int64_t kMaxRowColumns = 22;  // 7^22 < 2^63
  LayoutWideImpl(int64_t config_nodes, int64_t config_width);

  // config_feat [B, nc, Fc] raw layout values -> [B]
  torch::Tensor forward(const torch::Tensor& config_feat);
  // The same score node by node, [B, nc] float64: its value weights and its
  // row's weight. Each row sums to forward() (up to float rounding): the
  // exact shares `fastslow explain` reports.
  torch::Tensor per_node(const torch::Tensor& config_feat);
  bool uses_rows() const { return width_ <= kMaxRowColumns; }
  // [B, nc, Fc] -> [B, nc] int64 row codes (values rounded into -1..5).
  static torch::Tensor row_codes(const torch::Tensor& config_feat);
  // Values as table indices 0..6: round, clamp into -1..5, + 1.
  static torch::Tensor value_index(const torch::Tensor& config_feat);

  int64_t config_nodes() const { return nodes_; }
  int64_t config_width() const { return width_; }

  torch::Tensor value_weight;  // [nc * Fc * kValues], row-major over (node, column, value)
  torch::Tensor row_weight;    // [nc, kRowSlots]
  torch::Tensor rows;          // buffer [nc, kRowSlots] int64 codes, -1 = empty slot

 private:
  int64_t nodes_, width_;
};
TORCH_MODULE(LayoutWide);

}  // namespace fastslow::models
