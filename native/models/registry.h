// Every ranking model fastslow has, in one table: the trainer builds models
// and takes their defaults from it, `train --help` lists it, and the ONNX
// exporter expands it into one writer call per model class, so a row
// without an ONNX writer for its class does not compile. Adding a model is
// adding a row (and its XxxImpl + TORCH_MODULE file).
//
// Per-model defaults and why:
//  - tile mlp is the default: its sum over nodes keeps the kernel's sizes
//    that the mean pooling of sage and gcn loses; with the core's tiling
//    features and mse+hinge it scored 0.950 against sage's 0.858 (generated
//    tile:xla small, mean over 5 seeds). It is also the paper's baseline.
//  - layout focus is the default and trains best at lr 3e-3, its
//    log-sum-exp readout having a learned scale (generated
//    layout:xla:random small: 0.83 valid Kendall against 0.74 at 1e-3);
//    layout sage is the paper's baseline.
//  - attn attends across the configs of a batch, so its ranking chunk is
//    part of the model (64); the others score each config alone and take
//    larger chunks (256).
#pragma once

#include <string>
#include <vector>

#include "models/model.h"

namespace fastslow::models {

// X(kind, name, Class, role, lr, eval_chunk): kind and name are tokens
// (stringified by the readers), Class names ClassImpl / Class.
#define FASTSLOW_MODEL_TABLE(X)                        \
  X(tile, mlp, TileMlp, kDefault | kBaseline, 1e-3, 256) \
  X(tile, sage, TileSage, kNoRole, 1e-3, 256)            \
  X(tile, gcn, TileGcn, kNoRole, 1e-3, 256)              \
  X(layout, sage, LayoutSage, kBaseline, 1e-3, 256)      \
  X(layout, attn, LayoutAttn, kNoRole, 1e-3, 64)         \
  X(layout, focus, LayoutFocus, kDefault, 3e-3, 256)

enum ModelRole : unsigned {
  kNoRole = 0,
  kDefault = 1,   // what the kind trains when --model is left out
  kBaseline = 2,  // the TpuGraphs paper's model of the kind, for comparisons
};

struct ModelEntry {
  std::string kind;  // "tile" | "layout"
  std::string name;
  unsigned role = kNoRole;
  double lr = 1e-3;        // peak learning rate when --lr is left out
  int64_t eval_chunk = 0;  // configs per forward when ranking, when --eval-chunk is left out
  RankModel (*make)(const ModelOptions&) = nullptr;
};

// In table order.
const std::vector<ModelEntry>& model_registry();

// Builds the model the options name. Throws fastslow::Error on an unknown
// kind/name/join or bad sizes, listing the valid names. wide_nodes > 0 wraps
// the named model in a per-program model (program_model.h).
RankModel make_model(const ModelOptions& options);

// Throws fastslow::Error on an unknown kind or name, listing the valid names.
const ModelEntry& model_entry(const std::string& kind, const std::string& name);
std::vector<std::string> model_names(const std::string& kind);
// The kind's default model and the paper's baseline.
std::string default_model(const std::string& kind);
std::string baseline_model(const std::string& kind);

// For --help: "tile: mlp, sage, gcn (default mlp); layout: ...", and a
// per-model default grouped by value: "1e-3 (tile mlp, ...), 3e-3 (layout focus)".
std::string models_help();
std::string model_defaults_help(std::string (*value)(const ModelEntry&));

}  // namespace fastslow::models
