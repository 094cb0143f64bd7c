#include "fastslow/features/layout_context.h"

#include <cmath>
#include <string>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"

namespace fastslow {
namespace {

constexpr int kSlots = LayoutContext::kSlots;

struct Columns {
  int dims = -1, layout = -1, bits = -1;
  int input_batch = -1, input_feature = -1, kernel_input = -1, kernel_output = -1, output_feature = -1;
};

Columns published_columns(int64_t width) {
  if (width != static_cast<int64_t>(node_feature_names().size())) return {};
  return {require_node_feature("shape_dimensions_0"),
          require_node_feature("layout_minor_to_major_0"),
          require_node_feature("element_size_in_bits"),
          require_node_feature("convolution_dim_numbers_input_batch_dim"),
          require_node_feature("convolution_dim_numbers_input_feature_dim"),
          require_node_feature("convolution_dim_numbers_kernel_input_feature_dim"),
          require_node_feature("convolution_dim_numbers_kernel_output_feature_dim"),
          require_node_feature("convolution_dim_numbers_output_feature_dim")};
}

int rank_of(const float* block) {
  int rank = 0;
  for (int i = 0; i < kSlots; ++i)
    if (block[LayoutContext::kDims + i] > 0) rank = i + 1;
  return rank;
}

// A dim index read from a feature column, or -1 when it is not a dim of
// the tensor.
float dim_or_none(float v, const float* block) {
  const int rank = rank_of(block);
  return std::isfinite(v) && v >= 0 && v < static_cast<float>(rank) ? std::round(v) : -1.0f;
}

// What the op of a configurable node wants of its three tensors' layouts;
// the convolution's dim numbers are feature columns, a dot's are not in
// the published features except that its output's last dim is the one it
// writes along the lanes.
void preferences(int32_t opcode, const float* row, const Columns& c, float* ctx_row) {
  static const int conv = require_opcode("convolution"), dot = require_opcode("dot");
  float* out = ctx_row + LayoutContext::kOutput;
  float* in = ctx_row + LayoutContext::kInput;
  float* kernel = ctx_row + LayoutContext::kKernel;
  if (opcode == conv) {
    out[LayoutContext::kPrefer0] = dim_or_none(row[c.output_feature], out);
    in[LayoutContext::kPrefer0] = dim_or_none(row[c.input_feature], in);
    in[LayoutContext::kAvoid] = dim_or_none(row[c.input_batch], in);
    kernel[LayoutContext::kPrefer0] = dim_or_none(row[c.kernel_output], kernel);
    kernel[LayoutContext::kPrefer1] = dim_or_none(row[c.kernel_input], kernel);
  } else if (opcode == dot) {
    out[LayoutContext::kPrefer0] = static_cast<float>(rank_of(out) - 1);
  }
}

// One tensor block (LayoutContext::kTensorWidth values) from a node's row.
// Shapes are 0-padded beyond the rank and so are the published layouts,
// where a 0 past the rank would read as "dim 0": the rank decides.
void tensor_block(const float* row, const Columns& c, float* out) {
  int rank = 0;
  for (int i = 0; i < kSlots; ++i) {
    const float d = row[c.dims + i];
    out[LayoutContext::kDims + i] = std::isfinite(d) && d > 0 ? d : 0.0f;
    if (out[LayoutContext::kDims + i] > 0) rank = i + 1;
  }
  for (int i = 0; i < kSlots; ++i) {
    const float v = row[c.layout + i];
    const bool ok = i < rank && std::isfinite(v) && v >= 0 && v < static_cast<float>(rank);
    out[LayoutContext::kLayout + i] = ok ? std::round(v) : -1.0f;
  }
  // element_size_in_bits where a file fills it, else the element type's
  // (no published file fills it: hlo_tables.h).
  const float bits = row[c.bits];
  out[LayoutContext::kBits] =
      std::isfinite(bits) && bits > 0 ? bits : static_cast<float>(element_bits_of_row(row));
}

}  // namespace

bool model_reads_layout_context(bool layout, const std::string& model, int64_t config_feat_width) {
  return layout && model == "focus" && config_feat_width == 3 * kSlots;
}

void check_layout_context_version(int64_t recorded, int64_t node_feat_width, const std::string& what) {
  if (recorded == LayoutContext::kVersion || node_feat_width != static_cast<int64_t>(node_feature_names().size())) return;
  if (recorded <= 0)
    throw Error(what, "", "records no layout-context version (fastslow records it since December 2026); a model "
                          "trained before element sizes came from the element type saw byte features of 0 on every "
                          "published file, and this build feeds it others: train it again (one known to be trained "
                          "after that fix is kept by adding \"layout_context\": " +
                              std::to_string(LayoutContext::kVersion) + " to stats.json, or to model.json's "
                              "\"normalization\")");
  throw Error(what, "", "the model was trained with layout context version " + std::to_string(recorded) +
                            "; this build computes version " + std::to_string(LayoutContext::kVersion) +
                            ": train it again with this build (or use the build it was trained with)");
}

LayoutContext unknown_layout_context(int64_t num_config_nodes) {
  LayoutContext ctx;
  ctx.num_config_nodes = num_config_nodes;
  ctx.values.assign(static_cast<size_t>(num_config_nodes * LayoutContext::kWidth), 0.0f);
  for (int64_t i = 0; i < num_config_nodes; ++i) {
    float* row = ctx.values.data() + i * LayoutContext::kWidth;
    for (int t = 0; t < 3; ++t) {
      float* block = row + t * LayoutContext::kTensorWidth;
      for (int s = 0; s < kSlots; ++s) block[LayoutContext::kLayout + s] = -1.0f;
      block[LayoutContext::kPrefer0] = block[LayoutContext::kPrefer1] = block[LayoutContext::kAvoid] = -1.0f;
    }
    row[LayoutContext::kInProducer] = row[LayoutContext::kKernelProducer] = -1.0f;
  }
  return ctx;
}

LayoutContext layout_context(int64_t num_nodes, int64_t node_feat_width, const std::vector<float>& node_feat,
                             const std::vector<int32_t>& node_opcode, const std::vector<int64_t>& edge_index,
                             const std::vector<int64_t>& config_positions) {
  if (static_cast<int64_t>(node_feat.size()) != num_nodes * node_feat_width)
    throw Error("", "node_feat", "layout context: expected " + std::to_string(num_nodes * node_feat_width) +
                                     " values, got " + std::to_string(node_feat.size()));
  if (static_cast<int64_t>(node_opcode.size()) != num_nodes)
    throw Error("", "node_opcode", "layout context: expected " + std::to_string(num_nodes) + " values, got " +
                                       std::to_string(node_opcode.size()));
  const int64_t nc = static_cast<int64_t>(config_positions.size());
  LayoutContext ctx = unknown_layout_context(nc);
  std::vector<int64_t> config_index(static_cast<size_t>(num_nodes), -1);
  for (int64_t i = 0; i < nc; ++i) {
    const int64_t p = config_positions[i];
    if (p < 0 || p >= num_nodes)
      throw Error("", "node_config_ids", "entry " + std::to_string(i) + " = " + std::to_string(p) +
                                            " is outside 0.." + std::to_string(num_nodes - 1));
    config_index[p] = i;
  }
  // Operands 0 and 1 of every configurable node: its first two in-edges in
  // file order.
  std::vector<int64_t> operand(static_cast<size_t>(nc * 2), -1);
  for (size_t e = 0; e + 1 < edge_index.size(); e += 2) {
    const int64_t u = edge_index[e], v = edge_index[e + 1];
    if (u < 0 || u >= num_nodes || v < 0 || v >= num_nodes)
      throw Error("", "edge_index", "row " + std::to_string(e / 2) + " names a node outside 0.." +
                                        std::to_string(num_nodes - 1));
    const int64_t i = config_index[u];
    if (i < 0) continue;
    if (operand[i * 2] < 0)
      operand[i * 2] = v;
    else if (operand[i * 2 + 1] < 0)
      operand[i * 2 + 1] = v;
  }

  const Columns cols = published_columns(node_feat_width);
  ctx.known = cols.dims >= 0;
  for (int64_t i = 0; i < nc; ++i) {
    if (!ctx.known) break;
    float* row = ctx.values.data() + i * LayoutContext::kWidth;
    auto feat = [&](int64_t node) { return node_feat.data() + node * node_feat_width; };
    tensor_block(feat(config_positions[i]), cols, row + LayoutContext::kOutput);
    const int64_t a = operand[i * 2], b = operand[i * 2 + 1];
    if (a >= 0) {
      tensor_block(feat(a), cols, row + LayoutContext::kInput);
      row[LayoutContext::kInProducer] = static_cast<float>(config_index[a]);
    }
    if (b >= 0) {
      tensor_block(feat(b), cols, row + LayoutContext::kKernel);
      row[LayoutContext::kKernelProducer] = static_cast<float>(config_index[b]);
    }
    preferences(node_opcode[static_cast<size_t>(config_positions[i])], feat(config_positions[i]), cols, row);
  }
  return ctx;
}

}  // namespace fastslow
