#include "models/layout_wide.h"

#include <algorithm>
#include <string>

#include "fastslow/error.h"

namespace fastslow::models {

LayoutWideImpl::LayoutWideImpl(int64_t config_nodes, int64_t config_width) : nodes_(config_nodes), width_(config_width) {
  if (config_nodes < 1 || config_width < 1)
    throw Error("wide layout table: needs configurable nodes and config columns, got " +
                std::to_string(config_nodes) + " x " + std::to_string(config_width));
  // Zeros: the trainer fits the table in closed form (train/wide_init.h)
  // before any step, and an unfitted table adds nothing.
  value_weight = register_parameter("value_weight", torch::zeros({config_nodes * config_width * kValues}));
  row_weight = register_parameter("row_weight", torch::zeros({config_nodes, kRowSlots}));
  rows = register_buffer("rows", torch::full({config_nodes, kRowSlots}, -1, torch::kInt64));
}

torch::Tensor LayoutWideImpl::value_index(const torch::Tensor& config_feat) {
  return config_feat.round().clamp(-1, kValues - 2).to(torch::kInt64) + 1;
}

torch::Tensor LayoutWideImpl::row_codes(const torch::Tensor& config_feat) {
  const int64_t width = config_feat.size(2);
  // kValues^c per column, made on the device (a host vector copied over
  // would wait for the device on a GPU).
  const torch::Tensor pw =
      torch::pow(kValues, torch::arange(width, torch::TensorOptions(torch::kInt64).device(config_feat.device())));
  return (value_index(config_feat) * pw).sum(2);
}

torch::Tensor LayoutWideImpl::forward(const torch::Tensor& config_feat) {
  if (config_feat.dim() != 3 || config_feat.size(1) != nodes_ || config_feat.size(2) != width_)
    throw Error("wide layout table: config features of shape [" + std::to_string(config_feat.size(0)) + ", " +
                std::to_string(config_feat.dim() > 1 ? config_feat.size(1) : 0) + ", " +
                std::to_string(config_feat.dim() > 2 ? config_feat.size(2) : 0) + "], this table is for " +
                std::to_string(nodes_) + " configurable nodes x " + std::to_string(width_) +
                " columns (it was fitted on one program)");
  // Summed in float64, here and in the ONNX graph: hundreds of float32 terms
  // summed in another order differ by a few ulps, enough to swap configs
  // whose scores differ by less (the table alone ranks AlexNet's plateau).
  const int64_t B = config_feat.size(0);
  const torch::Tensor offsets =
      torch::arange(nodes_ * width_, torch::TensorOptions(torch::kInt64).device(config_feat.device()))
          .view({1, nodes_, width_}) *
      kValues;
  torch::Tensor score =
      value_weight.index({(value_index(config_feat) + offsets).view({-1})}).view({B, -1}).to(torch::kFloat64).sum(1);
  if (uses_rows()) {
    const torch::Tensor hit = row_codes(config_feat).unsqueeze(2) == rows.unsqueeze(0);  // [B, nc, K]
    score = score + (hit.to(torch::kFloat64) * row_weight.to(torch::kFloat64).unsqueeze(0)).view({B, -1}).sum(1);
  }
  return score.to(value_weight.scalar_type());
}

torch::Tensor LayoutWideImpl::per_node(const torch::Tensor& config_feat) {
  forward(config_feat.narrow(0, 0, std::min<int64_t>(1, config_feat.size(0))));  // the shape checks
  const int64_t B = config_feat.size(0);
  const torch::Tensor offsets =
      torch::arange(nodes_ * width_, torch::TensorOptions(torch::kInt64).device(config_feat.device()))
          .view({1, nodes_, width_}) *
      kValues;
  torch::Tensor per = value_weight.index({(value_index(config_feat) + offsets).view({-1})})
                          .view({B, nodes_, width_})
                          .to(torch::kFloat64)
                          .sum(2);
  if (uses_rows()) {
    const torch::Tensor hit = row_codes(config_feat).unsqueeze(2) == rows.unsqueeze(0);  // [B, nc, K]
    per = per + (hit.to(torch::kFloat64) * row_weight.to(torch::kFloat64).unsqueeze(0)).sum(2);
  }
  return per;
}

}  // namespace fastslow::models
