#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "progress.h"
#include "fastslow/data/collection.h"
#include "models/registry.h"
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
  CLI::App* sub = app.add_subcommand(
      "train",
      "Learn to rank the configs of a collection (--data DIR --collection ID) or of one graph\n"
      "(--graph FILE --holdout 0.2: learn from some of its configs, rank the rest; --valid-share of them\n"
      "decides early stopping). The run folder\n"
      "gets config.json, stats.json, log.jsonl, best.pt and metrics.json. Ctrl-C finishes the step,\n"
      "saves and exits; --resume --out RUN continues. Options left out take the kind's default.");
  sub->add_option("--data", o->data, "dataset root holding npz/ (real or from `fastslow synth`)");
  sub->add_option("--collection", o->collection, "tile:xla, layout:xla:random, layout:xla:default, layout:nlp:random, layout:nlp:default");
  sub->add_option("--graph", o->graph, "per-program tuning: one .npz whose configs are split");
  sub->add_option("--holdout", o->holdout, "per-program: share of unique configs held out (never seen in training)")
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
  sub->add_option("--eval-chunk", o->eval_chunk,
                  "configs per forward when ranking, >= 1 (default: the model's: " +
                      models::model_defaults_help([](const models::ModelEntry& e) { return std::to_string(e.eval_chunk); }) +
                      ")");
  sub->add_option("--device", o->device, "auto, cpu or cuda")->check(CLI::IsMember({"auto", "cpu", "cuda"}))->capture_default_str();
  sub->add_option("--threads", o->threads, "CPU threads (0 = LibTorch's default)")->capture_default_str();
  sub->add_option("--seed", o->seed, "seed of initialisation and sampling")->capture_default_str();
  sub->add_flag("--resume", *resume, "continue the run in --out (only --epochs may change)");

  return {sub, [o, resume] {
            install_interrupt_handler();
            std::unique_ptr<ProgressBar> bar;
            double loss_avg = 0;
            train::TrainHooks hooks;
            hooks.stop = [] { return interrupted(); };
            hooks.message = [](const std::string& s) { std::fprintf(stderr, "%s\n", s.c_str()); };
            hooks.prepare = cache_progress();
            hooks.epoch_begin = [&](int64_t epoch, int64_t epochs, int64_t steps) {
              char label[48];
              std::snprintf(label, sizeof label, "epoch %lld/%lld", static_cast<long long>(epoch + 1),
                            static_cast<long long>(epochs));
              bar = std::make_unique<ProgressBar>(label, static_cast<size_t>(steps), "steps");
              loss_avg = 0;
            };
            hooks.step = [&](const train::StepInfo& s) {
              loss_avg = s.step == 0 ? s.loss : 0.95 * loss_avg + 0.05 * s.loss;
              char note[64];
              std::snprintf(note, sizeof note, "loss %.4f lr %.2e", loss_avg, s.lr);
              if (bar) bar->update(static_cast<size_t>(s.step + 1), note);
            };
            hooks.validate = [&](size_t done, size_t total, const std::string& graph) {
              if (done == 0) {
                if (bar) bar->finish();
                bar = std::make_unique<ProgressBar>("validate", total, "graphs");
                return;
              }
              bar->update(done, graph);
            };
            hooks.epoch_end = [&](const nlohmann::json& l) {
              if (bar) bar->finish();
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
            };
            const train::TrainResult r = *resume ? train::resume(o->out, o->epochs, hooks) : train::train(*o, hooks);
            if (r.reason == train::StopReason::Diverged) {
              if (bar) bar->finish();
              std::fprintf(stderr, "fastslow: error: %s\n", r.message.c_str());
              return 2;
            }
            if (r.interrupted()) {
              std::fprintf(stderr, "\ninterrupted: state saved; continue with: fastslow train --resume --out %s\n",
                           o->out.c_str());
              return 130;
            }
            std::fprintf(stderr, "done (%s): best validation score %.4f at epoch %lld; model in %s/best.pt\n",
                         train::stop_reason_name(r.reason), r.best_score, static_cast<long long>(r.best_epoch + 1), o->out.c_str());
            std::printf("%s\n", o->out.c_str());
            return 0;
          }};
}

}  // namespace fastslow::cli
