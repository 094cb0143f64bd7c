#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "format.h"
#include "train/loaded_run.h"
#include "tune/explain.h"

namespace fastslow::cli {

Command add_explain_command(CLI::App& app) {
  struct Args {
    std::string run, file, method = "auto", cache, device = "cpu";
    int64_t config = 0, against = -1;
    int top = 10;
    bool json = false;
  };
  auto a = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "explain",
      "Why is this config slow: the configurable nodes by their share of its predicted cost (or of the\n"
      "difference to --against). Per-program runs: exact shares of the wide table (they add up to its\n"
      "score; the graph model's part is printed beside them); other runs: occlusion (each node's layout\n"
      "reset to the file's most common one).");
  sub->add_option("--run", a->run, "run folder from `fastslow train`")->required();
  sub->add_option("file", a->file, "the layout .npz whose config to explain")->required();
  sub->add_option("--config", a->config, "the config's row in the file")->required();
  sub->add_option("--against", a->against, "explain the difference to this config");
  sub->add_option("--method", a->method, "auto (table where the run has one), table or occlusion")
      ->check(CLI::IsMember({"auto", "table", "occlusion"}))->capture_default_str();
  sub->add_option("--top", a->top, "nodes listed")->check(CLI::Range(1, 1 << 20))->capture_default_str();
  sub->add_option("--cache", a->cache, "cache folder (default: the run's)");
  sub->add_option("--device", a->device, "cpu, cuda or auto")->capture_default_str();
  sub->add_flag("--json", a->json, "print the explanation as JSON");
  return {sub, [a] {
            const train::LoadedRun run = train::load_run(a->run, a->device);
            const tune::Explanation x = tune::explain_config(run, a->file, a->config, a->against, a->method,
                                                             a->cache.empty() ? run.options.cache_dir() : a->cache);
            if (a->json) {
              std::printf("%s\n", tune::explanation_json(x).dump(1).c_str());
              return 0;
            }
            std::printf("config %lld: score %.6g", static_cast<long long>(x.config), x.score);
            if (x.against >= 0)
              std::printf(", against config %lld: %.6g (difference %.6g)", static_cast<long long>(x.against),
                          x.against_score, x.score - x.against_score);
            std::printf("\nmethod: %s\n", x.method == "table"
                                              ? "table (exact: the shares add up to the wide table's part)"
                                              : "occlusion (each node reset to the file's most common layout; "
                                                "not additive)");
            double mass = 0;
            for (const tune::NodeShare& s : x.nodes) mass += std::abs(s.contribution);
            std::printf("%4s %6s %-20s %12s %7s  %s\n", "rank", "node", "opcode", "contribution", "share",
                        x.against >= 0 ? "layout (config | against)" : "layout");
            int shown = 0;
            for (const tune::NodeShare& s : x.nodes) {
              if (shown++ >= a->top) break;
              std::printf("%4d %6lld %-20s %12.5g %6.1f%%  %s%s\n", shown, static_cast<long long>(s.node),
                          s.opcode.c_str(), s.contribution, mass > 0 ? 100.0 * std::abs(s.contribution) / mass : 0.0,
                          values_text(s.layout).c_str(), x.against >= 0 ? (" | " + values_text(s.other)).c_str() : "");
            }
            std::printf("sum of the %zu nodes' contributions: %.6g", x.nodes.size(), x.explained);
            if (x.method == "table") std::printf("; the graph model's part: %.6g", x.rest);
            std::printf("\n");
            return 0;
          }};
}

}  // namespace fastslow::cli
