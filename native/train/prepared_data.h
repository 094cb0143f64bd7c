// What a run learns from, prepared once: every file cached (pruned,
// de-duplicated, repacked), the normaliser fitted on the training graphs,
// and the graphs as tensors on the device. The files and the group split
// come in decided (a fold, a seed's ensemble member, a search trial pass
// their own), so preparing never reads split names or options.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fastslow/data/graph_cache.h"
#include "fastslow/data/holdout.h"
#include "train/dataset.h"

namespace fastslow::train {

using Progress = std::function<void(size_t done, size_t total, const std::string& file)>;
using Say = std::function<void(const std::string&)>;

struct DataSpec {
  std::vector<std::string> train_files, valid_files;
  // Per-program mode: train_files is one graph, valid_files empty; its
  // duplicate groups are split by this function of their count and of the
  // groups the file holds no runtime for (in no part). The valid entry
  // ranks `valid` (or `holdout` when there is no valid share).
  using SplitGroups = std::function<HoldoutSplit(int64_t num_groups, const std::vector<char>& unmeasured)>;
  SplitGroups split_groups;
  GraphCacheOptions cache;
  bool tile_features = false;  // tile: append the core's tiling features (a normaliser fitted here)
  std::string source;          // the data root or the graph, for messages
  // Several collections (data_sources.h): each file's source, aligned with
  // the file lists, and each source's label and sampling weight. Empty:
  // one source.
  std::vector<int> train_source, valid_source;
  std::vector<std::string> source_labels;
  std::vector<double> source_weights;
  // Fit the normaliser on the valid graphs' inputs too (never their
  // runtimes): every fold of a K-fold run then reads the same inputs, and
  // its members export as one model.
  bool norm_on_valid = false;
};

struct PreparedData {
  GraphKind kind = GraphKind::Layout;
  std::string source;        // the data root or the graph, for messages
  bool per_program = false;  // one graph whose groups are split (DataSpec::split_groups)
  Normalizer norm;
  std::vector<GraphEntry> train, valid;
  // Sources (collections) and each entry's: one source unless the run
  // learns from several (then validation is reported per source).
  std::vector<std::string> sources = {""};
  std::vector<double> source_weight = {1.0};
  std::vector<int> train_source, valid_source;
  std::string valid_split = "valid";  // what validation ranks: "valid", or "holdout" (per-program, no valid share)
  // Config columns the model reads (per config, or per configurable node).
  int64_t config_width() const;
  // Training graphs with at least two groups to rank.
  std::vector<size_t> trainable() const;
};

// The groups a per-program run validates on: the valid share, or the
// held-out share when there is none.
const std::vector<int64_t>& validating_groups(const HoldoutSplit& h);

// Throws Error naming the file on bad input, on training graphs without
// runtimes, and when there are none. `norm` given (a resumed run's) is
// used instead of fitting one.
PreparedData prepare(const DataSpec& spec, const torch::Device& device, std::optional<Normalizer> norm,
                     const Progress& progress = {}, const Say& say = {});

// The pieces, for callers that rank rather than train (eval, predict).
std::vector<CachedGraph> cache_files(const std::vector<std::string>& files, const GraphCacheOptions& options,
                                     const Progress& progress);
// Entries whose eval_groups (and train_groups, targets) come from `groups`
// when given: `groups(graph)` -> {train, eval}. Groups without a runtime in
// a file with runtimes are never trained on, whoever chose them.
using GroupChoice = std::function<std::pair<std::vector<int64_t>, std::vector<int64_t>>(const CachedGraph& graph)>;

// A per-program split of one graph's groups, the groups without a runtime
// (0) in a file with runtimes in no part.
HoldoutSplit program_split(const CachedGraph& graph, const DataSpec::SplitGroups& split);
std::vector<GraphEntry> make_entries(std::vector<CachedGraph> caches, const Normalizer& norm,
                                     const torch::Device& device, const GroupChoice& groups = {});

}  // namespace fastslow::train
