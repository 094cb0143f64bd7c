#include "export/weight_precision.h"

#include <c10/util/Half.h>

#include <algorithm>
#include <cmath>

#include "fastslow/error.h"
#include "fastslow/io/json_text.h"
#include "fastslow/io/read_file.h"

namespace fastslow::exporter {

const char* precision_name(WeightPrecision p) {
  switch (p) {
    case WeightPrecision::Fp16:
      return "fp16";
    case WeightPrecision::Int8:
      return "int8";
    case WeightPrecision::Fp32:
      break;
  }
  return "fp32";
}

WeightPrecision parse_precision(const std::string& word) {
  for (WeightPrecision p : {WeightPrecision::Fp32, WeightPrecision::Fp16, WeightPrecision::Int8})
    if (word == precision_name(p)) return p;
  throw Error("unknown precision '" + word + "' (choose fp32, fp16 or int8)");
}

bool lowerable(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return dims.size() == 2 && n >= kMinLowered;
}

WeightPrecision PrecisionPlan::at(size_t index, const std::vector<int64_t>& dims) const {
  if (!per_layer()) return lowerable(dims) ? weights : WeightPrecision::Fp32;
  if (index >= per_tensor.size())
    throw Error(source, "", "lists " + std::to_string(per_tensor.size()) + " tensors; the model has more (tensor " +
                                std::to_string(index) + " has no precision)");
  const WeightPrecision p = per_tensor[index];
  if (p != WeightPrecision::Fp32 && !lowerable(dims)) {
    std::string shape;
    for (int64_t d : dims) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    throw Error(source, "", "tensor " + std::to_string(index) + " (" + (shape.empty() ? "a scalar" : shape) + ") is " +
                                precision_name(p) + ", but only matrices of at least " + std::to_string(kMinLowered) +
                                " values are stored lower: give it fp32");
  }
  return p;
}

void PrecisionPlan::check_count(size_t count) const {
  if (per_layer() && per_tensor.size() != count)
    throw Error(source, "", "lists " + std::to_string(per_tensor.size()) + " tensors; the model has " +
                                std::to_string(count) + " (the card's precision.tensors, in order)");
}

PrecisionPlan PrecisionPlan::read(const std::string& file) {
  const nlohmann::json j = parse_json_text(read_whole_file(file), file, "is not JSON");
  if (!j.is_object() || !j.contains("tensors") || !j["tensors"].is_array() || j["tensors"].empty())
    throw Error(file, "", "needs \"tensors\": a list of fp32, fp16 or int8, one per weight tensor of the card");
  PrecisionPlan plan;
  plan.source = file;
  for (size_t i = 0; i < j["tensors"].size(); ++i) {
    const nlohmann::json& v = j["tensors"][i];
    if (!v.is_string()) throw Error(file, "", "tensors[" + std::to_string(i) + "] is not a string (fp32, fp16 or int8)");
    try {
      plan.per_tensor.push_back(parse_precision(v.get<std::string>()));
    } catch (const Error& e) {
      throw Error(file, "", "tensors[" + std::to_string(i) + "]: " + e.what());
    }
  }
  return plan;
}

void quantize_rows(const std::vector<float>& data, int64_t rows, std::vector<int8_t>& q, std::vector<float>& scale) {
  const int64_t cols = rows > 0 ? static_cast<int64_t>(data.size()) / rows : 0;
  q.resize(data.size());
  scale.assign(static_cast<size_t>(rows), 1.0f);
  for (int64_t r = 0; r < rows; ++r) {
    float most = 0;
    for (int64_t c = 0; c < cols; ++c) most = std::max(most, std::abs(data[r * cols + c]));
    if (most > 0) scale[r] = most / 127.0f;
    for (int64_t c = 0; c < cols; ++c)
      q[r * cols + c] = static_cast<int8_t>(std::clamp(std::nearbyint(data[r * cols + c] / scale[r]), -127.0f, 127.0f));
  }
}

std::vector<float> computed_values(const std::vector<float>& data, const std::vector<int64_t>& dims, WeightPrecision p) {
  if (p == WeightPrecision::Fp32 || !lowerable(dims)) return data;
  std::vector<float> out(data.size());
  if (p == WeightPrecision::Fp16) {
    for (size_t i = 0; i < data.size(); ++i) out[i] = static_cast<float>(c10::Half(data[i]));
    return out;
  }
  std::vector<int8_t> q;
  std::vector<float> scale;
  quantize_rows(data, dims[0], q, scale);
  const size_t cols = data.size() / static_cast<size_t>(dims[0]);
  for (size_t i = 0; i < data.size(); ++i) out[i] = static_cast<float>(q[i]) * scale[i / cols];
  return out;
}

std::string weight_value(OnnxBuilder& b, const std::vector<float>& data, const std::vector<int64_t>& dims,
                         WeightPrecision p, const std::string& hint, PrecisionReport* report) {
  const bool lower = p != WeightPrecision::Fp32 && lowerable(dims);
  std::string value;
  if (!lower) {
    value = b.floats(data, dims, hint);
  } else if (p == WeightPrecision::Fp16) {
    std::vector<uint16_t> half(data.size());
    for (size_t i = 0; i < data.size(); ++i) half[i] = c10::Half(data[i]).x;
    const std::string h = b.initializer(onnx::TensorProto::FLOAT16, half.data(), half.size() * 2, dims, hint + "16");
    value = b.op("Cast", {h}, {{"to", int64_t{onnx::TensorProto::FLOAT}}}, hint);
  } else {
    std::vector<int8_t> q;
    std::vector<float> scale;
    quantize_rows(data, dims[0], q, scale);
    const std::vector<int8_t> zero(scale.size(), 0);
    const std::string qv = b.initializer(onnx::TensorProto::INT8, q.data(), q.size(), dims, hint + "8");
    const std::string zv = b.initializer(onnx::TensorProto::INT8, zero.data(), zero.size(), {dims[0]}, hint + "_zp");
    value = b.op("DequantizeLinear", {qv, b.floats(scale, {dims[0]}, hint + "_scale"), zv}, {{"axis", int64_t{0}}}, hint);
  }
  if (report) report->tensors.push_back({value, dims, lower ? p : WeightPrecision::Fp32});
  return value;
}

nlohmann::json PrecisionReport::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  int64_t lowered = 0, kept = 0;
  for (const Tensor& t : tensors) {
    list.push_back({{"name", t.name}, {"dims", t.dims}, {"precision", precision_name(t.precision)},
                    {"lowerable", lowerable(t.dims)}});
    (t.precision == WeightPrecision::Fp32 ? kept : lowered) += 1;
  }
  return {{"weights", per_layer ? "per-layer" : precision_name(weights)}, {"lowered", lowered}, {"kept_fp32", kept}, {"tensors", std::move(list)}};
}

}  // namespace fastslow::exporter
