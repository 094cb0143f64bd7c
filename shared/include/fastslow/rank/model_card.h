// The model card (model.json) that travels with an exported model.onnx: what
// the model expects and how a graph must be prepared for it. The terminal
// (`fastslow rank`) and the page read it through this one parser, so both
// refuse a graph the model cannot score with the same message.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fastslow/data/data_profile.h"
#include "fastslow/features/feature_stats.h"
#include "fastslow/graph/graph.h"

namespace fastslow {

struct ModelCard {
  static constexpr int kFormatVersion = 1;

  GraphKind kind = GraphKind::Layout;
  std::string model;  // tile: mlp | sage | gcn; layout: sage | attn | focus
  std::string join = "early";
  int64_t hidden = 0, layers = 0, opcode_vocab = 0;
  int64_t node_feat_width = 0;
  int64_t config_feat_width = 0;  // per config (tile) or per configurable node (layout), as the model reads it
  // Tile: the model reads the published columns followed by the core's
  // derived tiling features (tile_features.h), standardised together.
  bool tile_features = false;
  // How many config columns a graph must have for this model.
  int64_t graph_config_width() const;
  FeatureStats node_stats;
  FeatureStats config_stats;  // tile only: config features are standardised too
  // Per-program layout models carry a table over one graph's configurable
  // nodes (model.wide_nodes > 0): they rank that graph's configs only, and
  // `program` says which graph (by name and size; 0 nodes = any graph).
  int64_t wide_nodes = 0;
  struct Program {
    std::string graph;
    int64_t nodes = 0, edges = 0, config_nodes = 0;
  } program;
  // The collection a collection-mode model was trained on (data.collection,
  // e.g. "layout:xla:random"): the page's submission rows are IDed with it.
  // Per-program cards have none.
  std::optional<std::string> collection;
  // What the model was trained on (cards exported before it was recorded
  // have none): rankings check graphs against it (distribution_shift).
  std::optional<DataProfile> training_data;
  // An exported ensemble (model.name "ensemble"): one ONNX graph scoring
  // sum over members of weight * member score / scale, a fixed scale
  // standing in for the per-graph standardisation a chunk of configs cannot
  // see. Its members share every field above that prepares a graph (kind,
  // widths, statistics, khop, wide table), so the page prepares a graph once
  // for all of them; `fastslow rank` loads each member's weights_file.
  struct EnsembleMember {
    std::string run;  // the member's run folder name
    std::string model, join = "early";
    int64_t hidden = 0, layers = 0, parameters = 0;
    double weight = 0, scale = 1;
    double valid_score = 0;  // NaN when unknown
    std::string weights_file;  // e.g. "member-0.pt", beside model.json
  };
  struct Ensemble {
    std::string combine;  // "mean" | "weighted"
    std::vector<EnsembleMember> members;
  };
  std::optional<Ensemble> ensemble;  // none for a single model (and cards written before ensembles)
  // How the ONNX model stores its weights (export --precision): "fp32",
  // "fp16", "int8" or "per-layer" (--per-layer: the card's precision.tensors
  // say which); it computes in float32 either way.
  std::string weight_precision = "fp32";
  int64_t onnx_bytes = 0;  // model.onnx's size as exported (0: not recorded)
  int khop = 1;               // pruning the model was trained with
  int64_t chunk = 0;          // configs per model call; scores depend on it for models attending across a batch

  // Throws Error naming `what` (the card's file) on a malformed card, an
  // unknown format version or inconsistent widths.
  static ModelCard from_json(const std::string& json, const std::string& what);

  // Throws Error naming `file` when the graph is of the other kind or its
  // feature widths are not the ones the model was trained on.
  void check_fits(const std::string& file, GraphKind graph_kind, int64_t graph_node_feat_width,
                  int64_t graph_config_feat_width) const;
  // Throws Error naming `file` when the card is a per-program model's and the
  // graph (its nodes, edges and configurable nodes as published) is not that
  // program's.
  void check_program(const std::string& file, int64_t nodes, int64_t edges, int64_t config_nodes) const;
};

}  // namespace fastslow
