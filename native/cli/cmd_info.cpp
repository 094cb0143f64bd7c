#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.h"
#include "format.h"
#include "fastslow/error.h"
#include "fastslow/graph/graph_info.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/graph/node_effects.h"
#include "fastslow/graph/row_text.h"
#include "fastslow/graph/validate.h"

namespace fastslow::cli {

namespace {

std::string nodes_text(const std::vector<int64_t>& nodes) {
  std::string s;
  for (size_t i = 0; i < nodes.size() && i < 4; ++i) s += (i ? "," : "") + std::to_string(nodes[i]);
  if (nodes.size() > 4) s += ",+" + std::to_string(nodes.size() - 4);
  return s;
}

nlohmann::ordered_json effects_json(const NodeEffects& e, const std::vector<int64_t>& opcodes) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  for (const NodeEffect& x : e.entries) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const RowEffect& r : x.rows)
      rows.push_back({{"row", r.row}, {"configs", r.configs}, {"median_over_fastest", r.median_ratio}});
    entries.push_back({{"nodes", x.nodes},
                       {"opcode", opcode_name(static_cast<int>(opcodes.at(static_cast<size_t>(x.nodes.front()))))},
                       {"share", x.share},
                       {"rows", rows}});
  }
  return {{"configs", e.configs}, {"constant_nodes", e.constant_nodes}, {"entries", entries}};
}

void print_effects(const NodeEffects& e, const std::vector<int64_t>& opcodes, int top) {
  std::printf("\nwhat the measurements say per configurable node (%lld configs; %lld nodes never change layout):\n"
              "the share of the variance of log runtime its layouts explain, each node taken alone (nodes that\n"
              "always moved together share a line), and its rows (output, input, kernel orders; - left to the\n"
              "compiler) with their configs' median runtime over the fastest config\n",
              static_cast<long long>(e.configs), static_cast<long long>(e.constant_nodes));
  if (e.entries.empty()) {
    std::printf("no configurable node changes layout between measured configs\n");
    return;
  }
  std::printf("%4s %7s  %-24s %s\n", "rank", "share", "node(s)", "opcode");
  int shown = 0;
  for (const NodeEffect& x : e.entries) {
    if (shown++ >= top) break;
    std::printf("%4d %6.1f%%  %-24s %s\n", shown, 100.0 * x.share, nodes_text(x.nodes).c_str(),
                opcode_name(static_cast<int>(opcodes.at(static_cast<size_t>(x.nodes.front())))));
    for (const RowEffect& r : x.rows)
      std::printf("%14s%-28s %8.3fx  %lld configs\n", "", layout_row_text(r.row).c_str(), r.median_ratio,
                  static_cast<long long>(r.configs));
  }
}

}  // namespace

Command add_info_command(CLI::App& app) {
  struct Opts {
    std::string file;
    bool json = false, nodes = false;
    int top = 10;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "info",
      "Describe one TpuGraphs .npz (tile or layout): sizes, feature widths, configs and unique configs,\n"
      "runtime range, and validation problems. Exit code 2 if the file cannot be read or validation finds\n"
      "errors (the same files `rank` and `train` refuse); warnings and notes keep 0.");
  sub->add_option("FILE", o->file, "a tile or layout .npz")->required();
  sub->add_flag("--json", o->json, "print one JSON object instead of text");
  sub->add_flag("--nodes", o->nodes,
                "layout files with runtimes: which configurable nodes the measured runtimes depend on (each "
                "node's share of the variance of log runtime, its rows' median runtimes)");
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
    if (o->nodes && !errors) {
      effects = node_effects(npz);  // streamed: a 100k-config file's rows are never all in memory
      opcodes = npz.read("node_opcode").to_int64("node_opcode");
    }
    if (o->json) {
      if (o->nodes && !errors) {
        nlohmann::ordered_json j = nlohmann::ordered_json::parse(graph_info_json(info));
        j["node_effects"] = effects_json(effects, opcodes);
        std::printf("%s\n", j.dump(2).c_str());
      } else {
        std::printf("%s\n", graph_info_json(info).c_str());
      }
    } else {
      std::fputs(graph_info_text(info).c_str(), stdout);
      if (o->nodes && !errors) print_effects(effects, opcodes, o->top);
    }
    return errors ? 2 : 0;
  }};
}

}  // namespace fastslow::cli
