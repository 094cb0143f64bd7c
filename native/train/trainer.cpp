#include "train/trainer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fastslow/error.h"
#include "train/evaluate.h"
#include "train/process.h"
#include "train/run_files.h"
#include "train/schedule.h"
#include "train/step_graphs.h"
#include "fastslow/io/json_text.h"

namespace fastslow::train {

namespace {

// Non-finite steps in a row after which a run is judged diverged.
constexpr int64_t kMaxSkippedInARow = 20;
// Steps between reads of the device counters on a GPU: the progress line's
// loss is at most this old, and a diverged run stops at most this late.
constexpr int64_t kReadEvery = 25;

}  // namespace

Trainer::Trainer(TrainOptions options, std::shared_ptr<const PreparedData> data, models::RankModel model, RunDir run,
                 torch::Device device)
    : o_(std::move(options)),
      data_(std::move(data)),
      model_(std::move(model)),
      run_(std::move(run)),
      device_(device),
      sync_(std::make_shared<GradientSync>()) {
  o_.require_resolved(run_.file("config.json"));
  if (!data_ || !model_) throw Error(run_.path(), "", "trainer: no data or no model");
}

void Trainer::say(const std::string& s) {
  for (auto& c : callbacks_) c->on_message(s);
}

template <class F>
Verdict Trainer::ask(F&& f) {
  Verdict first;
  // Every callback hears of the event; the first to stop the run names why,
  // and every process stops with it.
  for (auto& c : callbacks_) {
    const Verdict v = f(*c);
    if (v && !first) first = v;
  }
  return sync_->agree(first);
}

void Trainer::save_state() {
  // The state goes inside last.pt (the copy resume reads); state.json after
  // it is for people and tools, and lags it when a hard stop falls between.
  run_.save_checkpoint(*model_, engine_->optimizer(), "last.pt", st_.to_json());
  write_state(run_, st_.to_json());
}

TrainResult Trainer::finish(StopReason reason, std::string message) {
  TrainResult r;
  r.reason = reason;
  r.message = std::move(message);
  r.epochs_done = st_.epoch;
  r.best_epoch = st_.best_epoch;
  r.best_score = st_.best_score;
  return r;
}

std::optional<std::vector<GraphResult>> Trainer::validate_shared(Verdict& stop) {
  const size_t world = static_cast<size_t>(sync_->world_size()), rank = static_cast<size_t>(sync_->rank());
  std::vector<size_t> mine;
  for (size_t i = rank; i < data_->valid.size(); i += world) mine.push_back(i);
  for (auto& c : callbacks_) c->on_validation_progress(0, mine.size(), "");
  std::vector<GraphResult> local;
  for (size_t i : mine) {
    local.push_back(evaluate_entry(*model_, data_->valid[i], data_->norm, *o_.eval_chunk, device_));
    Verdict v;
    for (auto& c : callbacks_) {
      const Verdict cv = c->on_validation_progress(local.size(), mine.size(), data_->valid[i].cache.source);
      if (cv && !v) v = cv;
    }
    // One process may stop between graphs; several finish the validation
    // (their shares differ in length) and agree on stopping after it.
    if (world == 1 && v) {
      stop = v;
      return std::nullopt;
    }
  }
  if (world == 1) return local;
  nlohmann::json mine_json = nlohmann::json::array();
  for (size_t k = 0; k < mine.size(); ++k)
    mine_json.push_back(graph_result_json(local[k], mine[k]));
  std::vector<GraphResult> all(data_->valid.size());
  for (const std::string& part : sync_->all_gather(mine_json.dump())) {
    for (const nlohmann::json& j : parse_json_text(part, "another process's validation results", "malformed")) {
      size_t index = 0;
      GraphResult r = graph_result_from_json(j, index);
      all.at(index) = std::move(r);
    }
  }
  return all;
}

// A per-program run (its fitted table validated first) ranks v of its own
// configs: two orders that rank equally well differ in Kendall by about
// sqrt(2 (2v + 5) / (9 v (v - 1))), the statistic's standard error with no
// association, so an epoch replaces the best only by beating it by that
// much. At 3 validation configs (32 measured) that is 0.64: the table,
// whose penalty cross-validation chose inside the measured configs, stays
// (a deep epoch picked on 3 of real AlexNet's configs ranked the held-out
// ones at 0.17). Collection runs: 0.
double Trainer::noise_margin(const std::vector<GraphResult>& results) const {
  if (!validate_first_ || results.size() != 1 || results.front().metrics.configs < 2) return 0.0;
  return kendall_null_sd(results.front().metrics.configs);
}

// Ranks the valid graphs, logs the epoch and keeps the best model; a
// verdict when a callback stopped it between graphs.
Verdict Trainer::validate_and_log(int64_t at, double train_loss, std::chrono::steady_clock::time_point t0) {
  Verdict stop;
  const std::optional<std::vector<GraphResult>> results = validate_shared(stop);
  if (!results) {  // cut between graphs: a resume starts at this validation again
    save_state();
    return stop;
  }
  double score = collection_score(data_->kind, *results);
  std::optional<SourceScores> per_source;
  if (data_->sources.size() > 1) {
    per_source = source_scores(data_->kind, *results, data_->valid_source, data_->sources);
    score = per_source->score;
  }
  if (!std::isfinite(score)) score = -train_loss;  // no validation runtimes: track the training loss
  nlohmann::json metrics = results_json(*results, data_->valid_split, score);
  if (per_source) {
    metrics["collections"] = per_source->per_source;
    for (size_t i = 0; i < results->size(); ++i)
      metrics["graphs"][i]["collection"] = data_->sources.at(static_cast<size_t>(data_->valid_source.at(i)));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json line = {{"epoch", at},
                         {"train_loss", at < 0 ? nlohmann::json(nullptr) : nlohmann::json(train_loss)},
                         {"lr", at < 0 ? 0.0 : cosine_lr((at + 1) * steps_ - 1, total_steps_, warmup_steps_, *o_.lr)},
                         {"score", score},
                         {"seconds", seconds},
                         {"skipped_steps", at < 0 ? 0 : st_.skipped}};
  line["valid"] = metrics["mean"];
  if (at >= 0) {
    line["train_seconds"] = epoch_timing_.first;
    if (steps_memory_.second > 0) {  // resident memory before the steps and its peak during them
      line["steps_resident_mb"] = static_cast<double>(steps_memory_.first) / (1 << 20);
      line["steps_peak_mb"] = static_cast<double>(steps_memory_.second) / (1 << 20);
    }
    // On a GPU: how the steps ran ("CUDA graphs: N captured, M replays", or eager and why).
    if (device_.is_cuda()) line["cuda_graphs"] = engine_->summary();
    if (sync_->world_size() > 1) {
      line["processes"] = sync_->world_size();
      line["allreduce_seconds"] = epoch_timing_.second;
    }
  }
  if (per_source) line["collections"] = per_source->per_source;
  // A final fit (--train-on-valid) validates on seen graphs: its last epoch is kept.
  const bool improved = o_.train_on_valid == 1 ? at >= 0 || st_.best_epoch < 0
                                               : score > st_.best_score + noise_margin(*results);
  if (improved) {
    st_.best_score = score;
    st_.best_epoch = at;
    st_.bad_epochs = 0;
    run_.save_model(*model_, "best.pt");
    write_metrics(run_, metrics);
  } else if (at >= 0) {
    ++st_.bad_epochs;
  }
  line["best"] = improved;
  append_log(run_, line);
  EpochResult result;
  result.epoch = at;
  if (at >= 0) result.train_loss = train_loss;
  result.score = score;
  result.best = improved;
  {
    std::vector<GraphMetrics> m;
    for (const GraphResult& r : *results) m.push_back(r.metrics);
    result.valid = summarize(m);
  }
  if (per_source)
    for (const auto& [label, c] : per_source->per_source.items())
      result.collections.push_back({label, c["score"].is_number() ? c["score"].get<double>() : std::nan(""),
                                    c["graphs"].get<int64_t>()});
  if (at < 0) st_.pre_validated = true;
  if (at >= 0) {  // the epoch is done: a resume starts at the next
    ++st_.epoch;
    st_.step = 0;
    st_.loss_sum = 0;
    st_.skipped = 0;
  }
  save_state();
  return ask([&](Callback& c) { return c.on_validation({at, result, line, score, improved, st_}); });
}

TrainResult Trainer::run() {
  if (!sampler_) sampler_ = default_sampler(o_, data_);
  if (!step_) step_ = std::make_unique<WholeGraphStep>(LossSpec::parse(o_.loss));
  graphs_per_step_ = o_.graphs_per_step.value_or(1);
  const int64_t world = sync_->world_size();
  if (graphs_per_step_ % world != 0)
    throw Error(run_.file("config.json"), "",
                "the run averages " + std::to_string(graphs_per_step_) + " graphs per step, which " +
                    std::to_string(world) + " processes cannot share evenly: use a number of processes that divides it");
  micro_ = graphs_per_step_ / world;
  steps_ = sampler_->steps_per_epoch() / graphs_per_step_;
  if (steps_ < 1) throw Error(run_.path(), "", "trainer: the sampler has fewer picks per epoch than graphs per step");
  total_steps_ = steps_ * *o_.epochs;
  warmup_steps_ = static_cast<int64_t>(o_.warmup * static_cast<double>(total_steps_));
  // The whole run's device work goes to a stream of its own (a CUDA graph
  // is captured from one); nothing changes on the CPU.
  const DeviceStream stream(device_);
  const std::vector<torch::Tensor> trained = model_->trained_parameters();
  StepEngineOptions eo;
  eo.clip = o_.clip;
  eo.lr = *o_.lr;
  eo.weight_decay = *o_.weight_decay;
  eo.cuda_graphs = o_.cuda_graphs;
  engine_ = std::make_unique<StepEngine>(*model_, trained, *step_, *sync_, device_, eo,
                                         [this](const std::string& m) { say(m); });
  const std::vector<torch::Tensor> params = model_->parameters();
  // Every process is prepared (however long each took) before any looks
  // for a state to resume or meets the others in a collective.
  sync_->all_gather("");
  st_ = TrainState{};
  if (run_.has("last.pt") || run_.has("state.json")) {
    if (const auto inside = run_.load_checkpoint(*model_, engine_->optimizer(), "last.pt")) {
      st_ = TrainState::from_json(*inside, run_.file("last.pt"));
      write_state(run_, *inside);  // the copy, caught up where a stop left it behind
    } else {  // a checkpoint from before it held its state: state.json's
      const std::optional<nlohmann::json> saved = saved_state(run_);
      if (!saved) throw Error(run_.file("state.json"), "", "missing: last.pt holds no state and there is no state.json");
      st_ = TrainState::from_json(*saved, run_.file("state.json"));
    }
    say("resuming at epoch " + std::to_string(st_.epoch + 1) + ", step " + std::to_string(st_.step));
  }
  // Lines of epochs the state has not reached go: they are logged again.
  // Also without a checkpoint (a stop after epoch 0's line, before the first
  // save), where the run starts over; with its fitted table not yet
  // validated, a per-program run's "epoch -1" line goes too.
  drop_log_from(run_, validate_first_ && !st_.pre_validated ? -1 : st_.epoch);
  // Every process starts from rank 0's weights (a fresh model is the same
  // everywhere already; this makes it so whatever the initialiser does).
  std::vector<torch::Tensor> shared = params;
  for (const torch::Tensor& b : model_->buffers()) shared.push_back(b);
  sync_->broadcast(shared);
  if (validate_first_ && !st_.pre_validated) {
    const Verdict v = validate_and_log(-1, 0.0, std::chrono::steady_clock::now());
    if (v) return finish(*v);
  }
  if (const Verdict v = ask([&](Callback& c) { return c.on_start(st_); })) return finish(*v);

  // On a GPU the counters are read every few steps (a read waits for the
  // queued work); on the CPU after every step, where it costs nothing.
  const int64_t read_every = engine_->reads_are_free() ? 1 : kReadEvery;
  std::vector<Pick> picks(static_cast<size_t>(micro_));
  while (st_.epoch < *o_.epochs) {
    const auto t0 = std::chrono::steady_clock::now();
    const int64_t epoch = st_.epoch;
    for (auto& c : callbacks_) c->on_epoch_begin(epoch, *o_.epochs, steps_);
    model_->train();
    const double synced_before = sync_->reduce_seconds();
    reset_peak_memory();
    const int64_t resident_before = resident_memory_bytes();
    engine_->start_epoch(st_.loss_sum, st_.skipped);
    double shown_loss = std::numeric_limits<double>::quiet_NaN();
    for (; st_.step < steps_; ++st_.step) {
      const double lr = cosine_lr(epoch * steps_ + st_.step, total_steps_, warmup_steps_, *o_.lr);
      // Global step s takes picks s*G .. s*G+G-1; this process the run of
      // micro_ starting at its rank's place, so any split of G over
      // processes sees the same graphs.
      for (int64_t m = 0; m < micro_; ++m)
        picks[static_cast<size_t>(m)] = sampler_->pick(epoch, st_.step * graphs_per_step_ + sync_->rank() * micro_ + m);
      engine_->run(picks, *data_, lr);
      if ((st_.step + 1) % read_every == 0 || st_.step + 1 == steps_) {
        const StepTotals t = engine_->read();
        shown_loss = t.last_loss;
        if (t.skipped_in_a_row > kMaxSkippedInARow)
          return finish(StopReason::Diverged, data_->train.at(picks.back().graph).cache.source +
                                                  ": training diverged (" + std::to_string(kMaxSkippedInARow) +
                                                  " steps in a row with a non-finite loss or gradient); try a lower --lr");
      }
      if (const Verdict v = ask([&](Callback& c) { return c.on_step({epoch, st_.step, steps_, shown_loss, lr}); })) {
        ++st_.step;
        take_totals();
        save_state();
        return finish(*v);
      }
    }
    take_totals();
    const double train_loss =
        sync_->mean(st_.loss_sum / static_cast<double>(std::max<int64_t>(1, steps_ - st_.skipped)));
    // The steps' own time (a resumed epoch: since the resume) and, with
    // several processes, the all-reduce's part of it.
    epoch_timing_ = {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                     sync_->reduce_seconds() - synced_before};
    steps_memory_ = {resident_before, peak_memory_bytes()};
    if (const Verdict v = validate_and_log(epoch, train_loss, t0)) return finish(*v);
  }
  return finish(StopReason::Finished);
}

void Trainer::take_totals() {
  const StepTotals t = engine_->read();
  st_.loss_sum = t.loss_sum;
  st_.skipped = t.skipped;
}

}  // namespace fastslow::train
