#include "export/ensemble_export.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "export/export_onnx.h"
#include "export/model_card_json.h"
#include "fastslow/error.h"
#include "train/run_files.h"
#include "train/run_dir.h"

namespace fastslow::exporter {

namespace {

namespace fs = std::filesystem;

std::string folder_name(const std::string& path) {
  const fs::path p = fs::path(path).lexically_normal();
  return (p.has_filename() ? p.filename() : p.parent_path().filename()).string();
}

// What member `r` must share with the first member `first` for one prepared
// graph to serve both; "" when it does.
std::string preparation_difference(const train::LoadedRun& first, const train::LoadedRun& r) {
  const train::TrainOptions &a = first.options, &b = r.options;
  auto differs = [](const std::string& what, const auto& x, const auto& y) {
    return what + " " + std::to_string(y) + ", not " + std::to_string(x);
  };
  if (a.kind != b.kind) return "kind " + b.kind + ", not " + a.kind;
  if (a.khop != b.khop) return differs("khop", a.khop, b.khop);
  if (first.model_options.config_feat_width != r.model_options.config_feat_width)
    return differs("config_feat_width", first.model_options.config_feat_width, r.model_options.config_feat_width);
  if (first.norm.tile_features != r.norm.tile_features)
    return std::string("tiling features ") + (r.norm.tile_features ? "on" : "off") + ", not " +
           (first.norm.tile_features ? "on" : "off");
  if (first.model_options.wide_nodes != r.model_options.wide_nodes)
    return differs("wide_nodes (the per-program table's configurable nodes)", first.model_options.wide_nodes,
                   r.model_options.wide_nodes);
  const std::string pa = a.graph.empty() ? "" : fs::path(a.graph).filename().string();
  const std::string pb = b.graph.empty() ? "" : fs::path(b.graph).filename().string();
  if (pa != pb)
    return "program graph " + (pb.empty() ? std::string("none (a collection run)") : pb) + ", not " +
           (pa.empty() ? std::string("none (a collection run)") : pa);
  if (first.model_options.opcode_vocab != r.model_options.opcode_vocab)
    return differs("opcode vocabulary", first.model_options.opcode_vocab, r.model_options.opcode_vocab);
  const train::Normalizer na = train::read_stats(train::RunDir(a.out)), nb = train::read_stats(train::RunDir(b.out));
  if (na.layout_context != nb.layout_context)
    return "layout context version " + std::to_string(nb.layout_context) + " (0: none recorded), not " +
           std::to_string(na.layout_context) + " (stats.json): train the older member again";
  if (na.to_json() != nb.to_json()) return "normalisation statistics (stats.json) differ";
  return "";
}

}  // namespace

std::string member_weights_file(size_t index) { return "member-" + std::to_string(index) + ".pt"; }

LoadedEnsemble load_ensemble(const std::string& dir) {
  LoadedEnsemble e;
  e.dir = dir;
  e.spec = train::EnsembleSpec::read(dir);
  const std::string file = train::RunDir(dir).file("ensemble.json");
  if (e.spec.combine == train::Combine::Rank)
    throw Error(file, "",
                "combine \"rank\": rank positions need every config of a graph at once; the exported model scores "
                "a chunk at a time: export a mean or weighted ensemble");
  std::vector<models::EnsembleMember> members;
  for (const train::EnsembleMember& m : e.spec.members) {
    train::LoadedRun r = train::load_run(m.run, "cpu");
    if (r.options.kind != e.spec.kind)
      throw Error(file, "", "member " + m.run + " is a " + r.options.kind + " run; the ensemble ranks " + e.spec.kind +
                                " graphs");
    if (!e.runs.empty()) {
      const std::string diff = preparation_difference(e.runs.front(), r);
      if (!diff.empty())
        throw Error(file, "", "member " + m.run + " prepares graphs differently from member " +
                                  e.spec.members.front().run + ": " + diff +
                                  " (an exported ensemble's members see one graph prepared once from the card)");
    }
    members.push_back({r.model_options, r.model, m.weight, m.scale});
    const int64_t chunk = *r.options.eval_chunk;
    e.chunk = e.runs.empty() ? chunk : std::min(e.chunk, chunk);
    e.runs.push_back(std::move(r));
  }
  e.options = e.runs.front().model_options;
  e.options.name = "ensemble";
  for (const train::LoadedRun& r : e.runs) {
    e.options.hidden = std::max(e.options.hidden, r.model_options.hidden);
    e.options.layers = std::max(e.options.layers, r.model_options.layers);
  }
  e.model = models::EnsembleModel(std::move(members)).ptr();
  return e;
}

nlohmann::json ensemble_card_json(const LoadedEnsemble& e, int64_t onnx_bytes) {
  nlohmann::json j = model_card_json(e.runs.front(), e.spec.members.front().run, onnx_bytes);
  nlohmann::json members = nlohmann::json::array();
  int64_t total = 0;
  for (size_t i = 0; i < e.runs.size(); ++i) {
    const train::LoadedRun& r = e.runs[i];
    const train::EnsembleMember& m = e.spec.members[i];
    const nlohmann::json own = i == 0 ? j : model_card_json(r, m.run, 0);
    const int64_t parameters = own["model"]["parameters"].get<int64_t>();
    nlohmann::json training = own["training"];
    training.erase("last_epoch");  // its validation is the member's "validation"
    total += parameters;
    members.push_back({{"run", folder_name(m.run)},
                       {"model", r.model_options.name},
                       {"hidden", r.model_options.hidden},
                       {"layers", r.model_options.layers},
                       {"join", r.model_options.join},
                       {"parameters", parameters},
                       {"weight", m.weight},
                       {"scale", m.scale},
                       {"valid_score", std::isfinite(m.valid_score) ? nlohmann::json(m.valid_score) : nlohmann::json(nullptr)},
                       {"weights_file", member_weights_file(i)},
                       {"training", training},
                       {"validation", own["validation"]}});
  }
  // Hidden and layers: the largest member's (each member's own are in
  // ensemble.members); readers of older cards still find both.
  j["model"] = {{"name", "ensemble"},
                {"hidden", e.options.hidden},
                {"layers", e.options.layers},
                {"opcode_vocab", e.options.opcode_vocab},
                {"parameters", total},
                {"members", members.size()}};
  if (e.options.wide_nodes > 0) j["model"]["wide_nodes"] = e.options.wide_nodes;
  nlohmann::json files = nlohmann::json::array();
  for (size_t i = 0; i < e.runs.size(); ++i) files.push_back(member_weights_file(i));
  j["weights"] = files;
  j["inputs"] = tensor_specs_json(model_inputs(*e.model, e.options));
  j["batching"]["chunk"] = e.chunk;
  // Each member's training is in its entry; what the ensemble as a whole
  // was measured on is what its weights and scales were fitted on.
  j["training"] = nullptr;
  j["validation"] = e.spec.fitted_on.empty() ? nlohmann::json(nullptr) : e.spec.fitted_on;
  j["ensemble"] = {{"combine", train::combine_name(e.spec.combine)},
                   {"folder", folder_name(e.dir)},
                   {"members", members},
                   {"fitted_on", e.spec.fitted_on}};
  return j;
}

}  // namespace fastslow::exporter
