// Every option of a training run. Stored as config.json in the run folder,
// so `--resume`, eval and predict rebuild exactly what was trained.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace fastslow::train {

struct TrainOptions {
  // Data: a dataset root and a collection, or one graph (per-program tuning).
  std::string data;
  std::string collection;  // e.g. "layout:xla:random"
  std::string graph;       // per-program mode: one .npz
  double holdout = 0.2;    // per-program mode: share of unique configs held out (never seen in training)
  // Per-program mode: share of unique configs that validates (early
  // stopping, best checkpoint). -1 = default (0.1); runs written before it
  // existed read 0: they validated on the held-out share.
  double valid_share = -1;
  std::string out;         // the run folder
  std::string cache;       // cache folder; "" = <out>/../.cache

  // Model and loss; empty / 0 = the collection kind's default.
  std::string kind;  // "tile" | "layout", filled from the data
  int64_t config_feat_width = 0;  // filled from the training data
  std::string model;
  std::string join = "early";
  std::string loss;
  int64_t hidden = 0, layers = 0;
  // Tile: append the core's derived tiling features (fastslow/tile_features.h)
  // to the 24 published config columns. -1 = default (on); runs written
  // before the option existed read as 0.
  int tile_features = -1;
  // Per-program layout runs: a wide table over the graph's configurable
  // nodes beside the model (models/program_model.h), fitted by ridge before
  // training. -1 = default (on for per-program layout runs, off otherwise);
  // runs written before it existed read 0.
  int wide = -1;
  int64_t wide_nodes = 0;  // filled from the graph

  // Optimisation.
  int64_t epochs = 0;
  int64_t configs_per_graph = 0;
  int64_t steps_per_epoch = 0;  // 0 = one visit per training graph, at least 50 steps
  double lr = 0, weight_decay = 0;
  double warmup = 0.05;  // share of all steps
  double clip = 1.0;     // gradient-norm clipping; 0 = off
  // Epochs without a better validation score before stopping; 0 = never,
  // -1 = default (per-program 5: a few hundred configs over-fit quickly;
  // collections never).
  int64_t patience = -1;
  int64_t eval_chunk = 0;  // configs per forward when ranking
  int khop = 1;
  std::string device = "auto";
  int threads = 0;  // 0 = LibTorch's default
  uint64_t seed = 0;

  // Fills every empty / 0 field with the default of `kind`.
  void apply_defaults();
  nlohmann::json to_json() const;
  static TrainOptions from_json(const nlohmann::json& j, const std::string& what);
};

}  // namespace fastslow::train
