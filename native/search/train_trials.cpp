#include "search/train_trials.h"

#include <cmath>
#include <filesystem>

#include "fastslow/error.h"
#include "fastslow/io/remove_tree.h"
#include "search/model_costs.h"
#include "train/loaded_run.h"
#include "train/process.h"
#include "train/run_files.h"
#include "train/trainer.h"

namespace fs = std::filesystem;

namespace fastslow::search {
namespace {

// Reports each checkpoint's validation to the study, which may prune.
class Checkpoints : public train::Callback {
 public:
  explicit Checkpoints(TrialContext& t) : t_(t) {}
  train::Verdict on_validation(const train::ValidationInfo& v) override {
    if (v.epoch < 0) return std::nullopt;  // a per-program table before training
    if (t_.report && t_.report(v.epoch + 1, v.score)) return train::StopReason::Pruned;
    return std::nullopt;
  }

 private:
  TrialContext& t_;
};

// The options that decide what prepare() reads: trials that agree on them
// share their prepared data.
std::string data_key(const train::TrainOptions& o) {
  nlohmann::json j = {{"data", o.data},       {"collection", o.collection}, {"graph", o.graph},
                      {"holdout", o.holdout}, {"valid_share", o.valid_share.value_or(0)},
                      {"seed", o.data_seed()}, {"khop", o.khop}, {"tile_features", o.tile_features.value_or(0)},
                      {"cache", o.cache},     {"device", o.device}};
  return j.dump();
}

}  // namespace

TrainTrialRunner::TrainTrialRunner(SearchConfig config, int threads, bool measure_alone, train::Callbacks callbacks)
    : config_(std::move(config)), threads_(threads), measure_alone_(measure_alone), callbacks_(std::move(callbacks)) {}

train::TrainOptions TrainTrialRunner::trial_options(const nlohmann::json& params, const std::string& dir) const {
  nlohmann::json j = config_.train;
  for (const auto& [k, v] : params.items()) j[k] = v;
  const Budget& b = config_.budget;
  if (b.epochs) {
    j["epochs"] = *b.epochs;
  } else {
    j["epochs"] = b.checkpoints;
    j["steps_per_epoch"] = (*b.steps + b.checkpoints - 1) / b.checkpoints;
  }
  j["threads"] = threads_;
  // Absent, from_json reads these as a run written before they existed
  // (off, or validating on the held-out share); null is "left out": the
  // defaults a fresh `train` gets.
  for (const char* key : {"tile_features", "wide", "valid_share"})
    if (!j.contains(key)) j[key] = nullptr;
  train::TrainOptions o = train::TrainOptions::from_json(j, "trial parameters " + params.dump());
  o.out = dir;
  // Every trial's graphs are cached once, beside the trials.
  if (o.cache.empty()) o.cache = (fs::path(dir).parent_path().parent_path() / ".cache").string();
  try {
    return train::resolve_options(std::move(o));
  } catch (const Error& e) {
    throw Error("trial parameters " + params.dump() + ": " + e.what());
  }
}

void TrainTrialRunner::check_space() const {
  for (const Param& p : config_.space.params) {
    std::vector<nlohmann::json> values =
        p.kind == ParamKind::Categorical ? p.choices : std::vector<nlohmann::json>{p.from_unit(0), p.from_unit(1)};
    for (const auto& v : values) {
      nlohmann::json params = nlohmann::json::object();
      for (const Param& q : config_.space.params) params[q.name] = q.name == p.name ? v : q.from_unit(0.5);
      trial_options(params, "check/trials/0");
    }
  }
}

std::shared_ptr<const train::PreparedData> TrainTrialRunner::data_for(const train::TrainOptions& o) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string key = data_key(o);
  auto it = data_.find(key);
  if (it != data_.end()) return it->second;
  // One kept at a time: trials rarely alternate between inputs, and a
  // collection's graphs are large.
  data_.clear();
  auto d = std::make_shared<const train::PreparedData>(
      train::prepare(train::data_spec(o), train::pick_device(o.device), std::nullopt,
                     train::preparation_progress(callbacks_), train::messages(callbacks_)));
  data_[key] = d;
  return d;
}

std::map<std::string, double> TrainTrialRunner::measure(const std::string& run_dir, const train::PreparedData& data) {
  std::map<std::string, double> out;
  bool wanted = false;
  for (const auto& o : config_.objectives) wanted |= o.name != "score";
  if (!wanted) return out;
  train::LoadedRun run = train::load_run(run_dir, "auto");
  for (const auto& o : config_.objectives) {
    if (o.name == "params") out["params"] = static_cast<double>(parameter_count(*run.model));
    if (o.name == "onnx_bytes") out["onnx_bytes"] = static_cast<double>(onnx_bytes(*run.model, run.model_options));
    if (o.name != "latency") continue;
    // The fixed graph: the first validation graph (per-program: the graph).
    const train::GraphEntry& g = data.valid.empty() ? data.train.front() : data.valid.front();
    std::lock_guard<std::mutex> lock(measure_mu_);
    const int before = torch::get_num_threads();
    if (measure_alone_) torch::set_num_threads(config_.latency.threads);
    out["latency"] = ranking_latency_ms(*run.model, g, run.norm, *run.options.eval_chunk, run.device,
                                        {config_.latency.configs, config_.latency.repeats});
    if (measure_alone_) torch::set_num_threads(before);
  }
  return out;
}

TrialOutcome TrainTrialRunner::run(TrialContext& t) {
  train::TrainOptions o;
  const train::RunDir run(t.dir);
  if (t.resumed && run.has("config.json")) {
    o = train::read_config(run);
  } else {
    remove_tree(t.dir);  // a trial cut before its run began
    o = trial_options(t.params, t.dir);
    run.create();
  }
  auto data = data_for(o);
  train::write_run_header(run, o, *data);
  train::Callbacks callbacks = callbacks_;
  callbacks.push_back(std::make_shared<train::StopWhen>(t.stop));
  callbacks.push_back(std::make_shared<Checkpoints>(t));
  const train::TrainResult r = train::run_prepared(o, data, std::make_shared<train::GradientSync>(), callbacks);
  TrialOutcome out;
  switch (r.reason) {
    case train::StopReason::Interrupted: out.interrupted = true; return out;
    case train::StopReason::Pruned: out.state = TrialState::Pruned; return out;
    case train::StopReason::Diverged:
      out.state = TrialState::Failed;
      out.message = "diverged: " + r.message;
      return out;
    case train::StopReason::Finished:
    case train::StopReason::EarlyStopped: break;
  }
  if (!std::isfinite(r.best_score)) {
    out.state = TrialState::Failed;
    out.message = "no finite validation score";
    return out;
  }
  out.objectives = measure(t.dir, *data);
  out.objectives["score"] = r.best_score;
  return out;
}

}  // namespace fastslow::search
