// LibTorch's C++ API has no ONNX exporter: each model type is written out
// here op by op, with its trained weights as initializers. Inputs (dynamic
// axes in brackets) are what rank_inputs.h prepares for one graph:
//   node_feat [nodes, F] float32, node_opcode [nodes] int64,
//   edge_index [edges, 2] int64, config_nodes [config_nodes] int64 (layout),
//   config_feat [batch, Fc] (tile) / [batch, config_nodes, Fc] (layout) float32
// and the output is scores [batch] float32, lower = faster.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "export/onnx_builder.h"
#include "export/weight_precision.h"

namespace fastslow::models {
class RankModelImpl;
struct ModelOptions;
}  // namespace fastslow::models

namespace fastslow::exporter {

constexpr int64_t kOpset = 17;  // LayerNormalization; ScatterND with reduction

struct TensorSpec {
  std::string name;
  std::string dtype;       // "float32" | "int64"
  std::vector<Dim> shape;  // a size or a dynamic axis name
};
std::vector<TensorSpec> model_inputs(const models::ModelOptions& options);
// The model's inputs: as above, or for an ensemble (models/ensemble_model.h)
// those of every member, each once.
std::vector<TensorSpec> model_inputs(const models::RankModelImpl& model, const models::ModelOptions& options);
std::vector<TensorSpec> model_outputs();

// An ensemble is one graph: every member over the shared inputs (their
// values named "m<i>/..."), then scores = sum_i weight_i / scale_i * member_i.
// Weights as `plan` says (weight_precision.h: one precision, or one per
// weight tensor); `report`, if given, gets every weight tensor's precision.
// Throws fastslow::Error on a model type it does not know and on a plan
// that does not fit the model.
onnx::ModelProto export_onnx(models::RankModelImpl& model, const models::ModelOptions& options,
                             const PrecisionPlan& plan = {}, PrecisionReport* report = nullptr);

// Sets `model`'s weights to the float32 values an export with `plan`
// computes with (computed_values: fp16 rounded, int8 rows at their scales),
// so that LibTorch scores what ONNX Runtime scores with the lowered model:
// how a precision search judges a plan without ONNX Runtime. Returns the
// export it makes on the way: export_onnx of the model as it was, with
// `plan` (and `report` as export_onnx fills it). Errors as export_onnx's.
onnx::ModelProto lower_weights(models::RankModelImpl& model, const models::ModelOptions& options,
                               const PrecisionPlan& plan, PrecisionReport* report = nullptr);

// onnx::checker::check_model plus strict shape inference (all types checked,
// node errors thrown); throws fastslow::Error with the checker's message.
void check_onnx(const onnx::ModelProto& model);

}  // namespace fastslow::exporter
