#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <unistd.h>

#include "commands.h"
#include "format.h"
#include "export/native_ranker.h"
#include "fastslow/data/data_profile.h"
#include "fastslow/error.h"
#include "fastslow/io/write_file.h"
#include "fastslow/rank/ranking_csv.h"
#include "progress.h"

namespace fastslow::cli {

namespace {

std::string default_cache() {
  return (std::filesystem::temp_directory_path() / ("fastslow-cache-" + std::to_string(::getuid()))).string();
}

}  // namespace

Command add_rank_command(CLI::App& app) {
  struct Opts {
    std::string model, file, csv, cache, device = "cpu";
    int threads = 0;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "rank",
      "Rank a file's configs with an exported model (LibTorch), batched as the page batches them;\n"
      "prints Kendall tau, OPA and top-1/5/10 error when the file has runtimes, and a warning when the\n"
      "file lies outside what the model was trained on (opcodes, feature ranges, layout values, size).");
  sub->add_option("--model", o->model, "folder from `fastslow export` (model.json + model.pt, or an ensemble's member-I.pt)")->required();
  sub->add_option("file", o->file, "a tile or layout .npz")->required();
  sub->add_option("--csv", o->csv, "write rank,config,group,score,runtime per config, best first");
  sub->add_option("--cache", o->cache, "cache folder (default: a folder in the system temp dir)");
  sub->add_option("--device", o->device, "cpu, cuda or auto")->capture_default_str();
  sub->add_option("--threads", o->threads, "LibTorch threads (0 = its default)");
  return {sub, [o] {
            if (o->threads > 0) exporter::set_threads(o->threads);
            const exporter::ExportedModel m = exporter::load_exported(o->model, o->device);
            std::unique_ptr<ProgressBar> bar;
            const exporter::FileRanking r =
                exporter::rank_file(m, o->file, o->cache.empty() ? default_cache() : o->cache,
                                    [&](int64_t done, int64_t total) {
                                      if (!bar) bar = std::make_unique<ProgressBar>("rank", total, "batches");
                                      if (done > 0) bar->update(static_cast<size_t>(done));
                                    });
            if (bar) bar->finish();
            if (m.card.training_data) {
              const std::string w = shift_warning(o->file, *m.card.training_data,
                                                  distribution_shift(*m.card.training_data, sample_graph(r.graph)));
              if (!w.empty()) std::fprintf(stderr, "warning: %s\n", w.c_str());
            }
            if (!o->csv.empty())
              write_file_atomically(o->csv, ranking_csv(r.ranking, r.graph.groups.group_of, r.group_scores, r.graph.runtime));
            const double n = static_cast<double>(r.group_scores.size());
            std::printf("%s: %lld configs (%lld unique) scored in %.1f ms (%.0f configs/s), batches of %lld\n",
                        o->file.c_str(), static_cast<long long>(r.ranking.size()),
                        static_cast<long long>(r.group_scores.size()), r.score_seconds * 1e3,
                        r.score_seconds > 0 ? n / r.score_seconds : 0.0, static_cast<long long>(m.card.chunk));
            if (r.graph.has_runtime())
              std::printf("kendall %s  opa %s  top1err %s  top5err %s  top10err %s\n", metric_cell(r.metrics.kendall).c_str(),
                          metric_cell(r.metrics.opa).c_str(), metric_cell(r.metrics.top1).c_str(), metric_cell(r.metrics.top5).c_str(),
                          metric_cell(r.metrics.top10).c_str());
            else
              std::printf("(no measured runtimes in this file: ranking only)\n");
            if (!o->csv.empty()) std::printf("%s\n", o->csv.c_str());
            return 0;
          }};
}

}  // namespace fastslow::cli
