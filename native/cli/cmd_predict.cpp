#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "fastslow/data/collection.h"
#include "fastslow/data/submission.h"
#include "progress.h"
#include "train/evaluate.h"
#include "train/loaded_run.h"

namespace fastslow::cli {

Command add_predict_command(CLI::App& app) {
  struct Opts {
    std::string run, split = "test", csv, device = "auto", collection;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "predict",
      "Rank the configs of a split's graphs with a run's best model and write the competition CSV\n"
      "(ID,TopConfigs: tile rows the best five, layout rows every config, best first).");
  sub->add_option("--run", o->run, "run folder from `fastslow train`")->required();
  CLI::Option* split = sub->add_option("--split", o->split,
                                       "test (default), valid or train; per-program runs: all (default), train, "
                                       "valid, holdout (= test)");
  sub->add_option("--csv", o->csv, "output CSV")->required();
  sub->add_option("--collection", o->collection, "collection for the row IDs (default: the run's)");
  sub->add_option("--device", o->device, "auto, cpu or cuda")->capture_default_str();
  return {sub, [o, split] {
            const train::LoadedRun run = train::load_run(o->run, o->device);
            // One program's CSV row lists every config of the graph.
            if (split->count() == 0 && !run.options.graph.empty()) o->split = "all";
            const std::string collection = o->collection.empty() ? run.options.collection : o->collection;
            parse_collection_id(collection);
            const std::vector<train::GraphEntry> graphs = train::load_split(run, o->split, cache_progress());
            ProgressBar bar("rank", graphs.size(), "graphs");
            std::vector<SubmissionRow> rows;
            for (const train::GraphEntry& e : graphs) {
              train::GraphResult r = train::evaluate_entry(*run.model, e, run.norm, *run.options.eval_chunk, run.device);
              rows.push_back(submission_row(collection, r.graph, std::move(r.ranking)));
              bar.update(rows.size(), rows.back().id);
            }
            bar.finish();
            write_submission_csv(o->csv, rows);
            std::printf("%s (%zu rows)\n", o->csv.c_str(), rows.size());
            return 0;
          }};
}

}  // namespace fastslow::cli
