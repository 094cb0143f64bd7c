// train() and resume(): the default Trainer assembled from TrainOptions.
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "fastslow/data/collection.h"
#include "fastslow/data/data_profile.h"
#include "fastslow/data/folds.h"
#include "fastslow/error.h"
#include "fastslow/io/npz_reader.h"
#include "models/program_model.h"
#include "models/registry.h"
#include "train/data_sources.h"
#include "train/ensemble_spec.h"
#include "train/init_run.h"
#include "train/loaded_run.h"
#include "train/option_table.h"
#include "train/process.h"
#include "train/run_files.h"
#include "train/segment_step.h"
#include "train/trainer.h"
#include "train/device_info.h"
#include "train/distill_step.h"
#include "train/teaching.h"
#include "train/wide_init.h"

namespace fastslow::train {

namespace {

// What the model learns from, for the card (data_profile.h): runs resumed
// from before it was recorded get it too.
void write_data_profile(const RunDir& run, const TrainOptions& o, const PreparedData& d) {
  const bool program = !o.graph.empty();
  const std::vector<std::string> roots = split_list(o.data);
  std::string origin = data_origin(program ? o.graph : roots.front());
  for (const std::string& r : roots)
    if (!program && data_origin(r) != origin) origin = "mixed";
  DataProfileBuilder b(d.kind, origin,
                       program ? std::filesystem::path(o.graph).filename().string() : o.collection);
  for (const GraphEntry& e : d.train) b.add(sample_graph(e.cache), e.cache.source);
  write_profile(run, b.finish().to_json());
}

// What the table holds, in words (its message and wide_table.json).
std::string table_kind(const WideFit& f) {
  if (f.sparse_node_ids.empty())
    return f.rows ? "values and whole rows" : f.relevance ? "values, a prior variance per node by the evidence" : "values";
  std::string nodes;
  for (int64_t id : f.sparse_node_ids) nodes += (nodes.empty() ? "" : ", ") + std::to_string(id);
  return "whole rows of node" + std::string(f.sparse_node_ids.size() > 1 ? "s " : " ") + nodes +
         (f.sparse_with_values ? " beside the values" : " alone");
}

// A per-program model's table, fitted by ridge before any step. It stays
// as fitted: trained further it lost 0.007 (hinge) and 0.065 (mse)
// held-out Kendall on real AlexNet; the deep part and its gate learn the rest.
// The run folder keeps what the table chose (wide_table.json): with few
// measurements, which nodes' rows decide is itself worth reading.
// The nodes the relevance ridge gave a share of at least 5 % (at most 5):
// which nodes the few measurements say decide.
// Nodes that moved together in every measured config count as one
// (WideFit::node_relevance): "moved_with" names the rest.
std::vector<NodeRelevance> relevant_nodes(const WideFit& f) {
  std::vector<NodeRelevance> out;
  for (const NodeRelevance& r : f.node_relevance)
    if (r.share >= 0.05 && out.size() < 5) out.push_back(r);
  return out;
}

void fit_table(models::ProgramModelImpl& program, const PreparedData& d, uint64_t seed, const RunDir& run,
               const std::function<void(const std::string&)>& say) {
  const WideFit f = fit_wide_table(*program.wide, d.train.front(), d.valid.front(), seed);
  nlohmann::json relevant = nlohmann::json::array();
  std::string relevance_note;
  for (const NodeRelevance& r : relevant_nodes(f)) {
    relevant.push_back({{"node", r.node}, {"share", r.share}});
    relevance_note += (relevance_note.empty() ? "#" : ", #") + std::to_string(r.node);
    if (!r.moved_with.empty()) {
      relevant.back()["moved_with"] = r.moved_with;
      // A long list would bury the line (real unet3d, 16 measured: 30 nodes
      // moved with #199); wide_table.json names them all.
      std::string with;
      if (r.moved_with.size() <= 3)
        for (int64_t other : r.moved_with) with += (with.empty() ? "#" : ", #") + std::to_string(other);
      else
        with = std::to_string(r.moved_with.size()) + " other nodes";
      relevance_note += " (with " + with + ", moved together in every measured config)";
    }
    relevance_note += " " + std::to_string(static_cast<int>(std::lround(100 * r.share))) + " %";
  }
  // What the table holds and, from the relevance ridge, which nodes: the
  // run's message and each tune round's line (tune/scorers.cpp) say it.
  const std::string note = table_kind(f) + (relevance_note.empty() ? std::string() : ": " + relevance_note);
  const std::string kendall_of = f.cross_validated ? "out-of-fold (4-fold, few measurements)"
                                : f.fitted_valid  ? "none: fewer than 8 configs, too few to cross-validate"
                                                  : "valid share";
  run.write_json("wide_table.json", {{"table", table_kind(f)},
                                     {"note", note},
                                     {"node_ids", f.sparse_node_ids},
                                     {"beside_values", f.sparse_with_values},
                                     {"whole_rows", f.rows},
                                     {"configs", f.rows_used},
                                     {"weights", f.features},
                                     {"lambda", f.relevance ? nlohmann::json(nullptr) : nlohmann::json(f.lambda)},
                                     {"kendall", std::isfinite(f.valid_kendall) ? nlohmann::json(f.valid_kendall) : nlohmann::json(nullptr)},
                                     {"kendall_of", kendall_of},
                                     {"relevant_nodes", relevant},
                                     {"residual_sd", f.residual_sd}});
  const std::string rows_note =
      !f.sparse_node_ids.empty() ? " (the " + table_kind(f) + ": forward selection, cross-validation preferred them)"
      : f.rows     ? std::string()
      : f.relevance ? " (" + note + ")"
      : f.fitted_valid ? std::string(" (values alone: cross-validation preferred them to whole rows)")
                   : std::string(" (values alone: whole rows did not beat them on the valid configs by Kendall's noise)");
  // The relevance ridge has no penalty: the evidence chose its variances.
  char penalty[64] = "no penalty";
  if (!f.relevance) std::snprintf(penalty, sizeof penalty, "lambda %g", f.lambda);
  char kendall[96];
  if (f.cross_validated) std::snprintf(kendall, sizeof kendall, "cross-validated Kendall %.4f", f.valid_kendall);
  else if (f.fitted_valid) std::snprintf(kendall, sizeof kendall, "too few configs to cross-validate");
  else std::snprintf(kendall, sizeof kendall, "valid Kendall %.4f", f.valid_kendall);
  char buf[800];
  std::snprintf(buf, sizeof buf, "wide table: ridge on %lld unique configs%s, %lld weights%s, %s (%s, residual sd %.2g)",
                static_cast<long long>(f.rows_used),
                f.fitted_valid ? (f.cross_validated ? " (the valid ones too: few measurements, cross-validated inside them)"
                                                    : " (the valid ones too: few measurements)")
                               : "",
                static_cast<long long>(f.features), rows_note.c_str(), penalty, kendall, f.residual_sd);
  if (say) say(buf);
  torch::NoGradGuard no_grad;
  program.scale.fill_(std::max(f.residual_sd, 1e-6));
}

// Every process of a data-parallel run prepares the data itself (the
// cache's files are written under names of their own, then renamed) and
// completes the options as rank 0 does; only rank 0 writes the header.
TrainResult run_training(TrainOptions o, bool resuming, const Callbacks& callbacks,
                         std::shared_ptr<GradientSync> sync) {
  configure_process(o.threads);
  const RunDir run(o.out, sync->rank() == 0);
  std::optional<Normalizer> norm;
  if (resuming) {
    norm = read_stats(run);
    check_layout_context(o.out, o, *norm);
  } else if (!o.init.empty()) norm = init_normaliser(o);  // the prior's weights read inputs scaled its way
  auto data = std::make_shared<const PreparedData>(
      prepare(data_spec(o), pick_device(o.device), norm, preparation_progress(callbacks), messages(callbacks)));
  if (!resuming) complete_options(o, *data);
  write_run_header(run, o, *data);
  return run_prepared(o, data, std::move(sync), callbacks);
}

std::shared_ptr<GradientSync> one_process(std::shared_ptr<GradientSync> sync) {
  return sync ? std::move(sync) : std::make_shared<GradientSync>();
}

}  // namespace

namespace {

std::string absolute_path(const std::string& p) {
  if (p.empty()) return p;
  return std::filesystem::absolute(p).lexically_normal().string();
}

}  // namespace

void make_inputs_absolute(TrainOptions& o) {
  std::string data;
  for (const std::string& item : split_list(o.data)) data += (data.empty() ? "" : ",") + absolute_path(item);
  o.data = data;
  o.graph = absolute_path(o.graph);
  o.cache = absolute_path(o.cache);
  o.init = absolute_path(o.init);
  o.teacher = absolute_path(o.teacher);
  o.teaching = absolute_path(o.teaching);
}

DataSpec data_spec(const TrainOptions& o) {
  DataSpec s;
  s.cache = {o.cache_dir(), o.khop};
  s.tile_features = o.tile_features.value_or(0) == 1;
  const uint64_t seed = o.data_seed();
  if (!o.graph.empty()) {
    s.source = o.graph;
    s.train_files = {o.graph};
    const double holdout = o.holdout, valid = o.valid_share.value_or(0);
    const int folds = o.folds, fold = o.fold;
    const int64_t measured = o.measured;
    const bool fold_in_valid = o.train_on_valid == 1;
    s.split_groups = [=](int64_t groups, const std::vector<char>& unmeasured) {
      if (folds > 0) return without_unmeasured(split_program_fold(groups, holdout, folds, fold, seed), unmeasured);
      HoldoutSplit h = measured > 0 ? split_measured(groups, measured, valid, seed, unmeasured)
                                    : without_unmeasured(split_program(groups, holdout, valid, seed), unmeasured);
      if (fold_in_valid) {  // a final fit: the valid share trains too and still reports
        h.train.insert(h.train.end(), h.valid.begin(), h.valid.end());
        std::sort(h.train.begin(), h.train.end());
      }
      return h;
    };
    return s;
  }
  s.source = o.data;
  const std::vector<DataSource> sources = data_sources(o);
  std::vector<std::string> pooled;
  std::vector<int> pooled_source;
  for (size_t i = 0; i < sources.size(); ++i) {
    const Collection c = find_collection(sources[i].root, sources[i].collection);
    s.source_labels.push_back(sources[i].label);
    s.source_weights.push_back(sources[i].weight);
    for (const char* split : {"train", "valid"}) {
      for (const std::string& f : c.split(split)) {
        const bool valid = std::string(split) == "valid";
        if (o.folds > 0) {
          pooled.push_back(f);
          pooled_source.push_back(static_cast<int>(i));
          continue;
        }
        if (!valid || o.train_on_valid == 1) {
          s.train_files.push_back(f);
          s.train_source.push_back(static_cast<int>(i));
        }
        if (valid) {
          s.valid_files.push_back(f);
          s.valid_source.push_back(static_cast<int>(i));
        }
      }
    }
  }
  if (o.folds > 0) {
    // Every graph of the collections validates in exactly one fold.
    const std::vector<int> fold_of = assign_folds(pooled, o.folds, seed);
    for (size_t i = 0; i < pooled.size(); ++i) {
      const bool valid = fold_of[i] == o.fold;
      (valid ? s.valid_files : s.train_files).push_back(pooled[i]);
      (valid ? s.valid_source : s.train_source).push_back(pooled_source[i]);
    }
    s.norm_on_valid = true;
  }
  if (s.train_files.empty()) throw Error(o.data, "", "collection " + o.collection + " has no training graphs");
  if (sources.size() == 1) {  // one source: the plain single-collection run
    s.source_labels.clear();
    s.source_weights.clear();
    s.train_source.clear();
    s.valid_source.clear();
  }
  return s;
}

void complete_options(TrainOptions& o, const PreparedData& data) {
  o.config_feat_width = data.config_width();
  if (*o.wide == 1) o.wide_nodes = static_cast<int64_t>(data.train.front().cache.pruned.config_positions.size());
  o.tile_features = data.norm.tile_features ? 1 : 0;
}

void write_run_header(const RunDir& run, TrainOptions& o, const PreparedData& data) {
  if (!run.has("config.json")) {
    write_stats(run, data.norm);
    // config.json is written once, complete with what the data decided.
    complete_options(o, data);
    write_config(run, o);
  }
  // Only the writer's profile is kept: the others would read every
  // training graph for nothing.
  if (run.writer() && !run.has("profile.json")) write_data_profile(run, o, data);
}

TrainResult run_prepared(TrainOptions o, std::shared_ptr<const PreparedData> data, std::shared_ptr<GradientSync> sync,
                         const Callbacks& callbacks) {
  const torch::Device device = pick_device(o.device);
  // The one place that decides who writes the run folder: the first process.
  const RunDir run(o.out, sync->rank() == 0);
  if (sync->rank() == 0)
    tell(callbacks, "training on " + device_description(o.device) + " with " + libtorch_description());
  torch::manual_seed(o.seed);
  models::RankModel model = models::make_model(model_options(o, data->norm));
  model->to(device);
  Trainer trainer(o, data, model, run, device);
  trainer.set_gradient_sync(sync);
  if (o.segment_nodes.value_or(0) > 0) {
    if (!model->segmentable())
      throw Error("--segment-nodes: the " + o.kind + " model '" + o.model +
                  "' has no per-node states to train by segments (focus, attn and sage have)");
    trainer.set_step(std::make_unique<SegmentStep>(
        LossSpec::parse(o.loss), device, *o.segment_nodes, o.seed,
        HistoryOptions{o.segment_history, o.segment_keep.value_or(0.5), o.segment_history_age}));
  }
  const bool fresh = !run.has("last.pt") && !run.has("state.json");
  if (fresh && !o.init.empty()) {
    const InitCopy c = copy_init_weights(*model, o);
    if (sync->rank() == 0)
      tell(callbacks, "--init: " + std::to_string(c.tensors) + " tensors from " + o.init +
                          (c.skipped ? " (its own graph's wide table left out)" : ""));
  }
  auto* program = dynamic_cast<models::ProgramModelImpl*>(model.get());
  if (program) {
    // Without a checkpoint to resume from, the model starts here: the table
    // is fitted, or a per-program teacher's is copied (only the deep part is distilled).
    if (fresh) {
      const int64_t copied = o.teacher.empty() ? 0 : copy_teacher_table(*program, o);
      if (copied == 0) fit_table(*program, *data, o.seed, run, messages(callbacks));
      else if (sync->rank() == 0)
        tell(callbacks, "--teacher: its wide table copied (" + std::to_string(copied) + " tensors)");
    }
    trainer.validate_first();  // the table alone is a model: "epoch 0" of the log
  }
  if (!o.teacher.empty()) {
    auto materials = std::make_shared<const TeachingMaterials>(teaching_materials(
        o, *data, run.writer(), sync->rank() == 0 ? messages(callbacks) : Say{}, preparation_progress(callbacks)));
    trainer.set_step(std::make_unique<DistillStep>(LossSpec::parse(o.loss), *data, materials,
                                                   o.teach_configs.value_or(*o.configs_per_graph), *o.distill_weight,
                                                   *o.distill_temperature, o.seed));
  }
  trainer.add_callback(std::make_shared<EarlyStopping>(*o.patience));
  for (const auto& c : callbacks) trainer.add_callback(c);
  const TrainResult r = trainer.run();
  // The prior sits in the deep part, behind a gate that starts at 0: a run
  // whose table was never beaten ranks without it, which --init alone does
  // not make plain (on every layout file measured so far it is so).
  if (!o.init.empty() && program && r.best_epoch < 0 &&
      !r.interrupted() && r.reason != StopReason::Diverged && sync->rank() == 0)
    tell(callbacks, "--init: no epoch beat the fitted table on validation, so the model kept is the table alone: "
                    "the prior's deep part (gate 0) takes no part in its scores");
  return r;
}

TrainOptions resolve_options(TrainOptions o) {
  if (o.out.empty()) throw Error("--out: no run folder given");
  if (o.graph.empty()) {
    if (o.data.empty() || o.collection.empty()) throw Error("give --data and --collection, or --graph");
    o.kind = graph_kind_name(parse_collection_id(data_sources(o).front().collection).kind);
  } else {
    o.kind = graph_kind_name(detect_graph_kind(NpzReader::open(o.graph)));
    o.collection = o.kind == "tile" ? "tile:xla" : "layout:xla:random";
  }
  if (!o.init.empty()) {  // what the prior fixes, unless given (init_run.h checks they agree)
    const TrainOptions prior = load_run_options(o.init);
    if (o.model.empty()) o.model = prior.model;
    if (!o.hidden) o.hidden = prior.hidden;
    if (!o.layers) o.layers = prior.layers;
    if (!o.tile_features) o.tile_features = prior.tile_features;
  }
  if (!o.teacher.empty() && !o.graph.empty() && !o.split_seed && !EnsembleSpec::is_ensemble(o.teacher)) {
    // A per-program student holds out what its teacher held out: the
    // teacher never saw the configs the student is judged on.
    const TrainOptions teacher = load_run_options(o.teacher);
    if (!teacher.graph.empty()) o.split_seed = teacher.data_seed();
  }
  // Unknown model names and senseless values fail here, before any preparation.
  o.apply_defaults();
  if (o.measured > 0 && o.graph.empty())
    throw Error("--measured " + std::to_string(o.measured) + ": few measurements are one program's (give --graph)");
  if (o.measured > 0 && o.folds > 0)
    throw Error("--measured with --folds: the folds split every measured config already; give one of them");
  if (o.measured > 0) o.holdout = 0;  // everything not measured is held out; the share does not apply
  if (!o.graph.empty() && o.folds == 0 && o.measured == 0 && !(o.holdout + *o.valid_share < 1))
    throw Error("--valid-share " + std::to_string(*o.valid_share) + " and --holdout " + std::to_string(o.holdout) +
                " leave no configs to train on (their sum must be below 1)");
  if (!o.graph.empty() && o.folds == 0 && o.measured == 0 && o.holdout == 0 && *o.valid_share == 0)
    throw Error("--holdout 0 with --valid-share 0 leaves nothing to validate on: keep a --valid-share (0.1 by "
                "default) for early stopping, or learn from it too with --train-on-valid and a fixed --epochs");
  if (!o.graph.empty() && o.folds > 0) o.valid_share = 0.0;  // the fold validates
  if (*o.wide == 1 && (o.graph.empty() || o.kind != "layout"))
    throw Error("--wide 1: a wide table belongs to one layout graph's configurable nodes (per-program mode, --graph)");
  LossSpec::parse(o.loss);
  if (o.cache.empty()) o.cache = o.cache_dir();
  make_inputs_absolute(o);
  return o;
}

TrainResult train(TrainOptions o, const Callbacks& callbacks,
                  std::shared_ptr<GradientSync> sync) {
  sync = one_process(std::move(sync));
  if (o.out.empty()) throw Error("--out: no run folder given");
  const RunDir run(o.out, sync->rank() == 0);
  if (run.has("config.json"))
    throw Error(o.out, "", "already holds a run; continue it with --resume or choose another --out");
  // Every process has looked before rank 0 writes anything.
  sync->all_gather("");
  o = resolve_options(std::move(o));
  run.create();
  return run_training(o, false, callbacks, std::move(sync));
}

TrainResult resume(const std::string& path, std::optional<int64_t> epochs, const Callbacks& callbacks,
                   std::shared_ptr<GradientSync> sync) {
  sync = one_process(std::move(sync));
  const RunDir run(path, sync->rank() == 0);
  TrainOptions o = read_config(run);
  if (epochs && *epochs != *o.epochs) {
    o.epochs = epochs;
    check_option_value(o, *find_train_option("epochs"));  // as a fresh run's would be
    write_config(run, o);
  }
  return run_training(o, true, callbacks, std::move(sync));
}

}  // namespace fastslow::train
