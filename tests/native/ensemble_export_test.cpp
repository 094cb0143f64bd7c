// Exporting an ensemble folder as one model: the LibTorch ensemble's scores,
// the ONNX graph's structure, the card, loading the export back, and the
// ensembles that cannot be exported. ONNX Runtime's scores against
// LibTorch's are compared in web/tests/onnx_parity.test.mjs.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "export/ensemble_export.h"
#include "export/export_onnx.h"
#include "export/model_card_json.h"
#include "fastslow/error.h"
#include "fastslow/features/layout_context.h"
#include "fastslow/rank/model_card.h"
#include "model_test_graphs.h"
#include "models/ensemble_model.h"
#include "models/registry.h"
#include "test_support.h"
#include "train/dataset.h"
#include "train/ensemble_spec.h"
#include "train/loaded_run.h"
#include "train/run_dir.h"

namespace fastslow::exporter {
namespace {

constexpr int64_t kNodeWidth = 12;

models::ModelOptions layout_options(const std::string& name, int64_t hidden, int64_t config_width) {
  models::ModelOptions o;
  o.kind = "layout";
  o.name = name;
  o.node_feat_width = kNodeWidth;
  o.config_feat_width = config_width;
  o.hidden = hidden;
  o.layers = 2;
  return o;
}

// Three model types of unequal weights and scales; focus over 18 layout
// values reads the layout context, which the others do not.
models::EnsembleModel three_members() {
  torch::manual_seed(5);
  std::vector<models::EnsembleMember> members;
  const std::vector<std::tuple<std::string, int64_t, double, double>> specs = {
      {"sage", 16, 0.5, 2.0}, {"attn", 8, 0.3, 0.25}, {"focus", 16, 0.2, 1.5}};
  for (const auto& [name, hidden, weight, scale] : specs) {
    const models::ModelOptions o = layout_options(name, hidden, 18);
    members.push_back({o, models::make_model(o), weight, scale});
  }
  models::EnsembleModel e(std::move(members));
  e->eval();
  return e;
}

TEST(EnsembleExport, TheModelScoresTheWeightedSumOfItsMembersOverTheirScales) {
  models::EnsembleModel e = three_members();
  const models::GraphTensors g = test::random_graph(40, kNodeWidth, 3, 6);
  const torch::Tensor feat = test::random_layout_configs(9, 6, 18);
  torch::NoGradGuard no_grad;
  const torch::Tensor got = e->forward(g, feat).to(torch::kFloat64);
  torch::Tensor want = torch::zeros({9}, torch::kFloat64);
  for (const models::EnsembleMember& m : e->members())
    want += m.weight * m.model->forward(g, feat).to(torch::kFloat64) / m.scale;
  ASSERT_EQ(got.sizes(), want.sizes());
  EXPECT_TRUE(torch::allclose(got, want, 1e-5, 1e-7)) << got << want;
  // Not the plain mean: the weights and scales matter.
  torch::Tensor mean = torch::zeros({9}, torch::kFloat64);
  for (const models::EnsembleMember& m : e->members()) mean += m.model->forward(g, feat).to(torch::kFloat64) / 3.0;
  EXPECT_FALSE(torch::allclose(got, mean, 1e-3, 1e-5));
}

TEST(EnsembleExport, OneOnnxGraphHoldsEveryMemberBehindASingleModelsInputsAndOutput) {
  models::EnsembleModel e = three_members();
  models::ModelOptions o = e->members().front().options;
  o.name = "ensemble";
  const onnx::ModelProto proto = export_onnx(*e, o);
  EXPECT_NO_THROW(check_onnx(proto));
  // The inputs of the one member that reads the most (focus with the layout
  // context), so the page feeds it as it feeds a single focus model.
  const std::vector<TensorSpec> single = model_inputs(layout_options("focus", 16, 18));
  ASSERT_EQ(proto.graph().input_size(), static_cast<int>(single.size()));
  for (size_t i = 0; i < single.size(); ++i) EXPECT_EQ(proto.graph().input(static_cast<int>(i)).name(), single[i].name);
  EXPECT_EQ(single.back().name, "config_context");
  ASSERT_EQ(proto.graph().output_size(), 1);
  EXPECT_EQ(proto.graph().output(0).name(), "scores");
  EXPECT_EQ(proto.graph().output(0).type().tensor_type().shape().dim(0).dim_param(), "batch");

  // Each member's weights, under its own prefix, all of them.
  std::map<std::string, int64_t> stored;
  std::vector<float> constants;  // unprefixed scalars: the combination's factors among them
  for (const auto& t : proto.graph().initializer()) {
    if (t.data_type() != onnx::TensorProto::FLOAT) continue;
    const int64_t n = static_cast<int64_t>(t.raw_data().size() / 4);
    const auto slash = t.name().find('/');
    if (slash != std::string::npos) {
      stored[t.name().substr(0, slash)] += n;
    } else if (n == 1) {
      float v;
      std::memcpy(&v, t.raw_data().data(), 4);
      constants.push_back(v);
    }
  }
  ASSERT_EQ(stored.size(), 3u);
  for (size_t i = 0; i < e->members().size(); ++i) {
    int64_t params = 0;
    for (const auto& p : e->members()[i].model->parameters()) params += p.numel();
    const int64_t n = stored["m" + std::to_string(i)];
    EXPECT_GE(n, params) << "member " << i;
    EXPECT_LE(n, params + 128) << "member " << i;
    // weight / scale: 0.25, 1.2, 0.1333...
    const float c = e->coefficient(i);
    EXPECT_NE(std::find(constants.begin(), constants.end(), c), constants.end()) << "no factor " << c;
  }
  EXPECT_FLOAT_EQ(e->coefficient(1), 0.3f / 0.25f);
}

TEST(EnsembleExport, ATileEnsembleTakesATileModelsInputs) {
  torch::manual_seed(2);
  std::vector<models::EnsembleMember> members;
  for (const char* name : {"mlp", "gcn"}) {
    models::ModelOptions o;
    o.kind = "tile";
    o.name = name;
    o.node_feat_width = kNodeWidth;
    o.config_feat_width = 24;
    o.hidden = 8;
    o.layers = 1;
    members.push_back({o, models::make_model(o), 0.5, 1.0});
  }
  models::EnsembleModel e(members);
  models::ModelOptions o = members.front().options;
  o.name = "ensemble";
  const onnx::ModelProto proto = export_onnx(*e, o);
  EXPECT_NO_THROW(check_onnx(proto));
  const std::vector<TensorSpec> single = model_inputs(members.front().options);
  ASSERT_EQ(proto.graph().input_size(), static_cast<int>(single.size()));
  for (size_t i = 0; i < single.size(); ++i) EXPECT_EQ(proto.graph().input(static_cast<int>(i)).name(), single[i].name);
}

// A run folder as `fastslow train` leaves it, with the files export reads:
// config.json, stats.json, best.pt.
struct RunSpec {
  std::string model = "sage";
  int64_t hidden = 16;
  int khop = 1;
  int64_t config_width = 10;
  int64_t eval_chunk = 256;
  double stats_shift = 0;  // moves the node statistics' means
};

void write_run(const std::string& dir, const RunSpec& s, uint64_t seed) {
  train::TrainOptions o;
  o.kind = "layout";
  o.data = "/data";
  o.collection = "layout:xla:random";
  o.model = s.model;
  o.hidden = s.hidden;
  o.layers = 2;
  o.khop = s.khop;
  o.config_feat_width = s.config_width;
  o.eval_chunk = s.eval_chunk;
  o.seed = seed;
  o.out = dir;
  o.apply_defaults();
  train::Normalizer norm;
  norm.layout_context = LayoutContext::kVersion;  // as training records it
  for (int64_t i = 0; i < kNodeWidth; ++i) {
    norm.node.log_scale.push_back(i % 3 == 0);
    norm.node.mean.push_back(0.25 * static_cast<double>(i) + s.stats_shift);
    norm.node.stddev.push_back(1.0 + static_cast<double>(i));
  }
  const train::RunDir run(dir);
  run.create();
  run.write_json("config.json", o.to_json());
  run.write_json("stats.json", norm.to_json());
  torch::manual_seed(seed);
  models::RankModel model = models::make_model(train::model_options(o, norm));
  run.save_model(*model, "best.pt");
}

std::string write_ensemble(const std::string& dir, const std::vector<std::string>& runs, train::Combine combine,
                           const std::vector<double>& weights, const std::vector<double>& scales) {
  train::EnsembleSpec spec;
  spec.kind = "layout";
  spec.combine = combine;
  for (size_t i = 0; i < runs.size(); ++i) spec.members.push_back({runs[i], weights[i], scales[i], 0.5 + 0.1 * i});
  spec.fitted_on = {{"split", "valid"}, {"graphs", 3}, {"score", 0.7}};
  std::filesystem::create_directories(dir);
  spec.write(dir);
  return dir;
}

TEST(EnsembleExport, TheCardDescribesEveryMemberAndTheExportLoadsBackAsTheSameEnsemble) {
  test::TempDir tmp;
  write_run(tmp.file("runs/seed-0"), {"sage", 16}, 1);
  write_run(tmp.file("runs/attn-1"), {"attn", 8, 1, 10, 64}, 2);
  const std::string ens = write_ensemble(tmp.file("ens"), {tmp.file("runs/seed-0"), tmp.file("runs/attn-1")},
                                         train::Combine::Weighted, {0.7, 0.3}, {2.0, 0.5});
  const LoadedEnsemble e = load_ensemble(ens);
  ASSERT_EQ(e.runs.size(), 2u);
  EXPECT_EQ(e.chunk, 64);  // the smaller member chunk: attn's
  const nlohmann::json card = ensemble_card_json(e, 1234);
  const ModelCard c = ModelCard::from_json(card.dump(), "out/model.json");
  EXPECT_EQ(c.model, "ensemble");
  EXPECT_EQ(c.chunk, 64);
  EXPECT_EQ(c.khop, 1);
  EXPECT_EQ(c.collection, "layout:xla:random");
  ASSERT_TRUE(c.ensemble.has_value());
  EXPECT_EQ(c.ensemble->combine, "weighted");
  ASSERT_EQ(c.ensemble->members.size(), 2u);
  EXPECT_EQ(c.ensemble->members[0].run, "seed-0");
  EXPECT_EQ(c.ensemble->members[1].run, "attn-1");
  EXPECT_EQ(c.ensemble->members[1].model, "attn");
  EXPECT_EQ(c.ensemble->members[1].hidden, 8);
  EXPECT_DOUBLE_EQ(c.ensemble->members[0].weight, 0.7);
  EXPECT_DOUBLE_EQ(c.ensemble->members[1].scale, 0.5);
  EXPECT_DOUBLE_EQ(c.ensemble->members[1].valid_score, 0.6);
  EXPECT_EQ(c.ensemble->members[1].weights_file, "member-1.pt");
  int64_t total = 0;
  for (size_t i = 0; i < 2; ++i) {
    int64_t own = 0;
    for (const auto& p : e.runs[i].model->parameters()) own += p.numel();
    EXPECT_EQ(card["ensemble"]["members"][i]["parameters"].get<int64_t>(), own);
    total += own;
  }
  EXPECT_EQ(card["model"]["parameters"].get<int64_t>(), total);
  EXPECT_EQ(card["validation"]["score"].get<double>(), 0.7);

  // Written as `fastslow export` writes it, and loaded as `fastslow rank` loads it.
  const train::RunDir out(tmp.file("out"));
  out.create();
  for (size_t i = 0; i < e.runs.size(); ++i) out.save_model(*e.runs[i].model, member_weights_file(i));
  out.write_json("model.json", card);
  const ExportedModel loaded = load_exported(out.path());
  const models::GraphTensors g = test::random_graph(30, kNodeWidth, 8, 5);
  const torch::Tensor feat = test::random_layout_configs(7, 5, 10);
  torch::NoGradGuard no_grad;
  const torch::Tensor want = e.model->forward(g, feat);
  EXPECT_TRUE(torch::equal(loaded.model->forward(g, feat), want));
  // and not one member alone.
  EXPECT_FALSE(torch::allclose(e.runs[0].model->forward(g, feat), want));
  // A member's weights missing: named.
  std::filesystem::remove(out.file("member-1.pt"));
  const std::string msg = test::error_of([&] { load_exported(out.path()); });
  EXPECT_NE(msg.find("member-1.pt"), std::string::npos) << msg;
}

TEST(EnsembleExport, ARankEnsembleIsRefusedNamingItsFile) {
  test::TempDir tmp;
  write_run(tmp.file("a"), {"sage"}, 1);
  write_run(tmp.file("b"), {"attn", 8}, 2);
  const std::string ens =
      write_ensemble(tmp.file("ens"), {tmp.file("a"), tmp.file("b")}, train::Combine::Rank, {0.5, 0.5}, {1, 1});
  const std::string msg = test::error_of([&] { load_ensemble(ens); });
  EXPECT_NE(msg.find(tmp.file("ens") + "/ensemble.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank positions need every config of a graph at once"), std::string::npos) << msg;
  EXPECT_NE(msg.find("export a mean or weighted ensemble"), std::string::npos) << msg;
}

TEST(EnsembleExport, MembersThatPrepareGraphsDifferentlyAreRefusedNamingTheMemberAndTheDifference) {
  test::TempDir tmp;
  write_run(tmp.file("base"), {"sage"}, 1);
  const std::vector<std::pair<RunSpec, std::string>> cases = {
      {{"attn", 8, 1, 10, 256, 0.5}, "normalisation statistics (stats.json) differ"},
      {{"attn", 8, 2}, "khop 2, not 1"},
      {{"focus", 16, 1, 18}, "config_feat_width 18, not 10"},
  };
  int k = 0;
  for (const auto& [spec, want] : cases) {
    const std::string other = tmp.file("other-" + std::to_string(k++));
    write_run(other, spec, 2);
    const std::string ens = write_ensemble(tmp.file("ens-" + std::to_string(k)), {tmp.file("base"), other},
                                           train::Combine::Mean, {0.5, 0.5}, {1, 1});
    const std::string msg = test::error_of([&] { load_ensemble(ens); });
    EXPECT_NE(msg.find("ensemble.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("member " + other + " prepares graphs differently"), std::string::npos) << msg;
    EXPECT_NE(msg.find(want), std::string::npos) << msg;
  }
  // Other model types and sizes over the same preparation are fine.
  write_run(tmp.file("same"), {"focus", 32, 1, 10, 64}, 3);
  EXPECT_NO_THROW(load_ensemble(write_ensemble(tmp.file("ens-ok"), {tmp.file("base"), tmp.file("same")},
                                               train::Combine::Mean, {0.5, 0.5}, {1, 1})));
}

}  // namespace
}  // namespace fastslow::exporter
