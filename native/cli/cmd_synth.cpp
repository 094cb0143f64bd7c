#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "format.h"
#include "fastslow/data/collection.h"
#include "fastslow/error.h"
#include "fastslow/graph/graph.h"
#include "fastslow/graph/validate.h"
#include "fastslow/io/write_file.h"
#include "fastslow/rank/metrics.h"
#include "fastslow/synth/dataset.h"
#include "fastslow/synth/price.h"
#include "progress.h"

namespace fastslow::cli {

namespace {

// --configs is a count with --graph and a file with --price.
int64_t config_count(const std::string& v) {
  try {
    size_t used = 0;
    const long long n = std::stoll(v, &used);
    if (used == v.size() && n >= 1) return n;
  } catch (const std::exception&) {
  }
  throw Error("--configs '" + v + "': with --graph, a count of at least 1");
}

// The configs --price prices: `g`, loaded from `from`, is the priced file
// itself or another file of the same graph (proposals written by
// `fastslow tune --propose`). `measured` gets the runtimes it holds for
// them (empty where none).
std::vector<float> configs_to_price(const std::string& file, const std::string& from, const Graph& g,
                                    const synth::Pricer& pricer, std::vector<double>& measured) {
  const auto keep_measured = [&](const std::vector<double>& target) {
    measured.clear();
    if (std::any_of(target.begin(), target.end(), [](double v) { return v > 0; })) measured = target;
  };
  if (const auto* t = std::get_if<TileGraph>(&g)) {
    if (pricer.kind() != GraphKind::Tile) throw Error(from, "", "holds tile configs; " + file + " is a layout graph");
    keep_measured(t->target());
    return t->config_feat;
  }
  const auto& l = std::get<LayoutGraph>(g);
  if (pricer.kind() != GraphKind::Layout) throw Error(from, "", "holds layout configs; " + file + " is a tile graph");
  // The pricer checked the file's graph already: compare with it, not the file again.
  if (l.node_config_ids != pricer.config_nodes() || l.num_nodes != pricer.num_nodes())
    throw Error(from, "node_config_ids", "is not a config file of " + file + "'s graph (other nodes)");
  if (l.config_feat_width != synth::kLayoutConfigWidth)
    throw Error(from, "node_config_feat", "has " + std::to_string(l.config_feat_width) + " values per node, not 18");
  keep_measured(l.target());
  return l.node_config_feat;
}

int synth_price(const std::string& file, const std::string& configs, const std::string& out, bool from_features) {
  refuse_writing_over(out, file, "--out");
  refuse_writing_over(out, configs, "--out");
  const std::string from = configs.empty() ? file : configs;
  const Graph g = load_graph(NpzReader::open(from));
  // What `info` refuses is not priced either (NaN features, no configs,
  // negative runtimes scored against).
  const auto refuse_invalid = [](const std::string& path, const Graph& graph) {
    for (const Problem& p : validate(graph))
      if (p.severity == Severity::Error) throw Error(path, p.array, p.message);
  };
  refuse_invalid(from, g);
  if (!configs.empty()) refuse_invalid(file, load_graph(NpzReader::open(file)));
  // --from-features on the file's own configs reads the file once.
  const auto* own = configs.empty() ? std::get_if<LayoutGraph>(&g) : nullptr;
  const synth::Pricer pricer = !from_features ? synth::Pricer::for_file(file)
                               : own          ? synth::Pricer::from_features(*own)
                                              : synth::Pricer::from_features(file);
  std::vector<double> measured;
  const std::vector<float> rows = configs_to_price(file, from, g, pricer, measured);
  std::vector<int64_t> ns;
  try {
    ns = pricer.runtimes_ns(rows);
  } catch (const Error& e) {
    throw Error(configs.empty() ? file : configs, "", e.problem());
  }
  std::string csv = "config,runtime_ns\n";
  for (size_t i = 0; i < ns.size(); ++i) csv += std::to_string(i) + "," + std::to_string(ns[i]) + "\n";
  if (out.empty()) {
    std::fputs(csv.c_str(), stdout);
  } else {
    write_file_atomically(out, csv);
    std::printf("%s\n", out.c_str());
  }
  // Against the runtimes the file measured: how well the cost model ranks
  // them (on a real file read back with --from-features, the most a model
  // trained on generated data could learn of it). Standard error where the
  // CSV goes to standard output.
  if (!measured.empty()) {
    std::vector<double> price(ns.begin(), ns.end());
    const GraphMetrics m = evaluate_graph(price, measured);
    std::fprintf(out.empty() ? stderr : stdout,
                 "against the file's measured runtimes: kendall %s  opa %s  top1err %s  top5err %s  top10err %s\n",
                 metric_cell(m.kendall).c_str(), metric_cell(m.opa).c_str(), metric_cell(m.top1).c_str(),
                 metric_cell(m.top5).c_str(), metric_cell(m.top10).c_str());
  }
  return 0;
}

template <class Opts>
int synth_one(const Opts& o) {
  const CollectionId id = parse_collection_id(o.graph);
  if (o.nodes < 2) throw Error("--nodes must be >= 2");
  const int64_t configs = config_count(o.configs);
  synth::SynthItem item;
  item.collection = o.graph;
  item.split = "valid";  // runtimes kept in the file
  item.seed = o.seed;
  item.target_nodes = o.nodes;
  item.configs = configs;
  std::string prefix = "kernel";
  if (id.kind == GraphKind::Layout) {
    item.model = id.source == "nlp" ? synth::ModelTemplate::Transformer : synth::ModelTemplate::ResNet;
    if (!o.model.empty()) {
      bool known = false;
      std::string names;
      for (auto t : synth::all_templates()) {
        if (o.model == synth::template_name(t)) item.model = t, known = true;
        names += std::string(names.empty() ? "" : ", ") + synth::template_name(t);
      }
      if (!known) throw Error("unknown template '" + o.model + "' (" + names + ")");
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
    std::string configs = "1000";
    std::string price;
    bool from_features = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "synth",
      "Write a generated TpuGraphs dataset in the published layout (npz/tile/xla/{split},\n"
      "npz/layout/{xla,nlp}/{default,random}/{split}) with a known cost model. Test files carry zero\n"
      "runtimes; the true (and noise-free) runtimes of every file go to OUT/answers/. The same seed\n"
      "gives byte-identical files. Interrupted runs resume when run again with the same options.");
  sub->add_option("--out", o->out,
                  "output folder (new or empty, or an interrupted run to resume); with --price, the CSV to write "
                  "(default: standard output)");
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
  sub->add_option("--configs", o->configs,
                  "with --graph: this many configs; with --price: an .npz of configs of the same graph to price "
                  "(default: the file's own)")->capture_default_str();
  sub->add_option("--price", o->price,
                  "a generated .npz: print config,runtime_ns, the generator's noise-free runtime of each config "
                  "(rounded to ns as in its answers file), made again from the record in its answers file (any "
                  "layout .npz with --from-features); with the file's measured runtimes, the cost model's Kendall "
                  "against them too");
  sub->add_flag("--from-features", o->from_features,
               "with --price: read the graph back from the file's node features instead of remaking it from its "
               "answers file, so any layout file can be priced, a real one too: how the generator's cost model ranks "
               "a real file's measured configs");
  sub->add_option("--template", o->model, "with --graph (layout): resnet, transformer, mlp, rnn, unet or bert (the last two training steps)");
  return {sub, [o, sub] {
            if (!o->price.empty()) {
              if (!o->graph.empty()) throw Error("--price and --graph do not go together");
              return synth_price(o->price, sub->count("--configs") ? o->configs : "", o->out, o->from_features);
            }
            if (o->from_features) throw Error("--from-features goes with --price");
            if (o->out.empty()) throw Error("--out is required (the dataset folder)");
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
