#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <memory>

#include "commands.h"
#include "fastslow/data/collection.h"
#include "fastslow/data/submission.h"

namespace fastslow::cli {

Command add_submit_command(CLI::App& app) {
  struct Opts {
    std::vector<std::string> inputs;
    std::string out;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "submit",
      "Merge per-collection prediction CSVs into one competition submission. Each ID may appear\n"
      "once; the row count per collection is printed so a missing collection shows.");
  sub->add_option("CSV", o->inputs, "CSVs from `fastslow predict`")->required();
  sub->add_option("-o,--out", o->out, "submission CSV")->required();
  return {sub, [o] {
            const std::vector<SubmissionRow> rows = merge_submissions(o->inputs);
            write_submission_csv(o->out, rows);
            std::map<std::string, size_t> per;
            for (const SubmissionRow& r : rows) ++per[collection_of_id(r.id)];
            for (const std::string& c : all_collection_ids())
              std::fprintf(stderr, "%-20s %6zu rows%s\n", c.c_str(), per[c], per[c] ? "" : "  (missing)");
            std::printf("%s (%zu rows)\n", o->out.c_str(), rows.size());
            return 0;
          }};
}

}  // namespace fastslow::cli
