#include "export/export_onnx.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "models/model.h"
#include "models/program_model.h"
#include "models/registry.h"
#include "test_support.h"

namespace fastslow::exporter {
namespace {

struct Spec {
  std::string kind, name, join;
  int64_t config_width = 0;  // 0: 24 for tile, 10 for layout
  int64_t wide_nodes = 0;    // per-program: a wide table over this many configurable nodes
};

// Every model type the trainer offers.
std::vector<Spec> all_specs() {
  std::vector<Spec> specs;
  for (const char* kind : {"tile", "layout"})
    for (const std::string& name : models::model_names(kind))
      for (const char* join : {"early", "late"}) {
        if (std::string(join) == "late" && !(std::string(kind) == "tile" && name != "mlp")) continue;
        specs.push_back({kind, name, join});
      }
  // The published 18 layout values per node switch on the layout context.
  specs.push_back({"layout", "focus", "early", 18});
  // Per-program models: a wide table beside focus, with and without row codes.
  specs.push_back({"layout", "focus", "early", 18, 7});
  specs.push_back({"layout", "focus", "early", 23, 4});
  return specs;
}

models::ModelOptions options_of(const Spec& s) {
  models::ModelOptions o;
  o.kind = s.kind;
  o.name = s.name;
  o.join = s.join;
  o.node_feat_width = 70;
  o.config_feat_width = s.config_width ? s.config_width : s.kind == "tile" ? 24 : 10;
  o.hidden = 16;
  o.layers = 2;
  o.wide_nodes = s.wide_nodes;
  return o;
}

std::string dim_str(const Dim& d) {
  return std::holds_alternative<int64_t>(d) ? std::to_string(std::get<int64_t>(d)) : std::get<std::string>(d);
}

std::string dim_str(const onnx::TensorShapeProto_Dimension& d) {
  return d.has_dim_param() ? d.dim_param() : std::to_string(d.dim_value());
}

TEST(Export, EveryModelTypePassesTheCheckerAndShapeInference) {
  const std::vector<Spec> specs = all_specs();
  EXPECT_EQ(specs.size(), 11u);  // tile mlp, sage x2, gcn x2; layout sage, attn, focus x2, focus+wide x2
  for (const Spec& s : specs) {
    SCOPED_TRACE(s.kind + " " + s.name + " " + s.join + " wide " + std::to_string(s.wide_nodes));
    torch::manual_seed(1);
    const models::ModelOptions o = options_of(s);
    models::RankModel model = models::make_model(o);
    const onnx::ModelProto proto = export_onnx(*model, o);
    EXPECT_NO_THROW(check_onnx(proto));
    ASSERT_EQ(proto.opset_import_size(), 1);
    EXPECT_GE(proto.opset_import(0).version(), 17);

    // Inputs as the card lists them, with the named dynamic axes.
    const std::vector<TensorSpec> want = model_inputs(o);
    ASSERT_EQ(proto.graph().input_size(), static_cast<int>(want.size()));
    for (size_t i = 0; i < want.size(); ++i) {
      const auto& in = proto.graph().input(static_cast<int>(i));
      EXPECT_EQ(in.name(), want[i].name);
      const auto& shape = in.type().tensor_type().shape();
      ASSERT_EQ(shape.dim_size(), static_cast<int>(want[i].shape.size()));
      for (int d = 0; d < shape.dim_size(); ++d) EXPECT_EQ(dim_str(shape.dim(d)), dim_str(want[i].shape[d]));
    }
    EXPECT_EQ(proto.graph().input(0).type().tensor_type().shape().dim(0).dim_param(), "nodes");
    EXPECT_EQ(proto.graph().input(2).type().tensor_type().shape().dim(0).dim_param(), "edges");
    ASSERT_EQ(proto.graph().output_size(), 1);
    EXPECT_EQ(proto.graph().output(0).name(), "scores");
    EXPECT_EQ(proto.graph().output(0).type().tensor_type().shape().dim(0).dim_param(), "batch");

    // Every trained weight is in the file (plus a few small constants).
    int64_t params = 0, stored = 0;
    for (const auto& p : model->parameters()) params += p.numel();
    for (const auto& t : proto.graph().initializer())
      if (t.data_type() == onnx::TensorProto::FLOAT) stored += static_cast<int64_t>(t.raw_data().size() / 4);
    EXPECT_GE(stored, params);
    EXPECT_LE(stored, params + 128);

    // Round trip through the wire format.
    std::string bytes;
    ASSERT_TRUE(proto.SerializeToString(&bytes));
    onnx::ModelProto back;
    ASSERT_TRUE(back.ParseFromString(bytes));
    EXPECT_EQ(back.graph().node_size(), proto.graph().node_size());
  }
}

TEST(Export, TheWeightsWrittenAreTheModelsOwn) {
  torch::manual_seed(3);
  const models::ModelOptions o = options_of({"tile", "mlp", "early"});
  models::RankModel model = models::make_model(o);
  const onnx::ModelProto proto = export_onnx(*model, o);
  // The opcode table is stored as is: find it and compare value by value.
  const torch::Tensor table = model->named_parameters()["encoder.opcode.weight"].contiguous();
  bool found = false;
  for (const auto& t : proto.graph().initializer()) {
    if (t.name().rfind("opcode_table", 0) != 0) continue;
    found = true;
    ASSERT_EQ(t.raw_data().size(), static_cast<size_t>(table.numel()) * 4);
    EXPECT_EQ(std::memcmp(t.raw_data().data(), table.data_ptr<float>(), t.raw_data().size()), 0);
  }
  EXPECT_TRUE(found);
}

// Lower-precision weights: every model type still passes the checker; the
// parameters are stored once, lowered where they are a matrix of at least 64
// values (float16, or int8 with a float32 scale per row), as the report
// says; the opcode table read back from its int8 rows and scales is within
// half a step of the model's own.
TEST(Export, LowerPrecisionWeightsPassTheCheckerAndReadBackWithinHalfAStep) {
  for (WeightPrecision p : {WeightPrecision::Fp16, WeightPrecision::Int8}) {
    for (const Spec& s : all_specs()) {
      SCOPED_TRACE(std::string(precision_name(p)) + " " + s.kind + " " + s.name + " " + s.join);
      torch::manual_seed(1);
      const models::ModelOptions o = options_of(s);
      models::RankModel model = models::make_model(o);
      PrecisionReport report;
      const onnx::ModelProto proto = export_onnx(*model, o, p, &report);
      EXPECT_NO_THROW(check_onnx(proto));
      int64_t params = 0, lowered_values = 0, stored_values = 0;
      for (const auto& q : model->parameters()) params += q.numel();
      for (const auto& t : report.tensors) {
        int64_t n = 1;
        for (int64_t d : t.dims) n *= d;
        stored_values += n;
        const bool lower = t.dims.size() == 2 && n >= kMinLowered;
        EXPECT_EQ(t.precision, lower ? p : WeightPrecision::Fp32) << t.name;
        if (lower) lowered_values += n;
      }
      // Every parameter once, but a few scalars and a folded bias written as constants.
      EXPECT_LE(stored_values, params);
      EXPECT_GE(stored_values, params - 128);
      EXPECT_GT(lowered_values, params / 2);
      const int32_t type = p == WeightPrecision::Fp16 ? onnx::TensorProto::FLOAT16 : onnx::TensorProto::INT8;
      int64_t typed = 0;
      for (const auto& t : proto.graph().initializer())
        if (t.data_type() == type && t.dims_size() == 2) typed += static_cast<int64_t>(t.dims(0) * t.dims(1));
      EXPECT_EQ(typed, lowered_values);
      EXPECT_EQ(report.to_json()["weights"], precision_name(p));
    }
  }
  // int8 by hand: a row's scale is its largest |value| / 127.
  std::vector<int8_t> q;
  std::vector<float> scale;
  quantize_rows({0.5f, -1.0f, 0.25f, 0.0f, 0.0f, 0.0f}, 2, q, scale);
  EXPECT_EQ(q, (std::vector<int8_t>{64, -127, 32, 0, 0, 0}));
  EXPECT_FLOAT_EQ(scale[0], 1.0f / 127.0f);
  EXPECT_FLOAT_EQ(scale[1], 1.0f);
  // The opcode table back from int8: within half a step of each row's scale.
  torch::manual_seed(3);
  const models::ModelOptions o = options_of({"tile", "mlp", "early"});
  models::RankModel model = models::make_model(o);
  const onnx::ModelProto proto = export_onnx(*model, o, WeightPrecision::Int8);
  const torch::Tensor table = model->named_parameters()["encoder.opcode.weight"].contiguous();
  const float* w = table.data_ptr<float>();
  const int64_t rows = table.size(0), cols = table.size(1);
  std::vector<float> want(w, w + table.numel());
  quantize_rows(want, rows, q, scale);
  bool found = false;
  for (const auto& t : proto.graph().initializer()) {
    if (t.name().rfind("opcode_table", 0) != 0 || t.data_type() != onnx::TensorProto::INT8 || t.dims_size() != 2) continue;
    found = true;
    ASSERT_EQ(t.raw_data().size(), static_cast<size_t>(rows * cols));
    for (int64_t i = 0; i < rows * cols; ++i) {
      const auto stored = static_cast<int8_t>(t.raw_data()[i]);
      EXPECT_EQ(stored, q[i]);
      EXPECT_LE(std::abs(stored * scale[i / cols] - w[i]), 0.5f * scale[i / cols] + 1e-7f);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_NE(test::error_of([] { parse_precision("int4"); }).find("int4"), std::string::npos);
}

// A per-layer plan: each weight tensor at its own precision, in the order
// the card lists them. The lowerable ones alternate int8, fp16 and fp32; the
// report and the initializers follow the plan tensor by tensor, and the
// model still passes the checker. A plan that does not fit the model is an
// error naming its file: a tensor too few, a vector asked lower, a bad word.
TEST(Export, APerLayerPlanSetsEachTensorsPrecision) {
  torch::manual_seed(2);
  const models::ModelOptions o = options_of({"layout", "focus", "early", 18, 7});
  models::RankModel model = models::make_model(o);
  PrecisionReport fp32;
  export_onnx(*model, o, WeightPrecision::Fp32, &fp32);
  ASSERT_GT(fp32.tensors.size(), 6u);
  PrecisionPlan plan;
  plan.source = "plan.json";
  int64_t want16 = 0, want8 = 0, k = 0;
  for (const PrecisionReport::Tensor& t : fp32.tensors) {
    WeightPrecision p = WeightPrecision::Fp32;
    if (lowerable(t.dims)) {
      p = std::vector<WeightPrecision>{WeightPrecision::Int8, WeightPrecision::Fp16, WeightPrecision::Fp32}[k++ % 3];
      if (p == WeightPrecision::Fp16) want16 += t.dims[0] * t.dims[1];
      if (p == WeightPrecision::Int8) want8 += t.dims[0] * t.dims[1];
    }
    plan.per_tensor.push_back(p);
  }
  ASSERT_GE(k, 3);
  PrecisionReport report;
  const onnx::ModelProto proto = export_onnx(*model, o, plan, &report);
  EXPECT_NO_THROW(check_onnx(proto));
  ASSERT_EQ(report.tensors.size(), plan.per_tensor.size());
  for (size_t i = 0; i < plan.per_tensor.size(); ++i) EXPECT_EQ(report.tensors[i].precision, plan.per_tensor[i]) << i;
  int64_t got16 = 0, got8 = 0;
  for (const auto& t : proto.graph().initializer())
    if (t.dims_size() == 2) {
      if (t.data_type() == onnx::TensorProto::FLOAT16) got16 += static_cast<int64_t>(t.dims(0) * t.dims(1));
      if (t.data_type() == onnx::TensorProto::INT8) got8 += static_cast<int64_t>(t.dims(0) * t.dims(1));
    }
  EXPECT_EQ(got16, want16);
  EXPECT_EQ(got8, want8);
  const nlohmann::json card = report.to_json();
  EXPECT_EQ(card["weights"], "per-layer");
  EXPECT_EQ(card["tensors"].size(), plan.per_tensor.size());
  EXPECT_EQ(card["tensors"][0]["lowerable"], lowerable(fp32.tensors[0].dims));

  PrecisionPlan short_plan = plan;
  short_plan.per_tensor.pop_back();
  std::string e = test::error_of([&] { export_onnx(*model, o, short_plan); });
  EXPECT_NE(e.find("plan.json"), std::string::npos) << e;
  EXPECT_NE(e.find("has no precision"), std::string::npos) << e;
  PrecisionPlan long_plan = plan;
  long_plan.per_tensor.push_back(WeightPrecision::Fp32);
  e = test::error_of([&] { export_onnx(*model, o, long_plan); });
  EXPECT_NE(e.find("lists " + std::to_string(long_plan.per_tensor.size()) + " tensors"), std::string::npos) << e;
  size_t vector_at = 0;
  while (lowerable(fp32.tensors[vector_at].dims)) ++vector_at;
  PrecisionPlan vector_lowered = plan;
  vector_lowered.per_tensor[vector_at] = WeightPrecision::Fp16;
  e = test::error_of([&] { export_onnx(*model, o, vector_lowered); });
  EXPECT_NE(e.find("tensor " + std::to_string(vector_at) + " ("), std::string::npos) << e;
  EXPECT_NE(e.find("give it fp32"), std::string::npos) << e;

  test::TempDir dir;
  std::ofstream(dir.file("good.json")) << R"({"tensors": ["fp32", "int8", "fp16"]})";
  const PrecisionPlan read = PrecisionPlan::read(dir.file("good.json"));
  EXPECT_EQ(read.per_tensor,
            (std::vector<WeightPrecision>{WeightPrecision::Fp32, WeightPrecision::Int8, WeightPrecision::Fp16}));
  EXPECT_EQ(read.source, dir.file("good.json"));
  std::ofstream(dir.file("word.json")) << R"({"tensors": ["fp32", "int4"]})";
  e = test::error_of([&] { PrecisionPlan::read(dir.file("word.json")); });
  EXPECT_NE(e.find("word.json"), std::string::npos) << e;
  EXPECT_NE(e.find("tensors[1]"), std::string::npos) << e;
  std::ofstream(dir.file("none.json")) << R"({"layers": []})";
  EXPECT_NE(test::error_of([&] { PrecisionPlan::read(dir.file("none.json")); }).find("none.json"), std::string::npos);
}

// A model's weights lowered in place hold what the lowered export computes
// with: exported again in fp32, every lowered tensor is computed_values of
// the original (fp16 rounded; int8 rows at their scales, which the stored
// int8 rows times their scales are, above) and every other one unchanged,
// for every model type, its transposed and sliced matrices included.
TEST(Export, LoweredWeightsInPlaceAreWhatTheLoweredExportComputesWith) {
  const auto floats_by_name = [](const onnx::ModelProto& proto) {
    std::map<std::string, std::vector<float>> m;
    for (const auto& t : proto.graph().initializer())
      if (t.data_type() == onnx::TensorProto::FLOAT) {
        std::vector<float> v(t.raw_data().size() / sizeof(float));
        std::memcpy(v.data(), t.raw_data().data(), v.size() * sizeof(float));
        m[t.name()] = v;
      }
    return m;
  };
  for (WeightPrecision p : {WeightPrecision::Fp16, WeightPrecision::Int8}) {
    for (const Spec& s : all_specs()) {
      SCOPED_TRACE(std::string(precision_name(p)) + " " + s.kind + " " + s.name + " " + s.join);
      const models::ModelOptions o = options_of(s);
      torch::manual_seed(1);
      models::RankModel original = models::make_model(o);
      torch::manual_seed(1);
      models::RankModel lowered = models::make_model(o);
      PrecisionReport before, after;
      const auto a = floats_by_name(export_onnx(*original, o, WeightPrecision::Fp32, &before));
      PrecisionReport low;
      lower_weights(*lowered, o, p, &low);
      const auto b = floats_by_name(export_onnx(*lowered, o, WeightPrecision::Fp32, &after));
      ASSERT_EQ(before.tensors.size(), after.tensors.size());
      ASSERT_EQ(low.tensors.size(), before.tensors.size());
      int64_t changed = 0;
      for (size_t i = 0; i < before.tensors.size(); ++i) {
        const PrecisionReport::Tensor& t = before.tensors[i];
        ASSERT_TRUE(a.count(t.name) && b.count(after.tensors[i].name)) << t.name;
        const std::vector<float>& want_from = a.at(t.name);
        const std::vector<float>& got = b.at(after.tensors[i].name);
        EXPECT_EQ(got, computed_values(want_from, t.dims, p)) << i << " " << t.name;
        EXPECT_EQ(low.tensors[i].precision, lowerable(t.dims) ? p : WeightPrecision::Fp32);
        changed += got != want_from;
      }
      EXPECT_GT(changed, 0);
    }
  }
}

TEST(Export, APerProgramModelsDeepPartIsScaledAsInLibTorch) {
  // score = wide + scale * gate * deep: the graph's factor on the deep
  // scores must carry the scale (the residuals' spread) as well as the gate.
  torch::manual_seed(4);
  const models::ModelOptions o = options_of({"layout", "focus", "early", 18, 7});
  models::RankModel model = models::make_model(o);
  auto* program = dynamic_cast<models::ProgramModelImpl*>(model.get());
  ASSERT_NE(program, nullptr);
  torch::NoGradGuard no_grad;
  program->gate.fill_(0.5);
  program->scale.fill_(0.01);
  const onnx::ModelProto proto = export_onnx(*model, o);
  std::vector<float> gates;
  for (const auto& t : proto.graph().initializer())
    if (t.name().rfind("gate", 0) == 0) {
      ASSERT_EQ(t.raw_data().size(), 4u);
      float v;
      std::memcpy(&v, t.raw_data().data(), 4);
      gates.push_back(v);
    }
  ASSERT_EQ(gates.size(), 1u);
  EXPECT_FLOAT_EQ(gates[0], 0.005f);
}

TEST(Export, CheckerErrorsBecomeFastslowErrors) {
  const models::ModelOptions o = options_of({"layout", "attn", "early"});
  models::RankModel model = models::make_model(o);
  onnx::ModelProto proto = export_onnx(*model, o);
  // Drop the node that produces the first intermediate value: its users now
  // read an undefined name.
  proto.mutable_graph()->mutable_node()->DeleteSubrange(0, 1);
  const std::string msg = test::error_of([&] { check_onnx(proto); });
  EXPECT_NE(msg.find("ONNX check failed"), std::string::npos) << msg;
}

TEST(Export, AModelWithoutAWriterIsRefusedByName) {
  struct Unknown : models::RankModelImpl {
    torch::Tensor forward(const models::GraphTensors&, const torch::Tensor& c) override { return c.sum(1); }
  };
  Unknown m;
  models::ModelOptions o = options_of({"tile", "mlp", "early"});
  o.name = "mystery";
  const std::string msg = test::error_of([&] { export_onnx(m, o); });
  EXPECT_NE(msg.find("mystery"), std::string::npos) << msg;
}

}  // namespace
}  // namespace fastslow::exporter
