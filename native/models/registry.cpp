#include "models/registry.h"

#include <algorithm>
#include <cstdio>

#include "fastslow/error.h"
#include "models/layout_attn.h"
#include "models/layout_focus.h"
#include "models/layout_sage.h"
#include "models/program_model.h"
#include "models/tile_gcn.h"
#include "models/tile_mlp.h"
#include "models/tile_sage.h"

namespace fastslow::models {

namespace {

void check_kind(const std::string& kind) {
  if (kind != "tile" && kind != "layout") throw Error("unknown model kind '" + kind + "' (valid: tile, layout)");
}

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

const ModelEntry& with_role(const std::string& kind, ModelRole role) {
  check_kind(kind);
  for (const ModelEntry& e : model_registry())
    if (e.kind == kind && (e.role & role)) return e;
  throw Error("the model table has no " + std::string(role == kDefault ? "default" : "baseline") + " for " + kind);
}

}  // namespace

const std::vector<ModelEntry>& model_registry() {
#define FASTSLOW_MODEL_ENTRY(kind, name, Class, role, lr, chunk) \
  ModelEntry{#kind, #name, role, lr, chunk, [](const ModelOptions& o) -> RankModel { return Class(o).ptr(); }},
  static const std::vector<ModelEntry> table = {FASTSLOW_MODEL_TABLE(FASTSLOW_MODEL_ENTRY)};
#undef FASTSLOW_MODEL_ENTRY
  return table;
}

const ModelEntry& model_entry(const std::string& kind, const std::string& name) {
  check_kind(kind);
  for (const ModelEntry& e : model_registry())
    if (e.kind == kind && e.name == name) return e;
  throw Error("unknown " + kind + " model '" + name + "' (valid: " + join(model_names(kind)) + ")");
}

std::vector<std::string> model_names(const std::string& kind) {
  check_kind(kind);
  std::vector<std::string> names;
  for (const ModelEntry& e : model_registry())
    if (e.kind == kind) names.push_back(e.name);
  return names;
}

std::string default_model(const std::string& kind) { return with_role(kind, kDefault).name; }
std::string baseline_model(const std::string& kind) { return with_role(kind, kBaseline).name; }

std::string models_help() {
  std::string s;
  for (const char* kind : {"tile", "layout"})
    s += std::string(s.empty() ? "" : "; ") + kind + ": " + join(model_names(kind)) + " (default " +
         default_model(kind) + ")";
  return s;
}

std::string model_defaults_help(std::string (*value)(const ModelEntry&)) {
  std::vector<std::pair<std::string, std::string>> groups;  // value, models
  for (const ModelEntry& e : model_registry()) {
    const std::string v = value(e);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == v; });
    if (it == groups.end()) it = groups.insert(groups.end(), {v, ""});
    it->second += (it->second.empty() ? "" : ", ") + e.kind + " " + e.name;
  }
  std::string s;
  for (const auto& [v, names] : groups) s += (s.empty() ? "" : "; ") + v + " (" + names + ")";
  return s;
}

RankModel make_model(const ModelOptions& o) {
  const ModelEntry& entry = model_entry(o.kind, o.name);
  const std::string what = o.kind + " model '" + o.name + "'";
  if (o.join != "early" && o.join != "late")
    throw Error("unknown join '" + o.join + "' for " + what + " (valid: early, late)");
  if (o.hidden < 1) throw Error(what + ": hidden must be >= 1, got " + std::to_string(o.hidden));
  if (o.layers < 0) throw Error(what + ": layers must be >= 0, got " + std::to_string(o.layers));
  if (o.node_feat_width < 0 || o.config_feat_width < 0)
    throw Error(what + ": feature widths must be >= 0, got " + std::to_string(o.node_feat_width) + " and " +
                std::to_string(o.config_feat_width));
  if (o.opcode_vocab < 1) throw Error(what + ": opcode vocabulary must be >= 1");
  if (o.wide_nodes < 0) throw Error(what + ": wide_nodes must be >= 0");
  if (o.wide_nodes > 0) {
    if (o.kind != "layout") throw Error(what + ": a wide table is for layout graphs");
    ModelOptions deep = o;
    deep.wide_nodes = 0;
    return ProgramModel(o, make_model(deep)).ptr();
  }
  return entry.make(o);
}

}  // namespace fastslow::models
