#include "export/onnx_builder.h"

#include <algorithm>

namespace fastslow::exporter {

namespace {

void set_type(onnx::ValueInfoProto* v, int32_t elem_type, const std::vector<Dim>& dims) {
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  auto* shape = t->mutable_shape();
  for (const Dim& d : dims) {
    auto* dim = shape->add_dim();
    if (std::holds_alternative<int64_t>(d))
      dim->set_dim_value(std::get<int64_t>(d));
    else
      dim->set_dim_param(std::get<std::string>(d));
  }
}

}  // namespace

std::string OnnxBuilder::fresh(const std::string& hint) {
  return prefix_ + (hint.empty() ? std::string("v") : hint) + "_" + std::to_string(counter_++);
}

void OnnxBuilder::input(const std::string& name, int32_t elem_type, const std::vector<Dim>& dims) {
  set_type(graph_->add_input(), elem_type, dims);
  graph_->mutable_input(graph_->input_size() - 1)->set_name(name);
}

void OnnxBuilder::output(const std::string& value, const std::string& name, int32_t elem_type,
                         const std::vector<Dim>& dims) {
  // A graph output must be produced by a node under its own name.
  op("Identity", {value}, {}, "");
  graph_->mutable_node(graph_->node_size() - 1)->set_output(0, name);
  auto* v = graph_->add_output();
  v->set_name(name);
  set_type(v, elem_type, dims);
}

std::string OnnxBuilder::initializer(int32_t data_type, const void* data, size_t bytes,
                                     const std::vector<int64_t>& dims, const std::string& hint) {
  auto* t = graph_->add_initializer();
  t->set_name(fresh(hint));
  t->set_data_type(data_type);
  for (int64_t d : dims) t->add_dims(d);
  // raw_data (little-endian bytes) keeps large weights compact and fast to load.
  t->set_raw_data(std::string(static_cast<const char*>(data), bytes));
  return t->name();
}

std::string OnnxBuilder::floats(const std::vector<float>& data, const std::vector<int64_t>& dims,
                                const std::string& hint) {
  return initializer(onnx::TensorProto::FLOAT, data.data(), data.size() * sizeof(float), dims, hint);
}

std::string OnnxBuilder::ints(const std::vector<int64_t>& data, const std::vector<int64_t>& dims,
                              const std::string& hint) {
  return initializer(onnx::TensorProto::INT64, data.data(), data.size() * sizeof(int64_t), dims, hint);
}

std::string OnnxBuilder::filled(const std::string& shape, float value, const std::string& hint) {
  const std::string out = op("ConstantOfShape", {shape}, {}, hint);
  auto* a = graph_->mutable_node(graph_->node_size() - 1)->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(1);
  t->add_float_data(value);
  return out;
}

std::string OnnxBuilder::op(const std::string& type, const std::vector<std::string>& inputs,
                            const std::vector<Attr>& attrs, const std::string& hint) {
  return ops(type, inputs, 1, attrs, hint).front();
}

std::vector<std::string> OnnxBuilder::ops(const std::string& type, const std::vector<std::string>& inputs, int outputs,
                                          const std::vector<Attr>& attrs, const std::string& hint) {
  auto* n = graph_->add_node();
  n->set_op_type(type);
  std::vector<std::string> out;
  for (int i = 0; i < outputs; ++i) out.push_back(fresh(hint.empty() ? type : hint));
  n->set_name(out.front());
  for (const std::string& in : inputs) n->add_input(in);
  for (const std::string& o : out) n->add_output(o);
  for (const Attr& a : attrs) {
    auto* p = n->add_attribute();
    p->set_name(a.name);
    if (std::holds_alternative<int64_t>(a.value)) {
      p->set_type(onnx::AttributeProto::INT);
      p->set_i(std::get<int64_t>(a.value));
    } else if (std::holds_alternative<float>(a.value)) {
      p->set_type(onnx::AttributeProto::FLOAT);
      p->set_f(std::get<float>(a.value));
    } else if (std::holds_alternative<std::string>(a.value)) {
      p->set_type(onnx::AttributeProto::STRING);
      p->set_s(std::get<std::string>(a.value));
    } else {
      p->set_type(onnx::AttributeProto::INTS);
      for (int64_t v : std::get<std::vector<int64_t>>(a.value)) p->add_ints(v);
    }
  }
  return out;
}

}  // namespace fastslow::exporter
