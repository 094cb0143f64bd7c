#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "commands.h"
#include "fastslow/error.h"
#include "fastslow/io/memory_budget.h"
#ifdef FASTSLOW_WITH_TORCH
#include "train/device_info.h"
#endif

int main(int argc, char** argv) {
  CLI::App app{
      "fastslow: learned cost models for TpuGraphs (XLA graphs, compiler configs, TPU runtimes).\n"
      "Exit codes: 0 ok, 1 usage error, 2 bad input file (or a run that could not go on), 3 internal error\n"
      "(a bug: please report it with the command), 130 interrupted (Ctrl-C; `train --resume` continues)."};
  app.require_subcommand(1);
#ifdef FASTSLOW_WITH_TORCH
  // The second line says which LibTorch (and GPU) the trainer uses.
  app.set_version_flag("--version",
                       [] { return std::string("fastslow " FASTSLOW_VERSION "\n") + fastslow::train::libtorch_description(); });
#else
  app.set_version_flag("--version", "fastslow " FASTSLOW_VERSION "\nbuilt without LibTorch (no training commands)");
#endif
  // Global options may also follow the subcommand (`fastslow info F --max-memory 1G`).
  app.fallthrough();
  uint64_t max_memory = 0;
  app.add_option_function<std::string>(
         "--max-memory",
         [&](const std::string& text) { fastslow::parse_memory_size(text, &max_memory); },
         "memory budget: reading refuses an array, graph or file that would take more, naming it (exit 2).\n"
         "512M, 8G, 75% (of memory) or bytes; K/M/G/T are powers of 1024. Default: half of the memory\n"
         "this process may use (" +
             fastslow::format_bytes(fastslow::default_memory_budget()) + " here). Before or after the command.")
      ->type_name("SIZE")
      ->check(CLI::Validator(
          [](std::string& text) {
            uint64_t bytes = 0;
            return fastslow::parse_memory_size(text, &bytes)
                       ? std::string()
                       : "'" + text + "' is not a memory size (e.g. 512M, 8G, 75%, or bytes)";
          },
          ""));

  const std::vector<fastslow::cli::Command> commands = {
      fastslow::cli::add_info_command(app),
      fastslow::cli::add_synth_command(app),
      fastslow::cli::add_realism_command(app),
#ifdef FASTSLOW_WITH_TORCH
      fastslow::cli::add_train_command(app),
      fastslow::cli::add_distill_command(app),
      fastslow::cli::add_eval_command(app),
      fastslow::cli::add_predict_command(app),
      fastslow::cli::add_ensemble_command(app),
      fastslow::cli::add_export_command(app),
      fastslow::cli::add_rank_command(app),
      fastslow::cli::add_search_command(app),
      fastslow::cli::add_tune_command(app),
      fastslow::cli::add_explain_command(app),
#endif
      fastslow::cli::add_submit_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 1;
  }
  if (max_memory > 0) fastslow::set_memory_budget(max_memory, "--max-memory");
  try {
    for (const auto& c : commands)
      if (c.sub->parsed()) return c.run();
  } catch (const fastslow::Error& e) {
    std::fprintf(stderr, "fastslow: error: %s\n", e.what());
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A folder or file the command cannot create or replace (an --out that
    // is a file, a path under /proc): the input's problem, and the message
    // names the path.
    std::fprintf(stderr, "fastslow: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fastslow: internal error: %s\n", e.what());
    return 3;
  }
  return 1;
}
