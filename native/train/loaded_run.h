// A finished (or interrupted) run opened again to rank graphs with its best
// model: what eval, predict, export and the benchmarks read.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

#include "models/model.h"
#include "train/dataset.h"
#include "train/options.h"
#include "train/prepared_data.h"

namespace fastslow::train {

struct LoadedRun {
  TrainOptions options;
  Normalizer norm;
  models::ModelOptions model_options;
  models::RankModel model;
  torch::Device device = torch::kCPU;
  GraphKind kind() const { return options.kind == "tile" ? GraphKind::Tile : GraphKind::Layout; }
};
// A run's options (config.json) alone, resolved as load_run reads them.
TrainOptions load_run_options(const std::string& run);
// Throws Error naming the file when the folder holds no run or a broken one.
LoadedRun load_run(const std::string& run, const std::string& device = "auto");

// A collection run's files of a split ("train" and "valid" as the run
// trained: its fold, its sources; other splits from every source), each
// file's source and the sources' labels (empty for one source).
struct SplitFiles {
  std::vector<std::string> files;
  std::vector<int> source;
  std::vector<std::string> labels;
};
SplitFiles split_files(const TrainOptions& o, const std::string& split);

// The graphs of a split ("train", "valid", "test"; per-program runs also
// have "holdout" (= "test": never seen in training) and "all"), cached and
// ready to rank.
std::vector<GraphEntry> load_split(const LoadedRun& run, const std::string& split, const Progress& progress = {});

// The model a run's options describe (widths from the normaliser and the
// options' config_feat_width).
models::ModelOptions model_options(const TrainOptions& o, const Normalizer& norm);

// Throws Error naming RUN/stats.json when the run's model reads the layout
// context and was trained on another version of it (LayoutContext::kVersion):
// loading, resuming or starting from it (--init) would feed it features it
// was not fitted to.
void check_layout_context(const std::string& run, const TrainOptions& o, const Normalizer& norm);

}  // namespace fastslow::train
