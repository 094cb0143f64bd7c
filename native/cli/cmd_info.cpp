#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.h"
#include "format.h"
#include "fastslow/error.h"
#include "fastslow/graph/graph_info.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/graph/node_effects.h"
#include "fastslow/graph/node_effects_json.h"
#include "fastslow/graph/row_text.h"
#include "fastslow/graph/validate.h"

namespace fastslow::cli {

namespace {

void print_effects(const NodeEffects& e, const std::vector<int64_t>& opcodes, int top) {
  std::printf("\nwhat the measurements say per configurable node (%lld configs; %lld nodes never change layout):\n"
              "share: of the variance of log runtime, what a node's layouts explain taken alone (nodes that\n"
              "always moved together share a line); adds: what they explain beyond chance on top of the lines\n"
              "above (a forward selection over crossed rows, each pick passing an F test; %.1f %% together);\n"
              "and its rows (output, input, kernel orders; - left to the compiler) with their configs' median\n"
              "runtime over the fastest config. Not picked (adds -): %s\n",
              static_cast<long long>(e.configs), static_cast<long long>(e.constant_nodes), 100.0 * e.joint,
              e.joint_stopped.c_str());
  if (e.entries.empty()) {
    std::printf("no configurable node changes layout between measured configs\n");
    return;
  }
  std::printf("%4s %7s %7s  %-24s %s\n", "#", "share", "adds", "node(s)", "opcode");
  int shown = 0;
  for (const NodeEffect& x : e.entries) {
    if (shown++ >= top) break;
    char adds[16] = "      -";
    if (!std::isnan(x.adds)) std::snprintf(adds, sizeof adds, "%6.1f%%", 100.0 * x.adds);
    std::printf("%4d %6.1f%% %s  %-24s %s\n", shown, 100.0 * x.share, adds, nodes_text(x.nodes, 4, "", ",").c_str(),
                opcode_name(static_cast<int>(opcodes.at(static_cast<size_t>(x.nodes.front())))));
    for (const RowEffect& r : x.rows)
      std::printf("%14s%-28s %8.3fx  %lld configs\n", "", layout_row_text(r.row).c_str(), r.median_ratio,
                  static_cast<long long>(r.configs));
  }
}

// Config `c` against the effects: where its runtime comes from, measured.
struct ConfigReading {
  int64_t config = -1;
  double over_fastest = 0;  // its runtime over the file's fastest (0: not measured)
  std::vector<ConfigRowEffect> rows;
};

ConfigReading read_config(const NpzReader& npz, const NodeEffects& e, int64_t c) {
  const int64_t configs = npz.header("config_runtime").rows();
  if (c >= configs)
    throw Error(npz.file(), "config_runtime",
                "--config " + std::to_string(c) + " is out of range [0, " + std::to_string(configs) + ")");
  ConfigReading r;
  r.config = c;
  const double runtime = npz.read_rows("config_runtime", c, c + 1).to_double("config_runtime").at(0);
  if (runtime > 0) r.over_fastest = runtime / e.fastest;
  r.rows = config_row_effects(e, npz.read("node_config_ids").to_int64("node_config_ids"),
                              npz.read_rows("node_config_feat", c, c + 1).to_float("node_config_feat"));
  return r;
}

nlohmann::ordered_json config_json(const ConfigReading& r, const NodeEffects& e) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const ConfigRowEffect& x : r.rows) {
    const NodeEffect& n = e.entries[x.entry];
    rows.push_back({{"nodes", n.nodes},
                    {"row", x.row >= 0 ? nlohmann::ordered_json(n.rows[static_cast<size_t>(x.row)].row) : nullptr},
                    {"slower", x.row >= 0 ? nlohmann::ordered_json(x.slower) : nullptr},
                    {"fastest_row", n.rows.front().row}});
  }
  return {{"config", r.config},
          {"runtime_over_fastest", r.over_fastest > 0 ? nlohmann::ordered_json(r.over_fastest) : nullptr},
          {"entries", rows}};
}

void print_config(const ConfigReading& r, const NodeEffects& e, int top) {
  if (r.over_fastest > 0)
    std::printf("\nconfig %lld runs %.3fx the fastest measured config", static_cast<long long>(r.config), r.over_fastest);
  else
    std::printf("\nconfig %lld (not measured)", static_cast<long long>(r.config));
  std::printf(": its row at each node against the node's fastest row\n(median runtimes of the configs holding "
              "them), most slowing first:\n");
  std::printf("%-24s %-28s %8s  %s\n", "node(s)", "its row", "slower", "fastest row");
  int shown = 0;
  for (const ConfigRowEffect& x : r.rows) {
    if (shown++ >= top) break;
    const NodeEffect& n = e.entries[x.entry];
    const std::string mine = x.row >= 0 ? layout_row_text(n.rows[static_cast<size_t>(x.row)].row) : "(no measured config)";
    if (x.row >= 0)
      std::printf("%-24s %-28s %7.3fx  %s\n", nodes_text(n.nodes, 4, "", ",").c_str(), mine.c_str(), x.slower,
                  layout_row_text(n.rows.front().row).c_str());
    else
      std::printf("%-24s %-28s %8s  %s\n", nodes_text(n.nodes, 4, "", ",").c_str(), mine.c_str(), "-",
                  layout_row_text(n.rows.front().row).c_str());
  }
}

}  // namespace

Command add_info_command(CLI::App& app) {
  struct Opts {
    std::string file;
    bool json = false, nodes = false;
    int top = 10;
    int64_t config = -1;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "info",
      "Describe one TpuGraphs .npz (tile or layout): sizes, feature widths, configs and unique configs,\n"
      "runtime range, and validation problems. Exit code 2 if the file cannot be read or validation finds\n"
      "errors (the same files `rank` and `train` refuse); warnings and notes keep 0.");
  sub->add_option("FILE", o->file, "a tile or layout .npz")->required();
  sub->add_flag("--json", o->json, "print one JSON object instead of text");
  CLI::Option* nodes = sub->add_flag("--nodes", o->nodes,
                "layout files with runtimes: which configurable nodes the measured runtimes depend on (each "
                "node's share of the variance of log runtime alone, what it adds to the nodes above it in a "
                "forward selection, its rows' median runtimes)");
  sub->add_option("--config", o->config,
                  "--nodes: why this config (its row in the file) runs as it does: its row at each node against "
                  "that node's fastest row, by their configs' median runtimes")
      ->check(CLI::Range(int64_t{0}, std::numeric_limits<int64_t>::max(), "a config number (0 or more)"))
      ->needs(nodes);
  sub->add_option("--top", o->top, "--nodes: lines printed (JSON: all)")->check(CLI::Range(1, 1 << 20))->capture_default_str();
  return {sub, [o] {
    const NpzReader npz = NpzReader::open(o->file);
    const GraphInfo info = graph_info(npz);
    bool errors = false;
    // A script checking files before a long run trusts the exit code alone.
    for (const Problem& p : info.problems) errors = errors || p.severity == Severity::Error;
    if (o->nodes && !errors && info.kind != GraphKind::Layout)
      throw Error(o->file, "", "is a tile file: --nodes reads layout configs, one row per configurable node");
    std::vector<int64_t> opcodes;
    NodeEffects effects;
    ConfigReading config;
    if (o->nodes && !errors) {
      effects = node_effects(npz);  // streamed: a 100k-config file's rows are never all in memory
      opcodes = npz.read("node_opcode").to_int64("node_opcode");
      if (o->config >= 0) config = read_config(npz, effects, o->config);
    }
    if (o->json) {
      if (o->nodes && !errors) {
        nlohmann::ordered_json j = nlohmann::ordered_json::parse(graph_info_json(info));
        j["node_effects"] = node_effects_json<nlohmann::ordered_json>(effects, opcodes);
        if (config.config >= 0) j["config_effects"] = config_json(config, effects);
        std::printf("%s\n", j.dump(2).c_str());
      } else {
        std::printf("%s\n", graph_info_json(info).c_str());
      }
    } else {
      std::fputs(graph_info_text(info).c_str(), stdout);
      if (o->nodes && !errors) print_effects(effects, opcodes, o->top);
      if (config.config >= 0) print_config(config, effects, o->top);
    }
    return errors ? 2 : 0;
  }};
}

}  // namespace fastslow::cli
