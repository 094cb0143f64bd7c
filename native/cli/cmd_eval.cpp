#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include "commands.h"
#include "format.h"
#include "progress.h"
#include "train/run_dir.h"
#include "train/evaluate.h"
#include "train/rank_split.h"

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
  sub->add_option("--run", o->run, "run folder from `fastslow train`, or an ensemble folder")->required();
  sub->add_option("--split", o->split, "train, valid or test (per-program runs: train, valid (early stopping), holdout = test (never seen), all)")
      ->capture_default_str();
  sub->add_option("--device", o->device, "auto, cpu or cuda")->capture_default_str();
  sub->add_flag("--json", o->json, "print the JSON instead of the table");
  return {sub, [o] {
            const train::SplitRanking run =
                train::rank_split(o->run, o->split, o->device, cache_progress(), rank_progress());
            const std::vector<train::GraphResult>& results = run.results;
            double score = train::collection_score(run.kind, results);
            std::optional<train::SourceScores> per_source;
            if (!run.labels.empty()) {
              per_source = train::source_scores(run.kind, results, run.source, run.labels);
              score = per_source->score;
            }
            std::vector<GraphMetrics> all;
            for (const auto& r : results) all.push_back(r.metrics);
            const CollectionMetrics mean = summarize(all);
            nlohmann::json j = train::results_json(results, o->split, score);
            j["run"] = o->run;
            j["collection"] = run.options.collection;
            if (run.members > 1) j["ensemble"] = {{"members", run.members}, {"combine", run.combine}};
            if (per_source) j["collections"] = per_source->per_source;
            if (run.in_sample) j["in_sample"] = true;
            train::RunDir(o->run).write_json("eval_" + o->split + ".json", j);
            if (o->json) {
              std::printf("%s\n", j.dump(2).c_str());
              return 0;
            }
            // Ranked and measured differ where a file holds configs nobody
            // measured (runtime 0): the metrics are over the measured ones.
            std::printf("%-32s %8s %8s %8s %8s %8s %8s %8s %8s\n", "graph", "ranked", "measured", "kendall", "opa",
                        "top1err", "top5err", "top10err", "tile");
            for (const auto& r : results)
              std::printf("%-32s %8zu %8lld %8s %8s %8s %8s %8s %8s\n", r.graph.c_str(), r.ranking.size(),
                          static_cast<long long>(r.metrics.configs), metric_cell(r.metrics.kendall).c_str(),
                          metric_cell(r.metrics.opa).c_str(), metric_cell(r.metrics.top1).c_str(), metric_cell(r.metrics.top5).c_str(),
                          metric_cell(r.metrics.top10).c_str(), metric_cell(r.metrics.tile_score).c_str());
            const std::string mean_of = "mean of " + std::to_string(results.size()) + (results.size() == 1 ? " graph" : " graphs");
            std::printf("%-32s %8s %8s %8s %8s %8s %8s %8s %8s\n", mean_of.c_str(), "", "",
                        metric_cell(mean.kendall).c_str(), metric_cell(mean.opa).c_str(), metric_cell(mean.top1).c_str(),
                        metric_cell(mean.top5).c_str(), metric_cell(mean.top10).c_str(), metric_cell(mean.tile_score).c_str());
            if (per_source)
              for (const auto& [label, c] : per_source->per_source.items())
                std::printf("%-32s %8lld graphs, score %s\n", label.c_str(),
                            static_cast<long long>(c["graphs"].get<int64_t>()),
                            c["score"].is_number() ? metric_cell(c["score"].get<double>()).c_str() : "-");
            if (run.members > 1) std::printf("ensemble of %d members (%s)\n", run.members, run.combine.c_str());
            if (run.in_sample)
              std::printf("note: these graphs were trained on (a final fit, or folds other than a member's own): "
                          "not an out-of-sample score\n");
            std::printf("%s score (%s): %s\n", run.options.collection.c_str(),
                        run.kind == GraphKind::Tile ? "mean tile score" : "mean Kendall tau", metric_cell(score).c_str());
            if (mean.graphs > 0 && std::isnan(score))
              std::printf("(no measured runtimes in this split: use `fastslow predict` for rankings)\n");
            return 0;
          }};
}

}  // namespace fastslow::cli
