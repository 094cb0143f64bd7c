#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "progress.h"
#include "table_options.h"
#include "fastslow/tune/config_space.h"
#include "tune/session.h"

namespace fastslow::cli {

Command add_tune_command(CLI::App& app) {
  auto s = std::make_shared<tune::TuneSettings>();
  auto run = std::make_shared<train::TrainOptions>();
  auto strategy = std::make_shared<std::string>("epsilon");
  CLI::App* sub = app.add_subcommand(
      "tune",
      "Autotune one layout or tile graph from few measurements: measure --start configs (the file's most\n"
      "common config first, then random ones), then each round fit a model on everything measured, pick\n"
      "the next --batch (--strategy) and measure them. OUT gets tune.json (settings, every measurement,\n"
      "the best), measured.csv and round-NNN/ for each round with something to keep (a measuring command's\n"
      "CSVs; with --predictor fastslow the round's measured.npz and the run trained on it). Ctrl-C stops\n"
      "after the round; the same command goes on from there.");
  sub->add_option("--graph", s->graph, "the layout or tile .npz whose unique configs are the candidates")->required();
  sub->add_option("--out", s->out, "the session folder")->required();
  sub->add_option("--rounds", s->rounds, "rounds after the starting batch (more, on a session already run: it goes on)")
      ->check(CLI::Range(int64_t{0}, int64_t{100000}))->capture_default_str();
  sub->add_option("--batch", s->batch, "configs measured per round")->check(CLI::Range(int64_t{1}, int64_t{1} << 30))
      ->capture_default_str();
  sub->add_option("--start", s->start, "configs measured first (--start-from)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30))->capture_default_str();
  auto start_from = std::make_shared<std::string>("common");
  sub->add_option("--start-from", *start_from,
                  "common: the config nearest each node's most common setting in the file (the compiler's own "
                  "choice in a default collection, which an engineer measures first) then random ones; random: "
                  "all at random (the reference order)")
      ->check(CLI::IsMember({"common", "random"}))->capture_default_str();
  sub->add_option("--predictor", s->predictor,
                  "fastslow: a per-program run trained on the measured configs each round (the training options "
                  "below apply, --init RUN for a pre-trained prior); ridge: one-hot ridge, penalty by 4-fold "
                  "cross-validation, 8 bootstrap members; physics (layout graphs): one-hot ridge plus five terms every "
                  "node shares (padding to 8x128 tiles, relayout copies, lane moves, missed preferred minor dim, "
                  "batch dim minor), which price orders the file never holds (--space orders); run: --model-run "
                  "as it is")
      ->check(CLI::IsMember({"fastslow", "ridge", "physics", "run"}))->capture_default_str();
  sub->add_option("--model-run", s->model_run,
                  "with --predictor run: a trained run scoring the configs as it is, not trained on the "
                  "measurements (a tile:xla collection's run for a tile kernel: it knows tiling from hundreds of "
                  "kernels)");
  sub->add_option("--strategy", *strategy,
                  "greedy: the predicted best; epsilon: each pick random with probability --epsilon; disagree: "
                  "predicted rank minus --kappa x the ensemble's disagreement; random: the reference")
      ->check(CLI::IsMember({"greedy", "epsilon", "disagree", "random"}))->capture_default_str();
  sub->add_option("--epsilon", s->pick.epsilon, "epsilon: chance that a pick is random")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  sub->add_option("--kappa", s->pick.kappa, "disagree: weight of the disagreement (rank fractions)")
      ->check(CLI::Range(0.0, 100.0))->capture_default_str();
  sub->add_option("--measure", s->measure,
                  "file: look each runtime up in the graph file (replaying its measurements; configs without a runtime there are left out); otherwise a command "
                  "run as `CMD IN.csv OUT.csv`: IN.csv holds config,node,<layout features> per configurable node "
                  "of each config to measure (tile: config,<tile features> per config), the command writes "
                  "config,runtime_ns per config")
      ->capture_default_str();
  sub->add_option("--measure-timeout", s->measure_timeout, "seconds a measuring command may take per round, 0 = no limit")
      ->check(CLI::Range(0.0, 1e9))->capture_default_str();
  sub->add_option("--seed", s->seed, "seed of the starting batch, the picks, the runs and the proposal search")
      ->capture_default_str();
  auto space = std::make_shared<std::string>("menu");
  sub->add_option("--propose", s->propose,
                  "after the rounds, propose this many configs nobody measured: an evolutionary search (mutation, "
                  "crossover) with the predictor fitted on every measurement as its oracle; writes OUT/proposed.npz "
                  "(the graph with them, runtimes 0) and OUT/proposed.csv (predicted runtime, speed-ups, the "
                  "models' disagreement, and the nodes each changes from the nearest measured config)")
      ->check(CLI::Range(int64_t{0}, int64_t{100000}))->capture_default_str();
  sub->add_option("--space", *space,
                  "what proposals may change: menu (layout: each tensor's order one the file holds for it; tile: "
                  "each tile bound a value the file holds for it; in new combinations), orders (layout: any legal "
                  "minor-to-major order of the tensor's rank), sizes (tile: also the powers of two between the "
                  "file's smallest and largest bound) or shape (tile: every TPU tile size of the kernel's output "
                  "shape, where the file's bounds are such sizes)")
      ->check(CLI::IsMember({"menu", "orders", "sizes", "shape"}))->capture_default_str();
  sub->add_option("--propose-budget", s->search.budget, "new candidates the proposal search scores")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 30))->capture_default_str();
  sub->add_option("--population", s->search.population, "configs the search keeps from one generation to the next")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20))->capture_default_str();
  // What a round's run takes of the training options' table: the model and
  // how it trains, not the data, the split or the folder (the session sets them).
  add_table_options(*sub, run, [](const train::OptionSpec& spec) {
    using G = train::OptionGroup;
    const std::string key = spec.key;
    if (key == "seed" || key == "out" || key == "cache") return false;
    return spec.group != G::Data || key == "valid_share" || key == "khop";
  });
  return {sub, [s, run, strategy, space, start_from] {
            s->pick.strategy = parse_pick_strategy(*strategy);
            s->start_from = parse_start_from(*start_from);
            s->space = parse_space_kind(*space);
            s->run = *run;
            install_interrupt_handler();
            std::unique_ptr<ProgressBar> bar;
            const tune::TuneOutcome o = tune::run_session(
                *s, [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); },
                [] { return interrupted(); },
                [&bar](int64_t done, int64_t budget) {
                  if (!bar) bar = std::make_unique<ProgressBar>("propose", static_cast<size_t>(budget), "configs");
                  bar->update(static_cast<size_t>(done));
                });
            if (bar) bar->finish();
            if (!o.proposals.is_null()) {
              const nlohmann::json& p = o.proposals;
              std::fprintf(stderr, "proposed %d configs (%lld scored%s) in %s/proposed.npz", p["count"].get<int>(),
                           static_cast<long long>(p["scored"].get<int64_t>()),
                           p["interrupted"].get<bool>() ? ", stopped early: what was found is kept" : "", s->out.c_str());
              if (p.contains("best")) {
                const int64_t changed = p["best"]["changed_from_measured"].get<int64_t>();
                std::string unit = p["changed_unit"].get<std::string>();
                if (changed == 1) unit.pop_back();  // "1 node", "1 value"
                std::fprintf(stderr, "; the best predicted %.4gx the best measured, %lld %s from the nearest measured config",
                             p["best"]["speedup_over_best_measured"].get<double>(),
                             static_cast<long long>(changed), unit.c_str());
                const nlohmann::json& c = p["changed_from_measured"];
                if (c["max"].get<int64_t>() > c["min"].get<int64_t>())
                  std::fprintf(stderr, " (the proposals: %lld to %lld; the farther, the more the model extrapolates)",
                               static_cast<long long>(c["min"].get<int64_t>()), static_cast<long long>(c["max"].get<int64_t>()));
              }
              std::fprintf(stderr, "\n");
            }
            if (o.interrupted) {
              if (!o.proposals.is_null())
                std::fprintf(stderr, "stopped: the proposals found so far are in %s/proposed.npz\n", s->out.c_str());
              else
                std::fprintf(stderr, "stopped: %zu measurements kept in %s (run the same command to go on)\n",
                             o.trace.steps.size(), s->out.c_str());
              return 130;
            }
            const TraceSummary sum = summarize_trace(o.trace, o.best_known > 0 ? o.best_known : 1.0);
            std::printf("%s\n", s->out.c_str());
            const char* unit = o.ratio ? " x the normalizer" : " ns";
            std::fprintf(stderr, "best measured: %.6g%s after %zu measurements", sum.best, unit, o.trace.steps.size());
            if (o.best_known > 0 && sum.to_target >= 0)
              std::fprintf(stderr, " (the file's best %.6g%s; within 0.1 %% after %lld)", o.best_known, unit,
                           static_cast<long long>(sum.to_target));
            else if (o.best_known > 0)
              std::fprintf(stderr, " (the file's best %.6g%s; none within 0.1 %% of it yet)", o.best_known, unit);
            std::fprintf(stderr, "\n");
            return 0;
          }};
}

}  // namespace fastslow::cli
