#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <variant>
#include <vector>
#include <string>

#include "commands.h"
#include "launch.h"
#include "table_options.h"
#include "progress.h"
#include "fastslow/data/collection.h"
#include "models/registry.h"
#include "fastslow/error.h"
#include "train/dist_env.h"
#include "train/gloo_sync.h"
#include "train/many_runs.h"
#include "train/option_table.h"
#include "train/trainer.h"

namespace fastslow::cli {
namespace {

std::string fmt_metric(const nlohmann::json& v) {
  if (v.is_null()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v.get<double>());
  return buf;
}

std::string fmt_metric(double v) { return std::isnan(v) ? "-" : fmt_metric(nlohmann::json(v)); }

// The members of a folds or seeds run, and the out-of-fold score once
// every fold has finished (`folds_pending`: some have not).
void print_members(const train::ManyResult& m, const std::string& out, bool folds_pending) {
  std::fprintf(stderr, "%-40s %-14s %10s %8s\n", "member", "stopped by", "best", "epoch");
  for (size_t i = 0; i < m.members.size(); ++i)
    std::fprintf(stderr, "%-40s %-14s %10.4f %8lld\n", m.members[i].c_str(), train::stop_reason_name(m.results[i].reason),
                 m.results[i].best_score, static_cast<long long>(m.results[i].best_epoch + 1));
  if (!m.oof) {
    if (folds_pending)
      std::fprintf(stderr, "out-of-fold score: once every fold has finished (train the others with --fold I)\n");
    return;
  }
  const nlohmann::json& oof = *m.oof;
  const auto& spread = oof["fold_spread"];
  std::fprintf(stderr, "out-of-fold %s: %s over %lld scored graphs; folds %s\n", oof["metric"].get<std::string>().c_str(),
               fmt_metric(oof["score"]).c_str(), static_cast<long long>(oof["scored"].get<int64_t>()),
               spread.is_null() ? "-"
                                : (fmt_metric(spread["mean"]) + " +- " + fmt_metric(spread["sd"]) + " (min " +
                                   fmt_metric(spread["min"]) + ", max " + fmt_metric(spread["max"]) + ")")
                                      .c_str());
  if (oof.contains("collections"))
    for (const auto& [label, c] : oof["collections"].items())
      std::fprintf(stderr, "  %-36s %s (%lld graphs)\n", label.c_str(), fmt_metric(c["score"]).c_str(),
                   static_cast<long long>(c["graphs"].get<int64_t>()));
  std::fprintf(stderr, "%s/oof.json\n", out.c_str());
}

// The terminal's view of a run: preparation, a bar per epoch with a moving
// average of the loss, validation, and one line per epoch from its typed
// results. Quiet (data-parallel workers but rank 0): nothing.
class TrainProgress : public train::Callback {
 public:
  explicit TrainProgress(bool quiet) : quiet_(quiet), cache_(cache_progress()) {}
  void on_message(const std::string& s) override {
    if (!quiet_) std::fprintf(stderr, "%s\n", s.c_str());
  }
  void on_prepare(size_t done, size_t total, const std::string& file) override {
    if (!quiet_) cache_(done, total, file);
  }
  void on_epoch_begin(int64_t epoch, int64_t epochs, int64_t steps) override {
    char label[48];
    std::snprintf(label, sizeof label, "epoch %lld/%lld", static_cast<long long>(epoch + 1),
                  static_cast<long long>(epochs));
    if (!quiet_) bar_ = std::make_unique<ProgressBar>(label, static_cast<size_t>(steps), "steps");
    loss_avg_ = 0;
  }
  train::Verdict on_step(const train::StepInfo& s) override {
    // On a GPU the loss is read back every few steps (NaN before the first read).
    loss_avg_ = s.step == 0 || std::isnan(loss_avg_) ? s.loss : 0.95 * loss_avg_ + 0.05 * s.loss;
    char note[64];
    if (std::isnan(loss_avg_))
      std::snprintf(note, sizeof note, "loss -      lr %.2e", s.lr);
    else
      std::snprintf(note, sizeof note, "loss %.4f lr %.2e", loss_avg_, s.lr);
    if (bar_) bar_->update(static_cast<size_t>(s.step + 1), note);
    return std::nullopt;
  }
  train::Verdict on_validation_progress(size_t done, size_t total, const std::string& graph) override {
    if (quiet_) return std::nullopt;
    if (done == 0) {
      finish();
      bar_ = std::make_unique<ProgressBar>("validate", total, "graphs");
    } else if (bar_) {
      bar_->update(done, graph);
    }
    return std::nullopt;
  }
  train::Verdict on_validation(const train::ValidationInfo& v) override {
    finish();
    if (quiet_) return std::nullopt;
    const train::EpochResult& e = v.result;
    std::fprintf(stderr, "%s %lld: train loss %s | valid kendall %s opa %s top1 %s top5 %s tile %s | score %.4f%s\n",
                 e.epoch < 0 ? "wide table, epoch" : "epoch", static_cast<long long>(e.epoch + 1),
                 e.train_loss ? fmt_metric(*e.train_loss).c_str() : "-", fmt_metric(e.valid.kendall).c_str(),
                 fmt_metric(e.valid.opa).c_str(), fmt_metric(e.valid.top1).c_str(), fmt_metric(e.valid.top5).c_str(),
                 fmt_metric(e.valid.tile_score).c_str(), e.score, e.best ? "  (best)" : "");
    for (const auto& c : e.collections)
      std::fprintf(stderr, "  %-36s score %s (%lld graphs)\n", c.label.c_str(), fmt_metric(c.score).c_str(),
                   static_cast<long long>(c.graphs));
    return std::nullopt;
  }
  void finish() {
    if (bar_) bar_->finish();
    bar_.reset();
  }

 private:
  bool quiet_;
  std::function<void(size_t, size_t, const std::string&)> cache_;
  std::unique_ptr<ProgressBar> bar_;
  double loss_avg_ = 0;
};

}  // namespace

// train and distill: the same options and loop; distill needs a teacher.
Command add_training(CLI::App& app, const char* name, const std::string& description, bool distill) {
  auto o = std::make_shared<train::TrainOptions>();
  auto resume = std::make_shared<bool>(false);
  struct Many {
    int folds = 0, seeds = 0;
    std::optional<int> fold;
    bool train_on_valid = false;
    int nproc = 1;
    int dist_timeout = 60;
    double bucket_mb = 4;
  };
  auto many = std::make_shared<Many>();
  CLI::App* sub = app.add_subcommand(name, description);
  sub->add_option("--folds", many->folds,
                  "K-fold cross-validation: the collection's train and valid graphs (per-program: the configs outside "
                  "--holdout) in K folds, each fold a run in OUT/fold-I validating on its fold; OUT/oof.json holds "
                  "the out-of-fold score");
  sub->add_option("--fold", many->fold, "with --folds: train fold I alone (into OUT/fold-I)");
  sub->add_option("--seeds", many->seeds, "train N members that differ only in seed into OUT/seed-I (one data split)");
  sub->add_flag("--train-on-valid", many->train_on_valid,
                "final fit: the valid graphs (per-program: the valid share) train too; validation then scores seen "
                "data, so early stopping is off (give --epochs) and the last epoch is kept");
  add_table_options(*sub, o);
  sub->get_option("--out")->required();
  sub->add_flag("--resume", *resume, "continue the run in --out (only --epochs may change)");
  sub->add_option("--nproc", many->nproc,
                  "data-parallel: N worker processes on this machine, each step N graphs (one per process), "
                  "gradients averaged; several machines: start every process with torchrun's variables (RANK, "
                  "WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT) instead")
      ->check(CLI::Range(1, 1024))->capture_default_str();
  sub->add_option("--dist-timeout", many->dist_timeout,
                  "data-parallel: seconds to wait for a silent process before stopping with an error")
      ->check(CLI::Range(1, 86400))->capture_default_str();
  sub->add_option("--bucket-mb", many->bucket_mb,
                  "data-parallel: MB of gradients per all-reduce after the first (1 MB); each starts as soon as "
                  "backward has produced its gradients")
      ->check(CLI::Range(0.001, 1024.0))->capture_default_str();

  return {sub, [o, resume, many, distill] {
            if (distill && !*resume && o->teacher.empty())
              throw Error("fastslow distill: give the teacher, --teacher RUN|ENS (a run or an ensemble folder)");
            const std::optional<train::DistEnv> dist = train::DistEnv::from_environment();
            if (many->nproc > 1) {
              if (dist)
                throw Error("--nproc with WORLD_SIZE set: a launcher has started this process already; leave "
                            "--nproc out");
              if (many->folds > 0 || many->seeds > 0)
                throw Error("--nproc with --folds or --seeds: train one run per command in several processes, "
                            "or the members one after another in one");
              return launch_local(many->nproc, command_without_nproc(), many->dist_timeout + 10);
            }
            std::shared_ptr<train::GradientSync> sync;
            if (dist) {
              if (many->folds > 0 || many->seeds > 0 || (*resume && train::is_many(o->out)))
                throw Error("data-parallel runs (WORLD_SIZE " + std::to_string(dist->world_size) +
                            ") train one run: leave --folds and --seeds out");
              if (!*resume && !o->graphs_per_step) o->graphs_per_step = dist->world_size;
              sync = train::connect_gloo(*dist, std::chrono::seconds(many->dist_timeout),
                                         static_cast<int64_t>(many->bucket_mb * (1 << 20)));
            }
            // Only rank 0 talks: the others' progress is the same steps.
            const bool quiet = dist && dist->rank != 0;
            install_interrupt_handler();
            auto progress = std::make_shared<TrainProgress>(quiet);
            const train::Callbacks callbacks = {progress, std::make_shared<train::StopWhen>([] { return interrupted(); })};
            o->train_on_valid = many->train_on_valid ? 1 : 0;
            if (many->fold && many->folds == 0 && !(*resume && train::is_many(o->out)))
              throw Error("--fold needs --folds K");
            if (many->folds > 0 && many->seeds > 0)
              throw Error("--folds with --seeds: train the folds, or the seeds, per command (then combine the runs "
                          "with `fastslow ensemble`)");
            const bool is_many = *resume ? train::is_many(o->out) : (many->folds > 0 || many->seeds > 0);
            train::TrainResult r;
            if (is_many) {
              const train::MemberHook member = [](int i, int n, const std::string& dir) {
                std::fprintf(stderr, "== member %d/%d: %s\n", i + 1, n, dir.c_str());
              };
              const train::ManyResult m =
                  *resume ? train::resume_many(o->out, o->epochs, many->fold, callbacks, member)
                          : train::train_many(*o,
                                              {many->folds > 0 ? "folds" : "seeds",
                                               many->folds > 0 ? many->folds : many->seeds, many->fold},
                                              callbacks, member);
              r = m.last;
              if (!r.interrupted() && r.reason != train::StopReason::Diverged)
                print_members(m, o->out, many->folds > 0 || (*resume && m.members.size() < 2));
            } else {
              r = *resume ? train::resume(o->out, o->epochs, callbacks, sync) : train::train(*o, callbacks, sync);
              if (sync && !quiet && sync->reduce_seconds() > 0)
                std::fprintf(stderr, "data-parallel: %d processes, %.2f s in the gradient all-reduce\n",
                             sync->world_size(), sync->reduce_seconds());
            }
            if (r.reason == train::StopReason::Diverged) {
              progress->finish();
              std::fprintf(stderr, "fastslow: error: %s\n", r.message.c_str());
              return 2;
            }
            if (r.interrupted()) {
              if (!quiet)
                std::fprintf(stderr, "\ninterrupted: state saved; continue with: fastslow train --resume --out %s\n",
                             o->out.c_str());
              return 130;
            }
            if (quiet) return 0;
            if (!is_many)
              std::fprintf(stderr, "done (%s): best validation score %.4f at epoch %lld; model in %s/best.pt\n",
                           train::stop_reason_name(r.reason), r.best_score, static_cast<long long>(r.best_epoch + 1),
                           o->out.c_str());
            std::printf("%s\n", o->out.c_str());
            return 0;
          }};
}

Command add_train_command(CLI::App& app) {
  return add_training(
      app, "train",
      "Learn to rank the configs of a collection (--data DIR --collection ID) or of one graph\n"
      "(--graph FILE --holdout 0.2: learn from some of its configs, rank the rest; --valid-share of them\n"
      "decides early stopping). The run folder\n"
      "gets config.json, stats.json, log.jsonl, best.pt and metrics.json. Ctrl-C finishes the step,\n"
      "saves and exits; --resume --out RUN continues. Options left out take the kind's default.",
      false);
}

Command add_distill_command(CLI::App& app) {
  return add_training(
      app, "distill",
      "Train a student from a teacher (--teacher RUN|ENS, a run or an ensemble folder): train with the\n"
      "teacher's scores as a second signal. The teacher scores the training graphs' measured configs and\n"
      "--teach-samples new legal configs of each graph (the teaching materials, kept in TEACHER/teaching\n"
      "and reused by later students); each step adds --teach-configs of them to the measured ones, and the\n"
      "loss is --loss on the measured runtimes plus --distill-weight x the KL divergence between the\n"
      "teacher's and the student's softmax over the step's configs (--distill-temperature). Every train\n"
      "option sets the student (--model, --hidden, --layers: a smaller model than the teacher's).\n"
      "A per-program student copies a per-program teacher's wide table and distils the deep part.",
      true);
}

}  // namespace fastslow::cli
