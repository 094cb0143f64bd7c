#include "train/options.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "fastslow/error.h"
#include "models/registry.h"

// Options left out are null in config.json (nlohmann 3.11.2 has no
// std::optional support of its own).
namespace nlohmann {
template <class T>
struct adl_serializer<std::optional<T>> {
  template <class Json>
  static void to_json(Json& j, const std::optional<T>& v) {
    if (v)
      j = *v;
    else
      j = nullptr;
  }
  template <class Json>
  static void from_json(const Json& j, std::optional<T>& v) {
    if (j.is_null())
      v.reset();
    else
      v = j.template get<T>();
  }
};
}  // namespace nlohmann

namespace fastslow::train {

namespace {

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

template <class T>
void at_least(const char* flag, const std::optional<T>& v, T low, const char* why) {
  if (v && !(*v >= low))
    throw Error(std::string(flag) + " must be >= " + num(static_cast<double>(low)) + ", got " +
                num(static_cast<double>(*v)) + " (" + why + ")");
}

template <class T>
void fill(std::optional<T>& v, T value) {
  if (!v) v = value;
}

}  // namespace

std::string TrainOptions::cache_dir() const {
  if (!cache.empty()) return cache;
  const std::filesystem::path parent = std::filesystem::path(out).lexically_normal().parent_path();
  return (parent.empty() ? std::filesystem::path(".cache") : parent / ".cache").string();
}

void TrainOptions::apply_defaults() {
  const bool tile = kind == "tile";
  if (model.empty()) model = models::default_model(kind);
  const models::ModelEntry* found = nullptr;
  try {
    found = &models::model_entry(kind, model);
  } catch (const Error& e) {
    throw Error(std::string("--model: ") + e.what());
  }
  const models::ModelEntry& entry = *found;

  at_least<int64_t>("--hidden", hidden, 1, "a model needs a hidden width");
  at_least<int64_t>("--layers", layers, 0, "0 = no graph layers");
  at_least<int64_t>("--epochs", epochs, 1, "leave it out for the default");
  at_least<int64_t>("--configs-per-graph", configs_per_graph, 1, "configs sampled per step");
  at_least<int64_t>("--steps-per-epoch", steps_per_epoch, 1, "leave it out for one visit per training graph");
  at_least<int64_t>("--graphs-per-step", graphs_per_step, 1, "graphs whose gradients a step averages");
  at_least<int64_t>("--segment-nodes", segment_nodes, 0, "0 = whole graphs");
  if (tile && segment_nodes.value_or(0) > 0)
    throw Error("--segment-nodes: graph segment training is for layout graphs (tile kernels are small)");
  if (segment_history && segment_nodes.value_or(0) == 0)
    throw Error("--segment-history needs --segment-nodes S (the segments whose stale outputs it keeps)");
  if (segment_history_age < 0)
    throw Error("--segment-history-age must be >= 0 (0 = keep stored outputs for good), got " +
                std::to_string(segment_history_age));
  if (segment_history_age > 0 && !segment_history)
    throw Error("--segment-history-age applies to --segment-history, which is not set");
  if (!(segment_keep > 0 && segment_keep <= 1))
    throw Error("--segment-keep must be in (0, 1], got " + num(segment_keep));
  if (segment_keep != 0.5 && !segment_history)
    throw Error("--segment-keep applies to --segment-history, which is not set");
  at_least<int64_t>("--eval-chunk", eval_chunk, 1, "configs per forward when ranking");
  at_least<int64_t>("--patience", patience, 0, "0 = never stop early");
  at_least<double>("--weight-decay", weight_decay, 0.0, "0 = none");
  if (lr && !(*lr > 0 && std::isfinite(*lr)))
    throw Error("--lr must be > 0, got " + num(*lr) + " (leave it out for the model's default, " + num(entry.lr) +
                ")");
  if (valid_share && !(*valid_share >= 0 && *valid_share < 1))
    throw Error("--valid-share must be in [0, 1), got " + num(*valid_share));
  if (folds != 0 && (folds < 2 || fold < 0 || fold >= folds))
    throw Error("--folds " + std::to_string(folds) + " --fold " + std::to_string(fold) +
                ": need at least 2 folds and a fold in [0, folds)");
  if (train_on_valid == 1) {
    if (folds != 0) throw Error("--train-on-valid with --folds: a fold's valid graphs are what it is scored on");
    if (patience && *patience > 0)
      throw Error("--train-on-valid: the valid graphs train too, so early stopping has nothing unseen to judge; "
                  "give a fixed --epochs and leave --patience out (or 0)");
    patience = 0;
  }

  // One program's configs (per-program mode): ListMLE's full-list term cost
  // 0.004 Kendall on AlexNet's held-out configs against hinge alone.
  // Tile: MSE fits the runtime scale across kernels, hinge the order within
  // one (tile score 0.950 against 0.904 for mse and 0.897 for listmle+hinge,
  // mlp with tiling features, 5 seeds).
  if (loss.empty()) loss = tile ? "mse:1,hinge:1" : graph.empty() ? "hinge:1,listmle:1" : "hinge:1";
  fill(tile_features, tile ? 1 : 0);
  fill(wide, !tile && !graph.empty() ? 1 : 0);
  fill<int64_t>(hidden, 64);
  fill<int64_t>(layers, 3);
  fill<int64_t>(epochs, tile ? 20 : 30);
  fill<int64_t>(configs_per_graph, tile ? 64 : 32);
  fill(lr, entry.lr);
  fill(weight_decay, 1e-4);
  fill<int64_t>(graphs_per_step, 1);
  // Collections validate on their valid split, never on a share of configs.
  if (graph.empty())
    valid_share = 0.0;
  else
    fill(valid_share, 0.1);
  fill<int64_t>(patience, graph.empty() ? 0 : 5);
  fill(eval_chunk, entry.eval_chunk);
}

void TrainOptions::require_resolved(const std::string& what) const {
  auto need = [&](bool has, const char* key) {
    if (!has) throw Error(what, "", std::string("malformed run options: no '") + key + "'");
  };
  need(!kind.empty(), "kind");
  need(!model.empty(), "model");
  need(hidden.has_value(), "hidden");
  need(layers.has_value(), "layers");
  need(epochs.has_value(), "epochs");
  need(configs_per_graph.has_value(), "configs_per_graph");
  need(lr.has_value(), "lr");
  need(weight_decay.has_value(), "weight_decay");
  need(patience.has_value(), "patience");
  need(eval_chunk.has_value(), "eval_chunk");
}

#define FASTSLOW_OPTION_FIELDS(X)                                                                                   \
  X(data) X(collection) X(graph) X(holdout) X(valid_share) X(folds) X(fold) X(split_seed) X(train_on_valid) X(out) X(cache) X(kind) X(config_feat_width) X(model)   \
      X(join) X(loss) X(tile_features) X(wide) X(wide_nodes) X(hidden) X(layers) X(epochs) X(configs_per_graph)    \
          X(steps_per_epoch) X(graphs_per_step) X(lr) X(weight_decay) X(warmup) X(clip) X(patience) X(eval_chunk) X(khop) X(segment_nodes) X(segment_history) X(segment_history_age) X(segment_keep) X(device) X(cuda_graphs) \
              X(threads) X(seed)

nlohmann::json TrainOptions::to_json() const {
  nlohmann::ordered_json j;
#define X(f) j[#f] = f;
  FASTSLOW_OPTION_FIELDS(X)
#undef X
  return nlohmann::json(j);
}

TrainOptions TrainOptions::from_json(const nlohmann::json& j, const std::string& what) {
  TrainOptions o;
  try {
#define X(f) \
  if (j.contains(#f)) j.at(#f).get_to(o.f);
    FASTSLOW_OPTION_FIELDS(X)
#undef X
  } catch (const nlohmann::json::exception& e) {
    throw Error(what, "", std::string("malformed run options: ") + e.what());
  }
  // Runs written before these options existed: no tiling features, no wide
  // table, per-program runs validated on the held-out share.
  // A key present as null is an option left out (runs.json keeps a folds
  // or seeds plan's options unresolved): apply_defaults fills it.
  if (!j.contains("tile_features")) o.tile_features = 0;
  if (!j.contains("wide")) o.wide = 0;
  if (!j.contains("valid_share")) o.valid_share = 0.0;
  // Runs written before the options were optional stored "left out" as 0.
  if (o.steps_per_epoch == 0) o.steps_per_epoch.reset();
  return o;
}

}  // namespace fastslow::train
