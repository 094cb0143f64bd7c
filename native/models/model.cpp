#include "models/model.h"

#include <malloc.h>

#include <limits>

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

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

void check_kind(const std::string& kind) {
  if (kind != "tile" && kind != "layout")
    throw Error("unknown model kind '" + kind + "' (valid: tile, layout)");
}

}  // namespace

std::vector<std::string> model_names(const std::string& kind) {
  check_kind(kind);
  if (kind == "tile") return {"mlp", "sage", "gcn"};
  return {"sage", "attn", "focus"};
}

std::string default_model(const std::string& kind) {
  check_kind(kind);
  // tile: the MLP's sum over nodes keeps the kernel's sizes that the mean
  // pooling of sage and gcn loses; with the core's tiling features and
  // mse+hinge it scored 0.950 against sage's 0.858 (generated tile:xla
  // small, mean over 5 seeds).
  return kind == "tile" ? "mlp" : "focus";
}

std::string baseline_model(const std::string& kind) {
  check_kind(kind);
  return kind == "tile" ? "mlp" : "sage";
}

void keep_freed_cpu_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
}

RankModel make_model(const ModelOptions& o) {
  check_kind(o.kind);
  const auto names = model_names(o.kind);
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
  if (o.kind == "tile") {
    if (o.name == "mlp") return TileMlp(o).ptr();
    if (o.name == "sage") return TileSage(o).ptr();
    if (o.name == "gcn") return TileGcn(o).ptr();
  } else {
    if (o.name == "sage") return LayoutSage(o).ptr();
    if (o.name == "attn") return LayoutAttn(o).ptr();
    if (o.name == "focus") return LayoutFocus(o).ptr();
  }
  throw Error("unknown " + o.kind + " model '" + o.name + "' (valid: " + join_names(names) + ")");
}

}  // namespace fastslow::models
