#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "fastslow/data/collection.h"
#include "fastslow/data/submission.h"
#include "progress.h"
#include "train/evaluate.h"
#include "train/ensemble_spec.h"
#include "train/loaded_run.h"
#include "train/rank_split.h"
#include "fastslow/error.h"

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
  sub->add_option("--run", o->run, "run folder from `fastslow train`, or an ensemble folder")->required();
  CLI::Option* split = sub->add_option("--split", o->split,
                                       "test (default), valid or train; per-program runs: all (default), train, "
                                       "valid, holdout (= test)");
  sub->add_option("--csv", o->csv, "output CSV")->required();
  sub->add_option("--collection", o->collection, "collection for the row IDs (default: the run's)");
  sub->add_option("--device", o->device, "auto, cpu or cuda")->capture_default_str();
  return {sub, [o, split] {
            // One program's CSV row lists every config of the graph: is the run (or the first member) per-program?
            if (split->count() == 0) {
              const std::string first = train::EnsembleSpec::is_ensemble(o->run)
                                            ? train::EnsembleSpec::read(o->run).members.front().run
                                            : o->run;
              if (!train::load_run_options(first).graph.empty()) o->split = "all";
            }
            const train::SplitRanking run =
                train::rank_split(o->run, o->split, o->device, cache_progress(), rank_progress());
            std::string collection = o->collection.empty() ? run.options.collection : o->collection;
            if (o->collection.empty() && !run.labels.empty())
              throw Error("--collection: this run learnt from several collections (" + run.options.collection +
                          "); name the one its rows are for");
            parse_collection_id(collection);
            std::vector<SubmissionRow> rows;
            for (size_t i = 0; i < run.results.size(); ++i) {
              // A run of several collections: the rows of the one named.
              if (!run.labels.empty()) {
                const std::string& label = run.labels.at(static_cast<size_t>(run.source.at(i)));
                if (label.size() < collection.size() || label.compare(label.size() - collection.size(), collection.size(), collection) != 0)
                  continue;
              }
              rows.push_back(submission_row(collection, run.results[i].graph, run.results[i].ranking));
            }
            write_submission_csv(o->csv, rows);
            std::printf("%s (%zu rows)\n", o->csv.c_str(), rows.size());
            return 0;
          }};
}

}  // namespace fastslow::cli
