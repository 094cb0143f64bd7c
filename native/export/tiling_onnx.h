// models/layout_tiling.h written as ONNX ops, one for one, so that ONNX
// Runtime computes the same features from the same two inputs.
#pragma once

#include <string>

#include "export/onnx_builder.h"

namespace fastslow::exporter {

// config [B, nc, 18] float, context [nc, LayoutContext::kWidth] float ->
// [B, nc, models::kTilingFeatures].
std::string emit_layout_tiling(OnnxBuilder& b, const std::string& config, const std::string& context);
// The two steps of models::layout_tiling_producers and layout_tiling_from.
std::string emit_layout_tiling_producers(OnnxBuilder& b, const std::string& config, const std::string& context);
std::string emit_layout_tiling_from(OnnxBuilder& b, const std::string& config, const std::string& producers,
                                    const std::string& context);

}  // namespace fastslow::exporter
