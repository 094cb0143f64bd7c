#include "export/model_card_json.h"

#include <torch/torch.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "export/export_onnx.h"
#include "models/ensemble_model.h"
#include "models/registry.h"
#include "train/run_files.h"
#include "fastslow/data/collection.h"
#include "train/data_sources.h"
#include "fastslow/error.h"
#include "fastslow/io/read_file.h"
#include "fastslow/data/graph_cache.h"
#include "train/run_dir.h"
#include "train/loaded_run.h"
#include "train/process.h"

#ifndef FASTSLOW_GIT_REVISION
#define FASTSLOW_GIT_REVISION "unknown"
#endif

namespace fastslow::exporter {

namespace {

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

nlohmann::json tensor_specs_json(const std::vector<TensorSpec>& specs) {
  nlohmann::json a = nlohmann::json::array();
  for (const TensorSpec& s : specs) {
    nlohmann::json shape = nlohmann::json::array();
    for (const Dim& d : s.shape)
      if (std::holds_alternative<int64_t>(d))
        shape.push_back(std::get<int64_t>(d));
      else
        shape.push_back(std::get<std::string>(d));
    a.push_back({{"name", s.name}, {"dtype", s.dtype}, {"shape", shape}});
  }
  return a;
}

namespace {

// Epochs trained and the last epoch's line, from log.jsonl.
nlohmann::json training_log(const train::RunDir& run) {
  const std::vector<nlohmann::json> lines = train::read_log(run);
  nlohmann::json out = {{"epochs_trained", static_cast<int64_t>(lines.size())}};
  if (!lines.empty()) out["last_epoch"] = lines.back();
  return out;
}

}  // namespace

std::string git_revision() { return FASTSLOW_GIT_REVISION; }

nlohmann::json model_card_json(const train::LoadedRun& run, const std::string& run_dir, int64_t onnx_bytes) {
  const train::TrainOptions& o = run.options;
  const models::ModelOptions& m = run.model_options;
  const train::RunDir dir(run_dir);
  int64_t parameters = 0;
  for (const auto& p : run.model->parameters()) parameters += p.numel();

  nlohmann::json j;
  j["format"] = "fastslow-model";
  j["format_version"] = ModelCard::kFormatVersion;
  j["kind"] = o.kind;
  nlohmann::json data = {{"mode", o.graph.empty() ? "collection" : "per-program"}};
  if (o.graph.empty()) {
    // A model of several collections (train::data_sources) names the first
    // one: the page IDs its submission rows with it; all are listed.
    const auto named = train::named_collections(o.collection);
    const CollectionId id = parse_collection_id(named.front().first);
    data["collection"] = id.str();
    data["source"] = id.source;
    data["search"] = id.search.empty() ? nlohmann::json(nullptr) : nlohmann::json(id.search);
    data["root"] = o.data;
    if (named.size() > 1) {
      nlohmann::json all = nlohmann::json::array();
      for (const auto& [collection, weight] : named) all.push_back({{"collection", collection}, {"weight", weight}});
      data["collections"] = all;
    }
  } else {
    data["graph"] = std::filesystem::path(o.graph).filename().string();
    data["holdout"] = o.holdout;
    data["valid_share"] = *o.valid_share;
    if (*o.wide == 1) {
      const CachedGraph g = CachedGraph::open(o.graph, {o.cache_dir(), o.khop});
      data["program"] = {{"graph", data["graph"]},
                         {"nodes", g.original_nodes},
                         {"edges", g.original_edges},
                         {"config_nodes", static_cast<int64_t>(g.pruned.config_positions.size())}};
    }
  }
  j["data"] = data;
  j["model"] = {{"name", m.name},   {"join", m.join},
                {"hidden", m.hidden}, {"layers", m.layers},
                {"opcode_vocab", m.opcode_vocab}, {"parameters", parameters}};
  if (m.wide_nodes > 0) j["model"]["wide_nodes"] = m.wide_nodes;
  j["onnx"] = {{"file", "model.onnx"}, {"opset", kOpset}, {"bytes", onnx_bytes}};
  j["weights"] = "model.pt";
  j["inputs"] = tensor_specs_json(model_inputs(m));
  j["outputs"] = tensor_specs_json(model_outputs());
  j["node_feat_width"] = m.node_feat_width;
  j["config_feat_width"] = m.config_feat_width;
  j["normalization"] = run.norm.to_json();
  j["pruning"] = {{"khop", o.khop}};
  j["batching"] = {{"chunk", *o.eval_chunk},
                   {"order", "unique configs (duplicate groups, numbered by first appearance) in order, "
                             "cut into chunks of this many; scores depend on the chunk for models that "
                             "attend across a batch"}};
  nlohmann::json training = {{"loss", o.loss},
                             {"epochs", *o.epochs},
                             {"configs_per_graph", *o.configs_per_graph},
                             {"lr", *o.lr},
                             {"weight_decay", *o.weight_decay},
                             {"seed", o.seed}};
  training.update(training_log(dir));
  j["training"] = training;
  if (const std::optional<nlohmann::json> found = train::read_metrics(dir)) {
    const nlohmann::json& metrics = *found;
    j["validation"] = {{"split", metrics.value("split", "valid")},
                       {"score", metrics.value("score", nlohmann::json(nullptr))},
                       {"mean", metrics.value("mean", nlohmann::json(nullptr))},
                       {"graphs", metrics.contains("graphs") ? metrics["graphs"].size() : 0}};
  } else {
    j["validation"] = nullptr;
  }
  j["training_data"] = train::read_profile(dir).value_or(nlohmann::json(nullptr));
  j["created"] = utc_now();
  j["fastslow_version"] = FASTSLOW_VERSION;
  j["git_revision"] = git_revision();
  return j;
}

models::ModelOptions model_options_from_card(const ModelCard& card) {
  models::ModelOptions m;
  m.kind = graph_kind_name(card.kind);
  m.name = card.model;
  m.join = card.join;
  m.node_feat_width = card.node_feat_width;
  m.config_feat_width = card.config_feat_width;
  m.opcode_vocab = card.opcode_vocab;
  m.hidden = card.hidden;
  m.layers = card.layers;
  m.wide_nodes = card.wide_nodes;
  return m;
}

ModelCard read_card(const std::string& dir) {
  const std::string card_path = dir + "/model.json";
  const std::string text = read_whole_file(card_path, "cannot open (is " + dir + " a folder from `fastslow export`?)");
  return ModelCard::from_json(text, card_path);
}

ExportedModel load_exported(const std::string& dir, const std::string& device) {
  ExportedModel e;
  e.card = read_card(dir);
  const train::RunDir folder(dir);
  if (e.card.ensemble) {
    std::vector<models::EnsembleMember> members;
    for (const ModelCard::EnsembleMember& m : e.card.ensemble->members) {
      models::ModelOptions o = model_options_from_card(e.card);
      o.name = m.model;
      o.join = m.join;
      o.hidden = m.hidden;
      o.layers = m.layers;
      models::RankModel model = models::make_model(o);
      folder.load_model(*model, m.weights_file);
      members.push_back({o, model, m.weight, m.scale});
    }
    e.model = models::EnsembleModel(std::move(members)).ptr();
  } else {
    e.model = models::make_model(model_options_from_card(e.card));
    folder.load_model(*e.model, "model.pt");
  }
  e.model->to(train::pick_device(device));
  e.model->eval();
  return e;
}

}  // namespace fastslow::exporter
