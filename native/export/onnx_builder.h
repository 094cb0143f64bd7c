// A thin writer of ONNX graphs over the protobuf API (libonnx): values get
// fresh names, constants become initializers, and one call adds one node.
// Knows nothing about the models; export_onnx.cpp composes them from this.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace fastslow::exporter {

// A dimension of a graph input or output: fixed, or named and dynamic.
using Dim = std::variant<int64_t, std::string>;

struct Attr {
  std::string name;
  std::variant<int64_t, float, std::string, std::vector<int64_t>> value;
};

class OnnxBuilder {
 public:
  explicit OnnxBuilder(onnx::GraphProto* graph) : graph_(graph) {}

  void input(const std::string& name, int32_t elem_type, const std::vector<Dim>& dims);
  void output(const std::string& value, const std::string& name, int32_t elem_type, const std::vector<Dim>& dims);

  // Initializers; returns the value's name.
  std::string floats(const std::vector<float>& data, const std::vector<int64_t>& dims, const std::string& hint = "c");
  std::string ints(const std::vector<int64_t>& data, const std::vector<int64_t>& dims, const std::string& hint = "c");
  std::string scalar(float v) { return floats({v}, {}, "s"); }
  // Any element type, as little-endian bytes (float16 and int8 weights).
  std::string initializer(int32_t data_type, const void* data, size_t bytes, const std::vector<int64_t>& dims,
                          const std::string& hint);

  // A float tensor of the given shape (an int64 1-D value) filled with `value`.
  std::string filled(const std::string& shape, float value, const std::string& hint = "fill");

  // Names made from here on start with `prefix` (e.g. "m0/" for an
  // ensemble's first member), so each part of a combined graph stays
  // recognisable in the file.
  void set_prefix(std::string prefix) { prefix_ = std::move(prefix); }

  // One node with one output; returns the output's name.
  std::string op(const std::string& type, const std::vector<std::string>& inputs,
                 const std::vector<Attr>& attrs = {}, const std::string& hint = "");
  // One node with `outputs` outputs (Unique's four); their names in order.
  std::vector<std::string> ops(const std::string& type, const std::vector<std::string>& inputs, int outputs,
                               const std::vector<Attr>& attrs = {}, const std::string& hint = "");

 private:
  std::string fresh(const std::string& hint);
  onnx::GraphProto* graph_;
  int64_t counter_ = 0;
  std::string prefix_;
};

}  // namespace fastslow::exporter
