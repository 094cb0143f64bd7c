#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "format.h"
#include "progress.h"
#include "train/run_dir.h"
#include "train/evaluate.h"
#include "train/loaded_run.h"

namespace fastslow::cli {

Command add_eval_command(CLI::App& app) {
  struct Opts {
    std::string run, split = "valid", device = "auto";
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "eval",
      "Rank every config of a split's graphs with a run's best model: per-graph Kendall tau, OPA and\n"
      "top-1/5/10 error, and the collection score. Also written to RUN/eval_<split>.json.");
  sub->add_option("--run", o->run, "run folder from `fastslow train`")->required();
  sub->add_option("--split", o->split, "train, valid or test (per-program runs: train, valid (early stopping), holdout = test (never seen), all)")
      ->capture_default_str();
  sub->add_option("--device", o->device, "auto, cpu or cuda")->capture_default_str();
  sub->add_flag("--json", o->json, "print the JSON instead of the table");
  return {sub, [o] {
            const train::LoadedRun run = train::load_run(o->run, o->device);
            const std::vector<train::GraphEntry> graphs = train::load_split(run, o->split, cache_progress());
            ProgressBar bar("rank", graphs.size(), "graphs");
            const std::vector<train::GraphResult> results = *train::evaluate_entries(
                *run.model, graphs, run.norm, *run.options.eval_chunk, run.device,
                [&](size_t done, size_t, const std::string& graph) {
                  bar.update(done, graph);
                  return true;
                });
            bar.finish();
            const double score = train::collection_score(run.kind(), results);
            std::vector<GraphMetrics> all;
            for (const auto& r : results) all.push_back(r.metrics);
            const CollectionMetrics mean = summarize(all);
            nlohmann::json j = train::results_json(results, o->split, score);
            j["run"] = o->run;
            j["collection"] = run.options.collection;
            train::RunDir(o->run).write_json("eval_" + o->split + ".json", j);
            if (o->json) {
              std::printf("%s\n", j.dump(2).c_str());
              return 0;
            }
            std::printf("%-32s %8s %8s %8s %8s %8s %8s %8s\n", "graph", "configs", "kendall", "opa", "top1err",
                        "top5err", "top10err", "tile");
            for (const auto& r : results)
              std::printf("%-32s %8lld %8s %8s %8s %8s %8s %8s\n", r.graph.c_str(),
                          static_cast<long long>(r.metrics.configs), metric_cell(r.metrics.kendall).c_str(),
                          metric_cell(r.metrics.opa).c_str(), metric_cell(r.metrics.top1).c_str(), metric_cell(r.metrics.top5).c_str(),
                          metric_cell(r.metrics.top10).c_str(), metric_cell(r.metrics.tile_score).c_str());
            std::printf("%-32s %8lld %8s %8s %8s %8s %8s %8s\n", "mean", static_cast<long long>(results.size()),
                        metric_cell(mean.kendall).c_str(), metric_cell(mean.opa).c_str(), metric_cell(mean.top1).c_str(),
                        metric_cell(mean.top5).c_str(), metric_cell(mean.top10).c_str(), metric_cell(mean.tile_score).c_str());
            std::printf("%s score (%s): %s\n", run.options.collection.c_str(),
                        run.kind() == GraphKind::Tile ? "mean tile score" : "mean Kendall tau", metric_cell(score).c_str());
            if (mean.graphs > 0 && std::isnan(score))
              std::printf("(no measured runtimes in this split: use `fastslow predict` for rankings)\n");
            return 0;
          }};
}

}  // namespace fastslow::cli
