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
#include "train/data_sources.h"
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
            const std::string first = train::EnsembleSpec::is_ensemble(o->run)
                                          ? train::EnsembleSpec::read(o->run).members.front().run
                                          : o->run;
            const train::TrainOptions options = train::load_run_options(first);
            // One program's CSV row lists every config of the graph.
            if (split->count() == 0 && !options.graph.empty()) o->split = "all";
            // Row IDs name one collection: the run's, or for a run of several
            // the one asked for (by ID, or ROOT/ID where roots share it).
            std::string label;
            const auto named = train::named_collections(options.collection);
            if (named.size() > 1 || train::split_list(options.data).size() > 1) {
              if (o->collection.empty())
                throw Error("--collection: this run learnt from several collections (" + options.collection +
                            (train::split_list(options.data).size() > 1 ? " in " + options.data : "") +
                            "); name the one its rows are for");
              label = o->collection;
            }
            const std::string given = o->collection.empty() ? named.front().first : o->collection;
            const std::string collection = given.substr(given.find('/') == std::string::npos ? 0 : given.rfind('/') + 1);
            parse_collection_id(collection);
            const train::SplitRanking run =
                train::rank_split(o->run, o->split, o->device, cache_progress(), rank_progress());
            std::vector<SubmissionRow> rows;
            if (!label.empty()) {
              std::vector<std::string> matching;
              for (const std::string& l : run.labels)
                if (l == label || (l.size() > label.size() && l.compare(l.size() - label.size() - 1, std::string::npos, "/" + label) == 0))
                  matching.push_back(l);
              if (matching.empty())
                throw Error("--collection " + label + ": the run's collections in this split are " +
                            [&] { std::string a; for (const auto& l : run.labels) a += (a.empty() ? "" : ", ") + l; return a; }());
              if (matching.size() > 1)
                throw Error("--collection " + label + " is in several roots (" + matching[0] + ", " + matching[1] +
                            "); name one as ROOT/" + collection);
              label = matching.front();
            }
            for (size_t i = 0; i < run.results.size(); ++i) {
              if (!label.empty() && run.labels.at(static_cast<size_t>(run.source.at(i))) != label) continue;
              rows.push_back(submission_row(collection, run.results[i].graph, run.results[i].ranking));
            }
            write_submission_csv(o->csv, rows);
            std::printf("%s (%zu rows)\n", o->csv.c_str(), rows.size());
            return 0;
          }};
}

}  // namespace fastslow::cli
