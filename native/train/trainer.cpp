#include "train/trainer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fastslow/error.h"
#include "train/evaluate.h"
#include "train/schedule.h"

namespace fastslow::train {

namespace {

// Non-finite steps in a row after which a run is judged diverged.
constexpr int64_t kMaxSkippedInARow = 20;

void set_lr(torch::optim::Optimizer& opt, double lr) {
  for (auto& g : opt.param_groups()) static_cast<torch::optim::AdamWOptions&>(g.options()).lr(lr);
}

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
  run_.save_checkpoint(*model_, *opt_, "last.pt", st_.to_json());
  run_.write_json("state.json", st_.to_json());
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

// Ranks the valid graphs, logs the epoch and keeps the best model; a
// verdict when a callback stopped it between graphs.
Verdict Trainer::validate_and_log(int64_t at, double train_loss, std::chrono::steady_clock::time_point t0) {
  Verdict stop;
  for (auto& c : callbacks_) c->on_validation_progress(0, data_->valid.size(), "");
  const std::optional<std::vector<GraphResult>> results = evaluate_entries(
      *model_, data_->valid, data_->norm, *o_.eval_chunk, device_,
      [&](size_t done, size_t total, const std::string& graph) {
        stop = ask([&](Callback& c) { return c.on_validation_progress(done, total, graph); });
        return !stop;
      });
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
  if (per_source) line["collections"] = per_source->per_source;
  // A final fit (--train-on-valid) validates on seen graphs: its last epoch is kept.
  const bool improved = o_.train_on_valid == 1 ? at >= 0 || st_.best_epoch < 0 : score > st_.best_score;
  if (improved) {
    st_.best_score = score;
    st_.best_epoch = at;
    st_.bad_epochs = 0;
    run_.save_model(*model_, "best.pt");
    run_.write_json("metrics.json", metrics);
  } else if (at >= 0) {
    ++st_.bad_epochs;
  }
  line["best"] = improved;
  run_.append_log(line);
  if (at < 0) st_.pre_validated = true;
  if (at >= 0) {  // the epoch is done: a resume starts at the next
    ++st_.epoch;
    st_.step = 0;
    st_.loss_sum = 0;
    st_.skipped = 0;
  }
  save_state();
  return ask([&](Callback& c) { return c.on_validation({at, line, score, improved, st_}); });
}

TrainResult Trainer::run() {
  if (!sampler_) sampler_ = default_sampler(o_, data_);
  if (!step_) step_ = std::make_unique<WholeGraphStep>(LossSpec::parse(o_.loss), device_);
  steps_ = sampler_->steps_per_epoch();
  total_steps_ = steps_ * *o_.epochs;
  warmup_steps_ = static_cast<int64_t>(o_.warmup * static_cast<double>(total_steps_));
  const std::vector<torch::Tensor> trained = model_->trained_parameters();
  opt_ = std::make_unique<torch::optim::AdamW>(trained, torch::optim::AdamWOptions(*o_.lr).weight_decay(*o_.weight_decay));
  const std::vector<torch::Tensor> params = model_->parameters();
  st_ = TrainState{};
  if (run_.has("last.pt") || run_.has("state.json")) {
    if (const auto inside = run_.load_checkpoint(*model_, *opt_, "last.pt")) {
      st_ = TrainState::from_json(*inside, run_.file("last.pt"));
      run_.write_json("state.json", *inside);  // the copy, caught up where a stop left it behind
    } else {  // a checkpoint from before it held its state
      st_ = TrainState::from_json(run_.read_json("state.json"), run_.file("state.json"));
    }
    say("resuming at epoch " + std::to_string(st_.epoch + 1) + ", step " + std::to_string(st_.step));
  }
  // Lines of epochs the state has not reached go: they are logged again.
  // Also without a checkpoint (a stop after epoch 0's line, before the first
  // save), where the run starts over; with its fitted table not yet
  // validated, a per-program run's "epoch -1" line goes too.
  run_.truncate_log(validate_first_ && !st_.pre_validated ? -1 : st_.epoch);
  if (validate_first_ && !st_.pre_validated) {
    const Verdict v = validate_and_log(-1, 0.0, std::chrono::steady_clock::now());
    if (v) return finish(*v);
  }
  if (const Verdict v = ask([&](Callback& c) { return c.on_start(st_); })) return finish(*v);

  int64_t skipped_in_a_row = 0;
  while (st_.epoch < *o_.epochs) {
    const auto t0 = std::chrono::steady_clock::now();
    const int64_t epoch = st_.epoch;
    for (auto& c : callbacks_) c->on_epoch_begin(epoch, *o_.epochs, steps_);
    model_->train();
    for (; st_.step < steps_; ++st_.step) {
      const Pick pick = sampler_->pick(epoch, st_.step);
      const double lr = cosine_lr(epoch * steps_ + st_.step, total_steps_, warmup_steps_, *o_.lr);
      set_lr(*opt_, lr);
      opt_->zero_grad();
      const torch::Tensor loss = step_->forward_backward(*model_, *data_, pick);
      sync_->reduce(trained);
      const double grad_norm =
          torch::nn::utils::clip_grad_norm_(params, o_.clip > 0 ? o_.clip : std::numeric_limits<double>::infinity());
      const double l = loss.item<double>();
      if (!step_is_finite(*sync_, l, grad_norm)) {
        ++st_.skipped;
        if (++skipped_in_a_row > kMaxSkippedInARow)
          return finish(StopReason::Diverged, data_->train.at(pick.graph).cache.source + ": training diverged (" +
                                                  std::to_string(kMaxSkippedInARow) +
                                                  " steps in a row with a non-finite loss or gradient); try a lower --lr");
      } else {
        skipped_in_a_row = 0;
        opt_->step();
        st_.loss_sum += l;
      }
      if (const Verdict v = ask([&](Callback& c) { return c.on_step({epoch, st_.step, steps_, l, lr}); })) {
        ++st_.step;
        save_state();
        return finish(*v);
      }
    }
    const double train_loss = st_.loss_sum / static_cast<double>(std::max<int64_t>(1, steps_ - st_.skipped));
    if (const Verdict v = validate_and_log(epoch, train_loss, t0)) return finish(*v);
  }
  return finish(StopReason::Finished);
}

}  // namespace fastslow::train
