#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "fastslow/graph/graph_info.h"
#include "fastslow/graph/validate.h"

namespace fastslow::cli {

Command add_info_command(CLI::App& app) {
  struct Opts {
    std::string file;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "info",
      "Describe one TpuGraphs .npz (tile or layout): sizes, feature widths, configs and unique configs,\n"
      "runtime range, and validation problems. Exit code 2 if the file cannot be read or validation finds\n"
      "errors (the same files `rank` and `train` refuse); warnings and notes keep 0.");
  sub->add_option("FILE", o->file, "a tile or layout .npz")->required();
  sub->add_flag("--json", o->json, "print one JSON object instead of text");
  return {sub, [o] {
    const GraphInfo info = graph_info(NpzReader::open(o->file));
    const std::string out = o->json ? graph_info_json(info) + "\n" : graph_info_text(info);
    std::fputs(out.c_str(), stdout);
    // A script checking files before a long run trusts the exit code alone.
    for (const Problem& p : info.problems)
      if (p.severity == Severity::Error) return 2;
    return 0;
  }};
}

}  // namespace fastslow::cli
