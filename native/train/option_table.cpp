#include "train/option_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "fastslow/error.h"

namespace fastslow::train {

namespace {

using J = nlohmann::json;
using O = TrainOptions;
using D = DefaultsFor;

OptionRange at_least(double low, const char* note = "") { return {low, 1e300, false, false, note}; }

std::vector<OptionSpec> make_table() {
  using G = OptionGroup;
  return {
      // ---- data
      {"data", G::Data, &O::data,
       "dataset root holding npz/ (real or from `fastslow synth`); several (repeated or a,b): one model learns from "
       "all of them",
       nullptr, {}, {}, OptionCli::List},
      {"collection", G::Data, &O::collection,
       "tile:xla, layout:xla:random, layout:xla:default, layout:nlp:random, layout:nlp:default; several (repeated "
       "or a,b): one model learns from all, each step's graph drawn collection by collection, weighted by ID:W "
       "(default 1); validation per collection and their mean",
       nullptr, {}, {}, OptionCli::List},
      {"graph", G::Data, &O::graph, "per-program tuning: one .npz whose configs are split"},
      {"holdout", G::Data, &O::holdout,
       "per-program: share of unique configs held out, never seen in training (0: none, learn from every measured "
       "config and validate on --valid-share)",
       nullptr, OptionRange{0.0, 1.0, false, true, "0 holds nothing out"}},
      {"measured", G::Data, &O::measured,
       "per-program, few measurements: learn from N unique configs drawn by --seed (a larger N keeps a "
       "smaller one's), every other config held out, --valid-share of the N validating; 0: --holdout decides",
       nullptr, at_least(0, "0 = --holdout decides")},
      {"valid_share", G::Data, &O::valid_share,
       "per-program: share of unique configs that decides early stopping (collections validate on their valid "
       "split)",
       [](const D& d) -> J { return d.per_program ? 0.1 : 0.0; }, OptionRange{0.0, 1.0, false, true}},
      {"folds", G::Data, &O::folds, "K-fold cross-validation: this run is a fold of K (set by --folds)", nullptr, {},
       {}, OptionCli::None},
      {"fold", G::Data, &O::fold, "the fold this run validates on (set by --folds / --fold)", nullptr, {}, {},
       OptionCli::None},
      {"split_seed", G::Data, &O::split_seed,
       "seed of the data split (per-program groups, folds); left out: --seed (a seed ensemble shares one)", nullptr,
       {}, {}, OptionCli::None},
      {"train_on_valid", G::Data, &O::train_on_valid,
       "final fit: the valid graphs (per-program: the valid share) train too; validation then scores seen data, so "
       "early stopping is off (give --epochs) and the last epoch is kept",
       nullptr, {}, {}, OptionCli::None},
      {"out", G::Data, &O::out, "run folder"},
      {"cache", G::Data, &O::cache, "folder for preprocessed graphs (default: .cache beside the run folder)"},
      {"khop", G::Data, &O::khop, "keep configurable nodes' k-hop neighbourhood, 0 = whole graph", nullptr,
       at_least(0, "0 = whole graph"), {}, OptionCli::Value, true},
      // ---- model
      {"init", G::Model, &O::init,
       "a run folder whose model starts this one, with its feature normalisation: a prior pre-trained on other "
       "graphs (generated, or other real ones), fine-tuned here; per-program runs start its graph model under "
       "their fitted wide table. Same model, --hidden and --layers as that run"},
      {"kind", G::Derived, &O::kind, "tile or layout, from the data", nullptr, {}, {}, OptionCli::None},
      {"config_feat_width", G::Derived, &O::config_feat_width, "config columns the model reads, from the data",
       nullptr, {}, {}, OptionCli::None},
      {"wide_nodes", G::Derived, &O::wide_nodes, "the graph's configurable nodes (a wide table's rows), from the data",
       nullptr, {}, {}, OptionCli::None},
      {"model", G::Model, &O::model, "the model to train (the kind's default when left out)", nullptr, {}, {},
       OptionCli::Value, true},
      {"join", G::Model, &O::join, "tile sage/gcn: config features joined early (input) or late (after pooling)",
       nullptr, {}, {"early", "late"}, OptionCli::Value, true},
      {"hidden", G::Model, &O::hidden, "hidden width", [](const D&) -> J { return 64; }, at_least(1), {},
       OptionCli::Value, true},
      {"layers", G::Model, &O::layers, "graph layers, 0 = none: the node encoder and the head alone",
       [](const D&) -> J { return 3; }, at_least(0), {}, OptionCli::Value, true},
      {"tile_features", G::Model, &O::tile_features,
       "tile: 1 = append the core's tiling features (blocks, steps, padding per output dim) to the 24 published "
       "config columns, 0 = the published columns alone",
       [](const D& d) -> J { return d.tile ? 1 : 0; }, OptionRange{0, 1}, {}, OptionCli::Value, true},
      {"wide", G::Model, &O::wide,
       "per-program layout: 1 = a table of one weight per configurable node x config value and x whole layout row "
       "beside the model, fitted by ridge before training, 0 = the model alone",
       [](const D& d) -> J { return !d.tile && d.per_program ? 1 : 0; }, OptionRange{0, 1}, {}, OptionCli::Value,
       true},
      {"eval_chunk", G::Model, &O::eval_chunk, "configs per forward when ranking",
       [](const D& d) -> J { return d.model_eval_chunk; }, at_least(1), {}, OptionCli::Value, true, true},
      // ---- loss
      {"loss", G::Loss, &O::loss, "mse, hinge, listmle, or weighted sums like hinge:1,listmle:0.5", nullptr, {}, {},
       OptionCli::Value, true},
      // ---- distillation
      {"teacher", G::Loss, &O::teacher,
       "a run or ensemble folder that teaches this run: its scores of the training graphs' configs and of new "
       "legal configs sampled from each graph's space (the teaching materials) join the ranking loss as a listwise "
       "distillation term; `fastslow distill` is train with this option"},
      {"teaching", G::Loss, &O::teaching,
       "with --teacher: the folder of the teaching materials, built once per teacher, data and seed and reused "
       "by every student (default: TEACHER/teaching)"},
      {"teach_samples", G::Loss, &O::teach_samples,
       "with --teacher: new legal configs sampled per training graph (half anywhere in the graph's space, half "
       "a few mutations from its measured configs), scored by the teacher",
       [](const D& d) -> J { return d.distilled ? J(256) : J(); }, at_least(0)},
      {"teach_configs", G::Loss, &O::teach_configs,
       "with --teacher: sampled configs added to each step's measured ones (default: --configs-per-graph)",
       nullptr, at_least(0)},
      {"distill_weight", G::Loss, &O::distill_weight,
       "with --teacher: weight of the distillation term (the student's softmax over a step's configs against "
       "the teacher's, KL divergence) beside --loss on the measured runtimes",
       [](const D& d) -> J { return d.distilled ? J(1.0) : J(); }, at_least(0.0), {}, OptionCli::Value, true},
      {"distill_temperature", G::Loss, &O::distill_temperature,
       "with --teacher: temperature of both softmaxes, over scores standardised per graph (higher: the tail's "
       "order counts more)",
       [](const D& d) -> J { return d.distilled ? J(1.0) : J(); }, OptionRange{0.0, 1e300, true, false}, {},
       OptionCli::Value, true},
      // ---- optimiser
      {"lr", G::Optimiser, &O::lr, "peak learning rate", [](const D& d) -> J { return d.model_lr; },
       OptionRange{0.0, 1e300, true, false}, {}, OptionCli::Value, true, true},
      {"weight_decay", G::Optimiser, &O::weight_decay, "AdamW weight decay, 0 = none",
       [](const D&) -> J { return 1e-4; }, at_least(0.0, "0 = none"), {}, OptionCli::Value, true},
      {"clip", G::Optimiser, &O::clip, "gradient-norm clipping, 0 = off", nullptr, at_least(0.0, "0 = off"), {},
       OptionCli::Value, true},
      {"configs_per_graph", G::Optimiser, &O::configs_per_graph, "configs sampled per step",
       [](const D& d) -> J { return d.tile ? 64 : 32; }, at_least(1), {}, OptionCli::Value, true},
      {"graphs_per_step", G::Optimiser, &O::graphs_per_step,
       "graphs whose gradients a step averages: the processes times the graphs each accumulates (data-parallel "
       "runs: the number of processes); a run resumes in any number of processes dividing it",
       [](const D&) -> J { return 1; }, at_least(1)},
      // ---- schedule
      {"epochs", G::Schedule, &O::epochs, "epochs", [](const D& d) -> J { return d.tile ? 20 : 30; }, at_least(1)},
      {"steps_per_epoch", G::Schedule, &O::steps_per_epoch,
       "steps per epoch; left out: one visit per training graph, at least 200 (layout) or 50 (tile); "
       "per-program: one pass over the training configs",
       nullptr, at_least(1)},
      {"warmup", G::Schedule, &O::warmup, "share of steps spent warming up", nullptr, OptionRange{0.0, 1.0},
       {}, OptionCli::Value, true},
      {"patience", G::Schedule, &O::patience,
       "stop after this many epochs without a better validation score, 0 = never",
       [](const D& d) -> J { return d.per_program ? 5 : 0; }, at_least(0, "0 = never stop early"), {},
       OptionCli::Value, true},
      // ---- segments
      {"segment_nodes", G::Segments, &O::segment_nodes,
       "layout: graph segment training: each step back-propagates through one segment of at most S nodes "
       "(topological order), the rest of the graph without gradient; bounds the backward pass's memory for whole "
       "graphs (--khop 0). 0 = whole graphs",
       nullptr, at_least(0, "0 = whole graphs")},
      {"segment_history", G::Segments, &O::segment_history,
       "with --segment-nodes: the other segments' outputs come from a table of stale ones (GST), each segment's "
       "kept with probability --segment-keep and rescaled, instead of a no-gradient pass over the whole graph; the "
       "table lives in memory (configs x segments x the readout's width per graph) and refills after --resume",
       nullptr, {}, {}, OptionCli::Flag},
      {"segment_history_age", G::Segments, &O::segment_history_age,
       "with --segment-history: a stored output older than N steps is recomputed without gradient instead of used "
       "(0 = kept for good, as in GST)",
       nullptr, at_least(0, "0 = keep stored outputs for good")},
      {"segment_keep", G::Segments, &O::segment_keep,
       "with --segment-history: the probability that a step keeps a segment's stored output (rescaled by 1 / P); "
       "1 = no dropout",
       [](const D& d) -> J { return d.segment_history ? J(0.5) : J(); }, OptionRange{0.0, 1.0, true, false}},
      // ---- runtime
      {"device", G::Runtime, &O::device, "where the model trains", nullptr, {}, {"auto", "cpu", "cuda"}},
      {"cuda_graphs", G::Runtime, &O::cuda_graphs,
       "on a GPU, replay each step as CUDA graphs (1) or launch it op by op (0)", nullptr, OptionRange{0, 1}},
      {"threads", G::Runtime, &O::threads,
       "CPU threads, LibTorch's and OpenBLAS's (0 = LibTorch's default; with --nproc, the cores shared out over the "
       "workers)",
       nullptr, at_least(0)},
      {"seed", G::Runtime, &O::seed, "seed of initialisation and sampling", nullptr, {}, {}, OptionCli::Value, true},
  };
}

std::string number_text(const J& v) {
  if (v.is_number_float()) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", v.get<double>());
    return b;
  }
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

const char* option_group_name(OptionGroup g) {
  switch (g) {
    case OptionGroup::Data: return "data";
    case OptionGroup::Model: return "model";
    case OptionGroup::Loss: return "loss";
    case OptionGroup::Optimiser: return "optimiser";
    case OptionGroup::Schedule: return "schedule";
    case OptionGroup::Segments: return "segments";
    case OptionGroup::Runtime: return "runtime";
    case OptionGroup::Derived: return "derived";
  }
  return "?";
}

const std::vector<OptionSpec>& train_option_table() {
  static const std::vector<OptionSpec> table = make_table();
  return table;
}

const OptionSpec* find_train_option(const std::string& key) {
  for (const OptionSpec& s : train_option_table())
    if (key == s.key) return &s;
  return nullptr;
}

std::string option_flag(const OptionSpec& o) {
  std::string f = std::string("--") + o.key;
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

nlohmann::json option_value(const TrainOptions& o, const OptionSpec& spec) {
  return std::visit(
      [&](auto field) -> J {
        const auto& v = o.*field;
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::optional<double>> || std::is_same_v<T, std::optional<int64_t>> ||
                      std::is_same_v<T, std::optional<int>> || std::is_same_v<T, std::optional<uint64_t>>)
          return v ? J(*v) : J(nullptr);
        else
          return J(v);
      },
      spec.field);
}

void set_option_value(TrainOptions& o, const OptionSpec& spec, const nlohmann::json& value, const std::string& what) {
  try {
    std::visit(
        [&](auto field) {
          auto& v = o.*field;
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::optional<double>> || std::is_same_v<T, std::optional<int64_t>> ||
                        std::is_same_v<T, std::optional<int>> || std::is_same_v<T, std::optional<uint64_t>>) {
            if (value.is_null())
              v.reset();
            else
              v = value.get<typename T::value_type>();
          } else if (!value.is_null()) {
            v = value.get<T>();
          }
        },
        spec.field);
  } catch (const nlohmann::json::exception& e) {
    throw Error(what, spec.key, std::string("malformed run option: ") + e.what());
  }
}

std::string option_default_text(const OptionSpec& spec) {
  if (!spec.fallback) return "";
  if (spec.model_default) return "default: the model's";
  // The four contexts: tile/layout x collections/per-program.
  const auto at = [&](bool tile, bool program) {
    D d;
    d.tile = tile;
    d.per_program = program;
    return number_text(spec.fallback(d));
  };
  const std::string tc = at(true, false), tp = at(true, true), lc = at(false, false), lp = at(false, true);
  if (tc == tp && tc == lc && tc == lp) return "default " + tc;
  if (tc == tp && lc == lp) return "default: tile " + tc + ", layout " + lc;
  if (tc == lc && tp == lp) return "default: per-program " + tp + ", collections " + tc;
  return "default: tile " + tc + ", layout " + lc + ", per-program layout " + lp;
}

void check_option_value(const TrainOptions& o, const OptionSpec& spec) {
  const J v = option_value(o, spec);
  if (v.is_null()) return;
  const std::string flag = option_flag(spec);
  if (!spec.choices.empty() && v.is_string() &&
      std::find(spec.choices.begin(), spec.choices.end(), v.get<std::string>()) == spec.choices.end()) {
    std::string all;
    for (const std::string& c : spec.choices) all += (all.empty() ? "" : ", ") + c;
    throw Error(flag + " must be one of " + all + ", got '" + v.get<std::string>() + "'");
  }
  if (!spec.range || !v.is_number()) return;
  const OptionRange& r = *spec.range;
  const double x = v.get<double>();
  const bool low_ok = r.low_open ? x > r.low : x >= r.low;
  const bool high_ok = r.high_open ? x < r.high : x <= r.high;
  if (low_ok && high_ok && std::isfinite(x)) return;
  std::string want;
  if (r.high >= 1e300)
    want = std::string(r.low_open ? "> " : ">= ") + number_text(J(r.low));
  else
    want = std::string("in ") + (r.low_open ? "(" : "[") + number_text(J(r.low)) + ", " + number_text(J(r.high)) +
           (r.high_open ? ")" : "]");
  throw Error(flag + " must be " + want + ", got " + number_text(v) + (*r.note ? std::string(" (") + r.note + ")" : ""));
}

std::vector<std::string> searchable_option_keys() {
  std::vector<std::string> keys;
  for (const OptionSpec& s : train_option_table())
    if (s.searchable) keys.push_back(s.key);
  return keys;
}

}  // namespace fastslow::train
