// Every option of a training run. Stored as config.json in the run folder,
// so `--resume`, eval and predict rebuild exactly what was trained. The
// fields are declared here; what each means, its default, its check, its
// command-line form and whether a search may vary it are declared once in
// option_table.h, from which the CLI, config.json and the search read.
//
// Options a user may leave out are optional: left out, apply_defaults()
// fills in the kind's (and the model's, models/registry.h) default; given,
// they are honoured, or refused with a message when they make no sense
// (--lr 0), never silently replaced.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace fastslow::train {

struct TrainOptions {
  // Data: dataset roots and collections, or one graph (per-program tuning).
  // Several of each are comma-separated lists (data_sources.h): one model
  // learns from every collection found in every root, each step's graph
  // drawn collection by collection ("layout:nlp:random:0.5" weighs one).
  std::string data;
  std::string collection;  // e.g. "layout:xla:random"
  std::string graph;       // per-program mode: one .npz
  double holdout = 0.2;    // per-program mode: share of unique configs held out (never seen in training)
  // Per-program mode, few measurements: learn from this many unique configs
  // (a seeded draw, fastslow/data/holdout.h split_measured), every other
  // one held out; 0 = --holdout decides.
  int64_t measured = 0;
  // A run folder whose model starts this one (its normaliser too): a prior
  // pre-trained on other graphs, fine-tuned here. "" = a fresh model.
  std::string init;
  // Per-program mode: share of unique configs that validates (early
  // stopping, best checkpoint); 0 = validate on the held-out share. Default
  // 0.1; runs written before it existed read 0.
  std::optional<double> valid_share;
  // K-fold cross-validation: this run is fold `fold` of `folds` (graphs of
  // a collection, or unique configs of one graph, fastslow/data/folds.h);
  // folds = 0: no folds.
  int folds = 0;
  int fold = -1;
  // Seed of the data split (per-program groups, folds); left out = seed.
  // Members of a seed ensemble share it and differ in `seed` alone.
  std::optional<uint64_t> split_seed;
  // 1 = the valid graphs (per-program: the valid share) train too: a final
  // fit. Validation then scores seen data, so early stopping is off and
  // the last epoch is kept.
  int train_on_valid = 0;
  std::string out;    // the run folder
  std::string cache;  // cache folder; "" = <out>/../.cache

  // Model and loss.
  std::string kind;               // "tile" | "layout", filled from the data
  int64_t config_feat_width = 0;  // filled from the training data
  std::string model;              // "" = the kind's default
  std::string join = "early";
  std::string loss;  // "" = the kind's default
  // Distillation (train/distill_step.h): a run or ensemble folder whose
  // scores teach this run, beside the measured runtimes. "" = none.
  std::string teacher;
  std::string teaching;                       // the teaching materials' folder; "" = <teacher>/teaching
  std::optional<int64_t> teach_samples;       // new legal configs per training graph (default 256)
  std::optional<int64_t> teach_configs;       // of them per step (default: configs_per_graph)
  std::optional<double> distill_weight;       // the distillation term's weight (default 1)
  std::optional<double> distill_temperature;  // softmax temperature on standardised scores (default 1)
  std::optional<int64_t> hidden;  // default 64
  std::optional<int64_t> layers;  // default 3; 0 = no graph layers (encoder and head only)
  // Tile: append the core's derived tiling features (fastslow/features/
  // tile_features.h) to the 24 published config columns. Default on; runs
  // written before the option existed read as off.
  std::optional<int> tile_features;
  // Per-program layout runs: a wide table over the graph's configurable
  // nodes beside the model (models/program_model.h), fitted by ridge before
  // training. Default on for per-program layout runs, off otherwise; runs
  // written before it existed read off.
  std::optional<int> wide;
  int64_t wide_nodes = 0;  // filled from the graph

  // Optimisation.
  std::optional<int64_t> epochs;             // default tile 20, layout 30
  std::optional<int64_t> configs_per_graph;  // default tile 64, layout 32
  // Left out: one visit per training graph, at least 200 (layout) or 50
  // (tile) steps; per-program: the training configs / configs_per_graph.
  std::optional<int64_t> steps_per_epoch;
  // Graphs whose gradients one step averages: the processes of a
  // data-parallel run times the graphs each accumulates. Default: the
  // number of processes (1). A run resumes in any number of processes that
  // divides it, the others accumulating the rest, so its steps do not change.
  std::optional<int64_t> graphs_per_step;
  std::optional<double> lr;            // default: the model's (registry.h)
  std::optional<double> weight_decay;  // default 1e-4; 0 = none
  double warmup = 0.05;                // share of all steps
  double clip = 1.0;                   // gradient-norm clipping; 0 = off
  // Epochs without a better validation score before stopping; 0 = never.
  // Default: per-program 5 (a few hundred configs over-fit quickly),
  // collections never.
  std::optional<int64_t> patience;
  std::optional<int64_t> eval_chunk;  // configs per forward when ranking; default: the model's
  int khop = 1;
  // Graph segment training (train/segment_step.h): segments of at most this
  // many nodes; left out (or 0) = whole graphs.
  std::optional<int64_t> segment_nodes;
  // GST's table of stale segment outputs instead of the no-gradient pass
  // over the whole graph (needs segment_nodes).
  bool segment_history = false;
  // Steps after which a stored share is recomputed; 0 = never (GST).
  int64_t segment_history_age = 0;
  std::optional<double> segment_keep;  // stale-embedding dropout's keep probability (default 0.5)
  std::string device = "auto";
  // On a GPU, replay each step's device work as CUDA graphs (train/step_graphs.h); 0 = eager.
  int cuda_graphs = 1;
  int threads = 0;  // 0 = LibTorch's default
  uint64_t seed = 0;

  // The cache folder: `cache`, or .cache beside the run folder.
  std::string cache_dir() const;
  uint64_t data_seed() const { return split_seed.value_or(seed); }

  // Fills every option left out with the default of `kind` and the model,
  // and refuses given values that make no sense (Error naming the option).
  void apply_defaults();
  // Throws Error naming `what` (config.json) when an option a run folder
  // always holds resolved is missing.
  void require_resolved(const std::string& what) const;
  nlohmann::json to_json() const;
  static TrainOptions from_json(const nlohmann::json& j, const std::string& what);
};

}  // namespace fastslow::train
