#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>
#include <string>

#include "commands.h"
#include "launch.h"
#include "progress.h"
#include "fastslow/data/collection.h"
#include "models/registry.h"
#include "fastslow/error.h"
#include "train/dist_env.h"
#include "train/gloo_sync.h"
#include "train/many_runs.h"
#include "train/trainer.h"

namespace fastslow::cli {
namespace {

std::string fmt_metric(const nlohmann::json& v) {
  if (v.is_null()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v.get<double>());
  return buf;
}

}  // namespace

Command add_train_command(CLI::App& app) {
  auto o = std::make_shared<train::TrainOptions>();
  auto resume = std::make_shared<bool>(false);
  struct Many {
    std::vector<std::string> data, collection;
    int folds = 0, seeds = 0;
    std::optional<int> fold;
    bool train_on_valid = false;
    int nproc = 1;
    int dist_timeout = 60;
    double bucket_mb = 4;
  };
  auto many = std::make_shared<Many>();
  CLI::App* sub = app.add_subcommand(
      "train",
      "Learn to rank the configs of a collection (--data DIR --collection ID) or of one graph\n"
      "(--graph FILE --holdout 0.2: learn from some of its configs, rank the rest; --valid-share of them\n"
      "decides early stopping). The run folder\n"
      "gets config.json, stats.json, log.jsonl, best.pt and metrics.json. Ctrl-C finishes the step,\n"
      "saves and exits; --resume --out RUN continues. Options left out take the kind's default.");
  sub->add_option("--data", many->data,
                  "dataset root holding npz/ (real or from `fastslow synth`); several (repeated or a,b): one model "
                  "learns from all of them")
      ->delimiter(',');
  sub->add_option("--collection", many->collection,
                  "tile:xla, layout:xla:random, layout:xla:default, layout:nlp:random, layout:nlp:default; several "
                  "(repeated or a,b): one model learns from all, each step's graph drawn collection by collection, "
                  "weighted by ID:W (default 1); validation per collection and their mean")
      ->delimiter(',');
  sub->add_option("--folds", many->folds,
                  "K-fold cross-validation: the collection's train and valid graphs (per-program: the configs outside "
                  "--holdout) in K folds, each fold a run in OUT/fold-I validating on its fold; OUT/oof.json holds "
                  "the out-of-fold score");
  sub->add_option("--fold", many->fold, "with --folds: train fold I alone (into OUT/fold-I)");
  sub->add_option("--seeds", many->seeds, "train N members that differ only in seed into OUT/seed-I (one data split)");
  sub->add_flag("--train-on-valid", many->train_on_valid,
                "final fit: the valid graphs (per-program: the valid share) train too; validation then scores seen "
                "data, so early stopping is off (give --epochs) and the last epoch is kept");
  sub->add_option("--graph", o->graph, "per-program tuning: one .npz whose configs are split");
  sub->add_option("--holdout", o->holdout, "per-program: share of unique configs held out (never seen in training; 0: none, learn from every measured config and validate on --valid-share)")
      ->capture_default_str();
  sub->add_option("--valid-share", o->valid_share,
                  "per-program: share of unique configs that decides early stopping (default 0.1)");
  sub->add_option("--out", o->out, "run folder")->required();
  sub->add_option("--cache", o->cache, "folder for preprocessed graphs (default: .cache beside the run folder)");
  sub->add_option("--model", o->model, models::models_help());
  sub->add_option("--join", o->join, "tile sage/gcn: config features joined early (input) or late (after pooling)")
      ->check(CLI::IsMember({"early", "late"}))->capture_default_str();
  sub->add_option("--loss", o->loss, "mse, hinge, listmle, or weighted sums like hinge:1,listmle:0.5 (default: layout hinge:1,listmle:1, per-program hinge:1, tile mse:1,hinge:1)");
  sub->add_option("--tile-features", o->tile_features,
                  "tile: 1 = append the core's tiling features (blocks, steps, padding per output dim) to the 24 "
                  "published config columns, 0 = the published columns alone (default 1)")
      ->check(CLI::Range(0, 1));
  sub->add_option("--wide", o->wide,
                  "per-program layout: 1 = a table of one weight per configurable node x config value and x whole "
                  "layout row beside the model, fitted by ridge before training (default 1 there), 0 = the model alone")
      ->check(CLI::Range(0, 1));
  sub->add_option("--epochs", o->epochs, "epochs (default tile 20, layout 30)");
  sub->add_option("--configs-per-graph", o->configs_per_graph, "configs sampled per step (default tile 64, layout 32)");
  sub->add_option("--steps-per-epoch", o->steps_per_epoch,
                  "default: one visit per training graph, at least 200 (layout) or 50 (tile); per-program: one pass "
                  "over the training configs");
  sub->add_option("--lr", o->lr,
                  "peak learning rate, > 0 (default: the model's: " + models::model_defaults_help([](const models::ModelEntry& e) {
                    char b[32];
                    std::snprintf(b, sizeof b, "%g", e.lr);
                    return std::string(b);
                  }) + ")");
  sub->add_option("--weight-decay", o->weight_decay, "AdamW weight decay, 0 = none (default 1e-4)");
  sub->add_option("--warmup", o->warmup, "share of steps spent warming up")->capture_default_str();
  sub->add_option("--clip", o->clip, "gradient-norm clipping, 0 = off")->capture_default_str();
  sub->add_option("--patience", o->patience,
                  "stop after this many epochs without a better validation score, 0 = never (default: per-program 5, "
                  "collections never)");
  sub->add_option("--hidden", o->hidden, "hidden width, >= 1 (default 64)");
  sub->add_option("--layers", o->layers, "graph layers, 0 = none: the node encoder and the head alone (default 3)");
  sub->add_option("--khop", o->khop, "keep configurable nodes' k-hop neighbourhood, 0 = whole graph")->capture_default_str();
  sub->add_option("--segment-nodes", o->segment_nodes,
                  "layout: graph segment training: each step back-propagates through one segment of at most S "
                  "nodes (topological order), the rest of the graph without gradient; bounds the backward pass's "
                  "memory for whole graphs (--khop 0). 0 = whole graphs (default)");
  sub->add_flag("--segment-history", o->segment_history,
                "with --segment-nodes: the other segments' outputs come from a table of stale ones (GST), each "
                "segment's kept with probability --segment-keep and rescaled, instead of a no-gradient pass over "
                "the whole graph; the table "
                "lives in memory (configs x segments x the readout's width per graph) and refills after --resume");
  sub->add_option("--segment-history-age", o->segment_history_age,
                  "with --segment-history: a stored output older than N steps is recomputed without gradient "
                  "instead of used (0 = kept for good, as in GST)")
      ->capture_default_str();
  sub->add_option("--segment-keep", o->segment_keep,
                  "with --segment-history: the probability that a step keeps a segment's stored output (rescaled "
                  "by 1 / P); 1 = no dropout")
      ->capture_default_str();
  sub->add_option("--eval-chunk", o->eval_chunk,
                  "configs per forward when ranking, >= 1 (default: the model's: " +
                      models::model_defaults_help([](const models::ModelEntry& e) { return std::to_string(e.eval_chunk); }) +
                      ")");
  sub->add_option("--device", o->device, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}))->capture_default_str();
  sub->add_option("--cuda-graphs", o->cuda_graphs, "on a GPU, replay each step as CUDA graphs (1) or launch it op by op (0)")
      ->check(CLI::IsMember({0, 1}))->capture_default_str();
  sub->add_option("--threads", o->threads, "CPU threads, LibTorch's and OpenBLAS's (0 = LibTorch's default; with --nproc, the cores shared out over the workers)")->capture_default_str();
  sub->add_option("--seed", o->seed, "seed of initialisation and sampling")->capture_default_str();
  sub->add_flag("--resume", *resume, "continue the run in --out (only --epochs may change)");
  sub->add_option("--nproc", many->nproc,
                  "data-parallel: N worker processes on this machine, each step N graphs (one per process), "
                  "gradients averaged; several machines: start every process with torchrun's variables (RANK, "
                  "WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT) instead")
      ->check(CLI::Range(1, 1024))->capture_default_str();
  sub->add_option("--graphs-per-step", o->graphs_per_step,
                  "graphs whose gradients a step averages: the processes times the graphs each accumulates "
                  "(default: the number of processes); a run resumes in any number of processes dividing it");
  sub->add_option("--dist-timeout", many->dist_timeout,
                  "data-parallel: seconds to wait for a silent process before stopping with an error")
      ->check(CLI::Range(1, 86400))->capture_default_str();
  sub->add_option("--bucket-mb", many->bucket_mb,
                  "data-parallel: MB of gradients per all-reduce after the first (1 MB); each starts as soon as "
                  "backward has produced its gradients")
      ->check(CLI::Range(0.001, 1024.0))->capture_default_str();

  return {sub, [o, resume, many] {
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
            std::unique_ptr<ProgressBar> bar;
            double loss_avg = 0;
            train::TrainHooks hooks;
            hooks.stop = [] { return interrupted(); };
            hooks.message = [](const std::string& s) { std::fprintf(stderr, "%s\n", s.c_str()); };
            hooks.prepare = cache_progress();
            if (quiet) {
              hooks.message = nullptr;
              hooks.prepare = nullptr;
            }
            hooks.epoch_begin = [&](int64_t epoch, int64_t epochs, int64_t steps) {
              char label[48];
              std::snprintf(label, sizeof label, "epoch %lld/%lld", static_cast<long long>(epoch + 1),
                            static_cast<long long>(epochs));
              if (!quiet) bar = std::make_unique<ProgressBar>(label, static_cast<size_t>(steps), "steps");
              loss_avg = 0;
            };
            hooks.step = [&](const train::StepInfo& s) {
              // On a GPU the loss is read back every few steps (NaN before the first read).
              loss_avg = s.step == 0 || std::isnan(loss_avg) ? s.loss : 0.95 * loss_avg + 0.05 * s.loss;
              char note[64];
              if (std::isnan(loss_avg))
                std::snprintf(note, sizeof note, "loss -      lr %.2e", s.lr);
              else
                std::snprintf(note, sizeof note, "loss %.4f lr %.2e", loss_avg, s.lr);
              if (bar) bar->update(static_cast<size_t>(s.step + 1), note);
            };
            hooks.validate = [&](size_t done, size_t total, const std::string& graph) {
              if (quiet) return;
              if (done == 0) {
                if (bar) bar->finish();
                bar = std::make_unique<ProgressBar>("validate", total, "graphs");
                return;
              }
              if (bar) bar->update(done, graph);
            };
            hooks.epoch_end = [&](const nlohmann::json& l) {
              if (bar) bar->finish();
              if (quiet) return;
              const auto& v = l["valid"];
              const bool before = l["epoch"].get<int64_t>() < 0;  // a per-program run's wide table alone
              std::fprintf(stderr,
                           "%s %lld: train loss %s | valid kendall %s opa %s top1 %s top5 %s tile %s | score %.4f%s\n",
                           before ? "wide table, epoch" : "epoch",
                           static_cast<long long>(l["epoch"].get<int64_t>() + 1), fmt_metric(l["train_loss"]).c_str(),
                           fmt_metric(v["kendall"]).c_str(), fmt_metric(v["opa"]).c_str(),
                           fmt_metric(v["top1_error"]).c_str(), fmt_metric(v["top5_error"]).c_str(),
                           fmt_metric(v["tile_score"]).c_str(), l["score"].get<double>(),
                           l["best"].get<bool>() ? "  (best)" : "");
              if (l.contains("collections"))
                for (const auto& [label, c] : l["collections"].items())
                  std::fprintf(stderr, "  %-36s score %s (%lld graphs)\n", label.c_str(), fmt_metric(c["score"]).c_str(),
                               static_cast<long long>(c["graphs"].get<int64_t>()));
            };
            auto join = [](const std::vector<std::string>& v) {
              std::string out;
              for (const auto& x : v) out += (out.empty() ? "" : ",") + x;
              return out;
            };
            o->data = join(many->data);
            o->collection = join(many->collection);
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
                  *resume ? train::resume_many(o->out, o->epochs, many->fold, hooks, member)
                          : train::train_many(*o,
                                              {many->folds > 0 ? "folds" : "seeds",
                                               many->folds > 0 ? many->folds : many->seeds, many->fold},
                                              hooks, member);
              r = m.last;
              if (!r.interrupted() && r.reason != train::StopReason::Diverged) {
                std::fprintf(stderr, "%-40s %-14s %10s %8s\n", "member", "stopped by", "best", "epoch");
                for (size_t i = 0; i < m.members.size(); ++i)
                  std::fprintf(stderr, "%-40s %-14s %10.4f %8lld\n", m.members[i].c_str(),
                               train::stop_reason_name(m.results[i].reason), m.results[i].best_score,
                               static_cast<long long>(m.results[i].best_epoch + 1));
                if (m.oof) {
                  const auto& spread = (*m.oof)["fold_spread"];
                  std::fprintf(stderr, "out-of-fold %s: %s over %lld scored graphs; folds %s\n",
                               (*m.oof)["metric"].get<std::string>().c_str(), fmt_metric((*m.oof)["score"]).c_str(),
                               static_cast<long long>((*m.oof)["scored"].get<int64_t>()),
                               spread.is_null() ? "-"
                                                : (fmt_metric(spread["mean"]) + " +- " + fmt_metric(spread["sd"]) +
                                                   " (min " + fmt_metric(spread["min"]) + ", max " +
                                                   fmt_metric(spread["max"]) + ")").c_str());
                  if ((*m.oof).contains("collections"))
                    for (const auto& [label, c] : (*m.oof)["collections"].items())
                      std::fprintf(stderr, "  %-36s %s (%lld graphs)\n", label.c_str(), fmt_metric(c["score"]).c_str(),
                                   static_cast<long long>(c["graphs"].get<int64_t>()));
                  std::fprintf(stderr, "%s/oof.json\n", o->out.c_str());
                } else if (many->folds > 0 || (*resume && m.members.size() < 2)) {
                  std::fprintf(stderr, "out-of-fold score: once every fold has finished (train the others with --fold I)\n");
                }
              }
            } else {
              r = *resume ? train::resume(o->out, o->epochs, hooks, {}, sync) : train::train(*o, hooks, {}, sync);
              if (sync && !quiet && sync->reduce_seconds() > 0)
                std::fprintf(stderr, "data-parallel: %d processes, %.2f s in the gradient all-reduce\n",
                             sync->world_size(), sync->reduce_seconds());
            }
            if (r.reason == train::StopReason::Diverged) {
              if (bar) bar->finish();
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

}  // namespace fastslow::cli
