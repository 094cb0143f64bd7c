// The trainer's view of a collection (or of one graph in per-program mode):
// cached graphs kept in memory as tensors, and batches of configs read row by
// row from the caches. A collection's config features are never loaded whole,
// so memory grows with the graphs, not with their configs.
#pragma once

#include <torch/torch.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fastslow/features/feature_stats.h"
#include "fastslow/data/graph_cache.h"
#include "fastslow/features/tile_features.h"
#include "models/graph_tensors.h"

namespace fastslow::train {

// Fitted on the training split, stored with the run, reused by eval/predict.
struct Normalizer {
  FeatureStats node;
  FeatureStats config;  // tile only; layout config values go to the model raw
  // Tile: the config rows carry the derived tiling features after the
  // published columns (config covers both).
  bool tile_features = false;
  // Layout: the LayoutContext::kVersion the run was trained with (0: none
  // recorded, runs before versions were; see check_layout_context).
  int64_t layout_context = 0;
  nlohmann::json to_json() const;
  static Normalizer from_json(const nlohmann::json& j, const std::string& what);
};

// tile_features: append the core's tiling features to tile config rows
// (when the files have the 24 published columns; see Normalizer).
Normalizer fit_normalizer(GraphKind kind, const std::vector<const CachedGraph*>& train, bool tile_features);

struct GraphEntry {
  CachedGraph cache;
  models::GraphTensors tensors;              // normalised, on the training device
  std::vector<int64_t> train_groups;  // groups a training step samples from
  std::vector<int64_t> eval_groups;   // groups ranked when evaluating
  // Per group: log(best runtime) standardised over train_groups (empty
  // without runtimes). Every loss sees the same scale on every graph.
  std::vector<float> group_target;
};

struct Batch {
  std::vector<int64_t> groups;
  torch::Tensor config_feat;  // tile [B, Fc]; layout [B, nc, Fc]
  torch::Tensor target;       // [B] (zeros without runtimes)
  // A distilled step's (train/distill_step.h): config_feat holds the B
  // measured configs, then sampled ones; teacher scores all of them.
  torch::Tensor teacher;  // [B + sampled], or undefined
};

GraphEntry make_entry(CachedGraph cache, const Normalizer& norm, const torch::Device& device);
// The model's input for `count` config rows of `g` as caches and config
// spaces hold them (count x config_row_elems): tile rows standardised by
// `norm`, with the tiling features when it has them; layout rows as they
// are ([count, configurable nodes, width]). On the CPU.
torch::Tensor config_input(const CachedGraph& g, const Normalizer& norm, const float* rows, int64_t count);
// Per-group training targets from the entry's train_groups; call again
// after changing them (per-program splits).
void set_targets(GraphEntry* e);
// Reads the groups' rows from the cache and normalises them for the model.
Batch make_batch(const GraphEntry& e, const std::vector<int64_t>& groups, const Normalizer& norm,
                 const torch::Device& device);
// The same in host memory (page-locked when `pinned`, so that upload()
// copies it without waiting); upload() sends it to the device.
Batch make_host_batch(const GraphEntry& e, const std::vector<int64_t>& groups, const Normalizer& norm, bool pinned);
// A host batch on `device`: the same tensors on the CPU; elsewhere copied
// without blocking the host when they are page-locked.
Batch upload(const Batch& host, const torch::Device& device);

}  // namespace fastslow::train
