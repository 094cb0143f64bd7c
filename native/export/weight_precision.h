// Weights stored in lower precision in the exported ONNX model: float16, or
// int8 with one scale per row (symmetric, per output channel of a MatMul's
// weight), turned back into float32 inside the graph (Cast,
// DequantizeLinear), so every op still computes in float32 and the model
// file shrinks about 2x or 4x. Only matrices of at least kMinLowered values
// are lowered: biases, norms and small tables stay float32, where they
// cost little and matter most. The model card records what was lowered.
// A per-layer plan sets each weight tensor's precision on its own (a
// precision search's trial, or a user's choice read from a file).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "export/onnx_builder.h"

namespace fastslow::exporter {

enum class WeightPrecision { Fp32, Fp16, Int8 };
const char* precision_name(WeightPrecision p);  // "fp32" | "fp16" | "int8"
// Error naming the word and the choices for anything else.
WeightPrecision parse_precision(const std::string& word);

inline constexpr int64_t kMinLowered = 64;

// Whether a weight of these dims can be stored lower: a matrix of at least
// kMinLowered values.
bool lowerable(const std::vector<int64_t>& dims);

// What precision each weight tensor gets: `weights` for every lowerable one,
// or, per layer, one precision per weight tensor in the order the export
// writes them (the order of the card's "tensors" list).
struct PrecisionPlan {
  WeightPrecision weights = WeightPrecision::Fp32;
  std::vector<WeightPrecision> per_tensor;  // empty: `weights` for all
  std::string source;                       // the file a per-layer plan came from, for errors

  PrecisionPlan() = default;
  PrecisionPlan(WeightPrecision p) : weights(p) {}  // NOLINT: a precision is the plan that applies it everywhere
  bool per_layer() const { return !per_tensor.empty(); }
  // The precision weight tensor `index` of `dims` is stored in: fp32 for a
  // tensor that is not lowerable. Error naming the source where a per-layer
  // plan lowers one that is not lowerable or has no entry.
  WeightPrecision at(size_t index, const std::vector<int64_t>& dims) const;
  // After the export wrote `count` tensors: Error naming the source when the
  // plan lists another number.
  void check_count(size_t count) const;
  // {"tensors": ["fp32", "int8", ...]}: one per tensor of the card's list.
  // Error naming the file on anything else.
  static PrecisionPlan read(const std::string& file);
};

// What an export lowered: per weight tensor, its name, shape and precision.
struct PrecisionReport {
  WeightPrecision weights = WeightPrecision::Fp32;
  bool per_layer = false;  // "weights" is then "per-layer"
  struct Tensor {
    std::string name;
    std::vector<int64_t> dims;
    WeightPrecision precision = WeightPrecision::Fp32;
  };
  std::vector<Tensor> tensors;
  // The card's "precision": {"weights" (fp32, fp16, int8 or per-layer),
  // "lowered", "kept_fp32", "tensors": [{"name", "dims", "precision",
  // "lowerable"}]}.
  nlohmann::json to_json() const;
};

// The value (float32) of a weight `data` of shape `dims`: one initializer
// in float32, or (p lower and the weight lowerable) a lowered one and the op
// turning it back. Records it in `report` when given.
std::string weight_value(OnnxBuilder& b, const std::vector<float>& data, const std::vector<int64_t>& dims,
                         WeightPrecision p, const std::string& hint, PrecisionReport* report);

// The float32 values a graph exported at precision p computes with for a
// weight `data` of shape `dims`: fp16 rounded, int8 rows at their scales;
// `data` itself for fp32 and for weights that are not lowerable.
std::vector<float> computed_values(const std::vector<float>& data, const std::vector<int64_t>& dims, WeightPrecision p);

// The int8 rows and per-row scales weight_value stores, for tests:
// scale = max |row| / 127 (1 for a row of zeros), q = round(x / scale).
void quantize_rows(const std::vector<float>& data, int64_t rows, std::vector<int8_t>& q, std::vector<float>& scale);

}  // namespace fastslow::exporter
