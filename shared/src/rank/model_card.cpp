#include "fastslow/rank/model_card.h"

#include <limits>

#include <nlohmann/json.hpp>

#include <cmath>

#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "fastslow/io/json_text.h"
#include "fastslow/features/layout_context.h"
#include "fastslow/features/tile_features.h"

namespace fastslow {

namespace {

const nlohmann::json& field(const nlohmann::json& j, const char* key, const std::string& what) {
  if (!j.contains(key)) throw Error(what, "", std::string("model card has no \"") + key + "\"");
  return j.at(key);
}

int64_t int_field(const nlohmann::json& j, const char* key, const std::string& what, int64_t min) {
  const nlohmann::json& v = field(j, key, what);
  if (!v.is_number_integer() || v.get<int64_t>() < min)
    throw Error(what, "", std::string("model card: \"") + key + "\" must be an integer >= " + std::to_string(min) +
                              ", got " + v.dump());
  return v.get<int64_t>();
}

std::string string_field(const nlohmann::json& j, const char* key, const std::string& what) {
  const nlohmann::json& v = field(j, key, what);
  if (!v.is_string()) throw Error(what, "", std::string("model card: \"") + key + "\" must be a string");
  return v.get<std::string>();
}

// An optional string field. (json::value would throw nlohmann's type_error,
// not Error, on a field of another type.)
std::string string_field_or(const nlohmann::json& j, const char* key, const char* fallback, const std::string& what) {
  return j.contains(key) ? string_field(j, key, what) : fallback;
}

double number_field(const nlohmann::json& j, const char* key, const std::string& what) {
  const nlohmann::json& v = field(j, key, what);
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    throw Error(what, "", std::string("model card: \"") + key + "\" must be a number, got " + v.dump());
  return v.get<double>();
}

// The card's "ensemble" object; the exported graph already combines the
// members, so what is checked here is what a reader relies on: the
// combination is one ONNX can compute, and every member's weights are named.
ModelCard::Ensemble parse_ensemble(const nlohmann::json& e, const std::string& what) {
  if (!e.is_object()) throw Error(what, "", "model card: \"ensemble\" must be an object");
  ModelCard::Ensemble out;
  out.combine = string_field(e, "combine", what);
  if (out.combine == "rank")
    throw Error(what, "", "model card: an ensemble combining rank positions cannot be exported (it needs every "
                          "config of a graph at once; the exported model scores a chunk at a time)");
  if (out.combine != "mean" && out.combine != "weighted")
    throw Error(what, "", "model card: ensemble.combine must be mean or weighted, not '" + out.combine + "'");
  const nlohmann::json& members = field(e, "members", what);
  if (!members.is_array() || members.empty())
    throw Error(what, "", "model card: ensemble.members must list at least one member");
  double sum = 0;
  for (const nlohmann::json& m : members) {
    ModelCard::EnsembleMember x;
    x.run = string_field(m, "run", what);
    x.model = string_field(m, "model", what);
    x.join = string_field_or(m, "join", "early", what);
    x.hidden = int_field(m, "hidden", what, 1);
    x.layers = int_field(m, "layers", what, 0);
    x.parameters = m.contains("parameters") ? int_field(m, "parameters", what, 0) : 0;
    x.weight = number_field(m, "weight", what);
    x.scale = number_field(m, "scale", what);
    x.valid_score = m.contains("valid_score") && m["valid_score"].is_number() ? m["valid_score"].get<double>() : NAN;
    x.weights_file = string_field(m, "weights_file", what);
    if (x.weight < 0) throw Error(what, "", "model card: ensemble member " + x.run + " has a negative weight");
    if (!(x.scale > 0)) throw Error(what, "", "model card: ensemble member " + x.run + " has a scale that is not positive");
    if (x.weights_file.empty() || x.weights_file.find('/') != std::string::npos)
      throw Error(what, "", "model card: ensemble member " + x.run + ": weights_file must name a file beside the card");
    sum += x.weight;
    out.members.push_back(std::move(x));
  }
  if (std::abs(sum - 1) > 1e-6)
    throw Error(what, "", "model card: ensemble member weights sum to " + std::to_string(sum) + ", not 1");
  return out;
}

}  // namespace

ModelCard ModelCard::from_json(const std::string& text, const std::string& what) {
  const nlohmann::json j = parse_json_text(text, what, "not a JSON model card");
  const auto format = j.find("format");  // end() unless j is an object holding it
  if (format == j.end() || !format->is_string() || format->get<std::string>() != "fastslow-model")
    throw Error(what, "", "not a fastslow model card (expected \"format\": \"fastslow-model\")");
  const int64_t version = int_field(j, "format_version", what, 1);
  if (version != kFormatVersion)
    throw Error(what, "", "model card format version " + std::to_string(version) + "; this build reads version " +
                              std::to_string(kFormatVersion));
  ModelCard c;
  const std::string kind = string_field(j, "kind", what);
  if (kind != "tile" && kind != "layout") throw Error(what, "", "model card: unknown kind '" + kind + "'");
  c.kind = kind == "tile" ? GraphKind::Tile : GraphKind::Layout;
  const nlohmann::json& m = field(j, "model", what);
  c.model = string_field(m, "name", what);
  c.join = string_field_or(m, "join", "early", what);
  c.hidden = int_field(m, "hidden", what, 1);
  c.layers = int_field(m, "layers", what, 0);
  c.opcode_vocab = int_field(m, "opcode_vocab", what, 1);
  c.node_feat_width = int_field(j, "node_feat_width", what, 0);
  c.config_feat_width = int_field(j, "config_feat_width", what, 0);
  const nlohmann::json& norm = field(j, "normalization", what);
  c.node_stats = FeatureStats::from_json(field(norm, "node", what), what);
  if (c.node_stats.width() != c.node_feat_width)
    throw Error(what, "", "model card: node statistics cover " + std::to_string(c.node_stats.width()) +
                              " columns, node_feat_width is " + std::to_string(c.node_feat_width));
  if (c.kind == GraphKind::Tile) {
    c.config_stats = FeatureStats::from_json(field(norm, "config", what), what);
    const auto tf = norm.find("tile_features");
    if (tf != norm.end()) {
      if (!tf->is_boolean()) throw Error(what, "", "model card: normalization.tile_features must be true or false");
      c.tile_features = tf->get<bool>();
    }
    if (c.tile_features && c.config_feat_width != kTileConfigColumns + kTileDerived)
      throw Error(what, "", "model card: a model reading the tiling features has " +
                                std::to_string(kTileConfigColumns + kTileDerived) + " config columns, not " +
                                std::to_string(c.config_feat_width));
    if (c.config_stats.width() != c.config_feat_width)
      throw Error(what, "", "model card: config statistics cover " + std::to_string(c.config_stats.width()) +
                                " columns, config_feat_width is " + std::to_string(c.config_feat_width));
  }
  if (m.contains("wide_nodes")) c.wide_nodes = int_field(m, "wide_nodes", what, 0);
  if (c.wide_nodes > 0) {
    if (c.kind != GraphKind::Layout) throw Error(what, "", "model card: a wide table (model.wide_nodes) is for layout models");
    const nlohmann::json& data = field(j, "data", what);
    const nlohmann::json& p = field(data, "program", what);
    c.program.graph = string_field(p, "graph", what);
    c.program.nodes = int_field(p, "nodes", what, 1);
    c.program.edges = int_field(p, "edges", what, 0);
    c.program.config_nodes = int_field(p, "config_nodes", what, 1);
    if (c.program.config_nodes != c.wide_nodes)
      throw Error(what, "", "model card: the wide table covers " + std::to_string(c.wide_nodes) +
                                " configurable nodes, the program has " + std::to_string(c.program.config_nodes));
  }
  if (j.contains("data") && j["data"].is_object() && j["data"].contains("collection") &&
      !j["data"]["collection"].is_null()) {
    const std::string id = string_field(j["data"], "collection", what);
    CollectionId parsed;
    try {
      parsed = parse_collection_id(id);
    } catch (const Error& e) {
      throw Error(what, "", "model card: data.collection: " + e.problem());
    }
    if (graph_kind_name(parsed.kind) != kind)
      throw Error(what, "", "model card: data.collection '" + id + "' is not a " + kind + " collection");
    c.collection = id;
  }
  if (j.contains("onnx") && j["onnx"].is_object() && j["onnx"].contains("bytes"))
    c.onnx_bytes = int_field(j["onnx"], "bytes", what, 0);
  if (j.contains("precision") && j["precision"].is_object()) {
    c.weight_precision = string_field_or(j["precision"], "weights", "fp32", what);
    if (c.weight_precision != "fp32" && c.weight_precision != "fp16" && c.weight_precision != "int8" &&
        c.weight_precision != "per-layer")
      throw Error(what, "", "model card: precision.weights '" + c.weight_precision +
                                "' is not fp32, fp16, int8 or per-layer");
  }
  if (j.contains("training_data") && !j["training_data"].is_null()) {
    c.training_data = DataProfile::from_json(j["training_data"], what);
    if (c.training_data->kind != c.kind) throw Error(what, "", "model card: the training-data profile is of the other graph kind");
  }
  if (j.contains("ensemble") && !j["ensemble"].is_null()) c.ensemble = parse_ensemble(j["ensemble"], what);
  if (c.model == "ensemble" && !c.ensemble)
    throw Error(what, "", "model card: model \"ensemble\" without an \"ensemble\" object naming its members");
  // A model fitted to another version of the layout context would score
  // with features it never saw: refused, naming the card.
  const bool layout = c.kind == GraphKind::Layout;
  bool reads_context = model_reads_layout_context(layout, c.model, c.config_feat_width);
  if (c.ensemble)
    for (const EnsembleMember& m : c.ensemble->members)
      reads_context = reads_context || model_reads_layout_context(layout, m.model, c.config_feat_width);
  if (reads_context)
    check_layout_context_version(norm.contains("layout_context") ? int_field(norm, "layout_context", what, 1) : 0,
                                 c.node_feat_width, what);
  const int64_t khop = int_field(field(j, "pruning", what), "khop", what, 0);
  // Hops beyond int's range reach every node anyway: refused, never wrapped.
  if (khop > std::numeric_limits<int>::max())
    throw Error(what, "", "model card: \"khop\" " + std::to_string(khop) + " is out of range (at most " +
                              std::to_string(std::numeric_limits<int>::max()) + ")");
  c.khop = static_cast<int>(khop);
  c.chunk = int_field(field(j, "batching", what), "chunk", what, 1);
  return c;
}

int64_t ModelCard::graph_config_width() const {
  return config_feat_width - (tile_features ? kTileDerived : 0);
}

void ModelCard::check_fits(const std::string& file, GraphKind graph_kind, int64_t graph_node_feat_width,
                           int64_t graph_config_feat_width) const {
  if (graph_kind != kind)
    throw Error(file, "", std::string("is a ") + graph_kind_name(graph_kind) + " graph; the model ranks " +
                              graph_kind_name(kind) + " graphs");
  if (graph_node_feat_width != node_feat_width)
    throw Error(file, "node_feat",
                "has " + std::to_string(graph_node_feat_width) + " feature columns; the model was trained on " +
                    std::to_string(node_feat_width));
  if (graph_config_feat_width != graph_config_width())
    throw Error(file, kind == GraphKind::Tile ? "config_feat" : "node_config_feat",
                "has " + std::to_string(graph_config_feat_width) +
                    " config feature columns; the model was trained on " + std::to_string(graph_config_width()));
}

void ModelCard::check_program(const std::string& file, int64_t nodes, int64_t edges, int64_t config_nodes) const {
  if (wide_nodes <= 0) return;
  if (nodes == program.nodes && edges == program.edges && config_nodes == program.config_nodes) return;
  throw Error(file, "",
              "is not the program this per-program model was trained on (" + program.graph + ": " +
                  std::to_string(program.nodes) + " nodes, " + std::to_string(program.edges) + " edges, " +
                  std::to_string(program.config_nodes) + " configurable; this file: " + std::to_string(nodes) +
                  ", " + std::to_string(edges) + ", " + std::to_string(config_nodes) +
                  "): its table holds one weight per configurable node of that graph");
}

}  // namespace fastslow
