#include "train/loaded_run.h"

#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "fastslow/features/layout_context.h"
#include "train/data_sources.h"
#include "train/process.h"
#include "train/run_files.h"
#include "train/run_dir.h"
#include "train/trainer.h"
#include "models/layout_focus.h"
#include "models/registry.h"

namespace fastslow::train {

models::ModelOptions model_options(const TrainOptions& o, const Normalizer& norm) {
  models::ModelOptions m;
  m.kind = o.kind;
  m.name = o.model;
  m.join = o.join;
  m.node_feat_width = norm.node.width();
  m.config_feat_width = o.config_feat_width;
  m.hidden = *o.hidden;
  m.layers = *o.layers;
  m.wide_nodes = *o.wide == 1 ? o.wide_nodes : 0;
  return m;
}

void check_layout_context(const std::string& path, const TrainOptions& o, const Normalizer& norm) {
  if (o.config_feat_width > 0 && models::uses_layout_context(model_options(o, norm)))
    check_layout_context_version(norm.layout_context, norm.node.width(), RunDir(path).file("stats.json"));
}

TrainOptions load_run_options(const std::string& path) {
  return read_config(RunDir(path));
}

LoadedRun load_run(const std::string& path, const std::string& device) {
  const RunDir run(path);
  LoadedRun r;
  r.options = load_run_options(path);
  r.norm = read_stats(run);
  r.device = pick_device(device);
  models::keep_freed_cpu_memory();
  if (r.options.config_feat_width <= 0) throw Error(run.file("config.json"), "", "no config_feat_width");
  r.model_options = model_options(r.options, r.norm);
  check_layout_context(path, r.options, r.norm);
  try {
    r.model = models::make_model(r.model_options);
  } catch (const Error& e) {
    throw Error(run.file("config.json"), "", e.problem());  // its settings name no model
  }
  r.model->to(r.device);
  run.load_model(*r.model, "best.pt");
  r.model->eval();
  return r;
}

SplitFiles split_files(const TrainOptions& o, const std::string& split) {
  SplitFiles f;
  if (split == "train" || split == "valid") {  // as the run trained: folds, several sources, final fits
    DataSpec s = data_spec(o);
    f.files = split == "train" ? s.train_files : s.valid_files;
    f.source = split == "train" ? s.train_source : s.valid_source;
    f.labels = s.source_labels;
  } else {
    const std::vector<DataSource> sources = data_sources(o);
    for (size_t i = 0; i < sources.size(); ++i) {
      for (const std::string& file : find_collection(sources[i].root, sources[i].collection).split(split)) {
        f.files.push_back(file);
        f.source.push_back(static_cast<int>(i));
      }
      f.labels.push_back(sources[i].label);
    }
    if (sources.size() == 1) f.labels.clear();
  }
  if (f.labels.empty()) f.source.assign(f.files.size(), 0);
  return f;
}

std::vector<GraphEntry> load_split(const LoadedRun& run, const std::string& split, const Progress& progress) {
  const TrainOptions& o = run.options;
  const GraphCacheOptions cache{o.cache_dir(), o.khop};
  if (o.graph.empty()) {
    const SplitFiles f = split_files(o, split);
    if (f.files.empty()) throw Error(o.data, "", "collection " + o.collection + " has no '" + split + "' split");
    return make_entries(cache_files(f.files, cache, progress), run.norm, run.device);
  }
  // Per-program runs split one graph's groups: "train" learns, "valid"
  // decides early stopping (the held-out groups in runs without a valid
  // share), "holdout" (= "test") is never seen while training, "all" ranks
  // every group.
  if (split != "train" && split != "valid" && split != "holdout" && split != "all" && split != "test")
    throw Error("--split for a per-program run: train, valid, holdout (= test) or all");
  const auto split_groups = data_spec(o).split_groups;  // the split the run trained with
  const GroupChoice groups = [&](const CachedGraph& graph) {
    const int64_t n = graph.groups.num_groups();
    const HoldoutSplit h = program_split(graph, split_groups);
    std::vector<int64_t> eval;
    if (split == "valid")
      eval = validating_groups(h);
    else if (split == "holdout" || split == "test") {
      if (h.holdout.empty())
        throw Error(o.graph, "", "the run held no configs out (--holdout 0): rank --split valid, train or all");
      eval = h.holdout;
    }
    else if (split == "train")
      eval = h.train;
    else
      for (int64_t g = 0; g < n; ++g) eval.push_back(g);
    return std::make_pair(h.train, eval);
  };
  return make_entries(cache_files({o.graph}, cache, progress), run.norm, run.device, groups);
}

}  // namespace fastslow::train
