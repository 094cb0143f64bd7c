#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "fastslow/synth/dataset.h"
#include "progress.h"

namespace fastslow::cli {

namespace {

template <class Opts>
int synth_one(const Opts& o) {
  const CollectionId id = parse_collection_id(o.graph);
  if (o.nodes < 2) throw Error("--nodes must be >= 2");
  if (o.configs < 1) throw Error("--configs must be >= 1");
  synth::SynthItem item;
  item.collection = o.graph;
  item.split = "valid";  // runtimes kept in the file
  item.seed = o.seed;
  item.target_nodes = o.nodes;
  item.configs = o.configs;
  std::string prefix = "kernel";
  if (id.kind == GraphKind::Layout) {
    item.model = id.source == "nlp" ? synth::ModelTemplate::Transformer : synth::ModelTemplate::ResNet;
    if (!o.model.empty()) {
      bool known = false;
      for (auto t : {synth::ModelTemplate::ResNet, synth::ModelTemplate::Transformer, synth::ModelTemplate::Mlp,
                     synth::ModelTemplate::Rnn})
        if (o.model == synth::template_name(t)) item.model = t, known = true;
      if (!known) throw Error("unknown template '" + o.model + "' (resnet, transformer, mlp, rnn)");
    }
    prefix = synth::template_name(item.model);
  }
  item.path = prefix + "_" + std::to_string(o.nodes) + ".npz";
  synth::synth_write(o.out, item);
  std::printf("%s/%s\n", o.out.c_str(), item.path.c_str());
  return 0;
}

}  // namespace

Command add_synth_command(CLI::App& app) {
  struct Opts {
    std::string out;
    std::string scale = "small";
    uint64_t seed = 0;
    std::string graph, model;
    std::vector<std::string> collections;
    int nodes = 5000;
    int64_t configs = 1000;
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
  sub->add_option("--collection", o->collections,
                  "only this collection's files (repeatable; e.g. layout:nlp:random): the same files the whole\n"
                  "dataset would hold, for one experiment at `full` scale");
  sub->add_option("--graph", o->graph,
                  "write one graph of this collection instead of a dataset (e.g. layout:xla:random, tile:xla):\n"
                  "OUT/<template>_<nodes>.npz, with measured runtimes, and its answers file");
  sub->add_option("--nodes", o->nodes, "with --graph: about this many nodes")->capture_default_str();
  sub->add_option("--configs", o->configs, "with --graph: this many configs")->capture_default_str();
  sub->add_option("--template", o->model, "with --graph (layout): resnet, transformer, mlp or rnn");
  return {sub, [o] {
            if (!o->graph.empty()) return synth_one(*o);
            const synth::SynthScale scale = synth::parse_synth_scale(o->scale);
            install_interrupt_handler();
            const size_t total = synth::synth_plan(scale, o->seed, o->collections, o->out).size();
            ProgressBar bar("synth", total, "files");
            size_t skipped = 0;
            const bool complete = synth::synth_dataset(o->out, scale, o->seed, [&](const synth::SynthProgress& p) {
              skipped = p.skipped;
              bar.update(p.done, p.item ? p.item->path : "", p.skipped);
              return !interrupted();
            }, o->collections);
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
