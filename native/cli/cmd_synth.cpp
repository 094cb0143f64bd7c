#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "fastslow/synth/dataset.h"
#include "progress.h"

namespace fastslow::cli {

Command add_synth_command(CLI::App& app) {
  struct Opts {
    std::string out;
    std::string scale = "small";
    uint64_t seed = 0;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "synth",
      "Write a generated TpuGraphs dataset in the published layout (npz/tile/xla/{split},\n"
      "npz/layout/{xla,nlp}/{default,random}/{split}) with a known cost model. Test files carry zero\n"
      "runtimes; the true (and noise-free) runtimes of every file go to OUT/answers/. The same seed\n"
      "gives byte-identical files. Interrupted runs resume when run again with the same options.");
  sub->add_option("--out", o->out, "output folder (new or empty, or an interrupted run to resume)")->required();
  sub->add_option("--scale", o->scale, "tiny (seconds, tests), small (about a minute, demo), full (real file counts)")
      ->check(CLI::IsMember({"tiny", "small", "full"}))
      ->capture_default_str();
  sub->add_option("--seed", o->seed, "random seed")->capture_default_str();
  return {sub, [o] {
            const synth::SynthScale scale = synth::parse_synth_scale(o->scale);
            install_interrupt_handler();
            const size_t total = synth::synth_plan(scale, o->seed).size();
            ProgressBar bar("synth", total, "files");
            size_t skipped = 0;
            const bool complete = synth::synth_dataset(o->out, scale, o->seed, [&](const synth::SynthProgress& p) {
              skipped = p.skipped;
              bar.update(p.done, p.item ? p.item->path : "");
              return !interrupted();
            });
            if (!complete) {
              std::fprintf(stderr, "\ninterrupted: finished files are kept; run the same command to resume\n");
              return 130;
            }
            bar.finish(skipped ? "(" + std::to_string(skipped) + " files already there)" : "");
            std::printf("%s\n", o->out.c_str());
            return 0;
          }};
}

}  // namespace fastslow::cli
