#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "format.h"
#include "fastslow/error.h"
#include "progress.h"
#include "train/ensemble.h"

namespace fastslow::cli {

Command add_ensemble_command(CLI::App& app) {
  struct Opts {
    std::vector<std::string> runs;
    std::string out, combine = "mean", device = "auto";
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "ensemble",
      "Combine runs into an ensemble folder that eval, predict and export accept wherever they accept a\n"
      "run. Members are scored on the first member's valid split: mean averages scores standardised per\n"
      "graph (default), rank averages rank positions, weighted fits non-negative weights there to\n"
      "maximise the score and states them. A folder of --folds or --seeds runs stands for its members.");
  sub->add_option("runs", o->runs, "member run folders")->required();
  sub->add_option("-o,--out", o->out, "ensemble folder (created)")->required();
  sub->add_option("--combine", o->combine, "mean, rank or weighted")
      ->check(CLI::IsMember({"mean", "rank", "weighted"}))
      ->capture_default_str();
  sub->add_option("--device", o->device, "auto, cpu or cuda")->capture_default_str();
  return {sub, [o] {
            if (std::filesystem::exists(std::filesystem::path(o->out) / "ensemble.json"))
              throw Error(o->out, "", "already holds an ensemble; choose another --out");
            const train::EnsembleSpec spec =
                train::build_ensemble(o->runs, train::parse_combine(o->combine), o->device, cache_progress());
            std::filesystem::create_directories(o->out);
            spec.write(o->out);
            const auto& f = spec.fitted_on;
            auto cell = [](const nlohmann::json& v) { return v.is_number() ? metric_cell(v.get<double>()) : std::string("-"); };
            std::printf("%-44s %8s %8s %10s\n", "member", "weight", "scale", "valid");
            for (const train::EnsembleMember& m : spec.members)
              std::printf("%-44s %8.4f %8.3g %10s\n", m.run.c_str(), m.weight, m.scale, metric_cell(m.valid_score).c_str());
            std::printf("ensemble (%s) on %lld valid graphs: %s; members' mean %s, best %s\n",
                        train::combine_name(spec.combine), static_cast<long long>(f["graphs"].get<int64_t>()),
                        cell(f["score"]).c_str(), cell(f["member_mean"]).c_str(), cell(f["member_best"]).c_str());
            if (!f["same_split"].get<bool>())
              std::printf("note: the members were trained on different splits (folds) or on the valid graphs too "
                          "(--train-on-valid), so some of them saw these valid graphs: the scores above are not "
                          "out-of-sample\n");
            std::printf("%s/ensemble.json\n", o->out.c_str());
            return 0;
          }};
}

}  // namespace fastslow::cli
