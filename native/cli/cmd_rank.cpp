#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <chrono>
#include <future>
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

// TMPDIR, not std::filesystem::temp_directory_path: PyTorch's wheels
// export a static copy of libstdc++'s filesystem code that a binary built
// against them may call instead, and its temp_directory_path crashed.
std::string default_cache() {
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/fastslow-cache-" + std::to_string(::getuid());
}

}  // namespace

Command add_rank_command(CLI::App& app) {
  struct Opts {
    std::string model, file, csv, cache, inputs, device = "cpu";
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
  sub->add_option("--inputs", o->inputs,
                  "also write what the model is fed as an npz (node_feat, node_opcode, edge_index, config_nodes,\n"
                  "config_context, config_feat of every group in order, chunk): to check another runtime against");
  sub->add_option("--threads", o->threads, "LibTorch threads (0 = its default)");
  return {sub, [o] {
            if (o->threads > 0) exporter::set_threads(o->threads);
            // The model goes to its device (a GPU's start-up, then one tiny
            // call for its kernels) while this thread reads the file.
            using Clock = std::chrono::steady_clock;
            const auto ms = [](Clock::time_point a, Clock::time_point b) {
              return std::chrono::duration<double, std::milli>(b - a).count();
            };
            refuse_writing_over(o->csv, o->file, "--csv");
            refuse_writing_over(o->inputs, o->file, "--inputs");
            const auto t0 = Clock::now();
            const ModelCard card = exporter::read_card(o->model);
            Clock::time_point ready;
            std::future<exporter::ExportedModel> loading = std::async(std::launch::async, [o, &ready] {
              exporter::ExportedModel e = exporter::load_exported(o->model, o->device);
              exporter::warm_up(e);
              ready = Clock::now();
              return e;
            });
            std::shared_ptr<exporter::PreparedRanking> prepared;
            try {
              prepared = exporter::prepare_ranking(card, o->file, o->cache.empty() ? default_cache() : o->cache);
            } catch (...) {
              loading.wait();  // the model's thread ends before the error leaves
              throw;
            }
            const auto read = Clock::now();
            const exporter::ExportedModel m = loading.get();
            std::fprintf(stderr, "rank: file read and batched in %.0f ms; model loaded and warmed up on %s in %.0f ms (alongside)\n",
                         ms(t0, read), o->device.c_str(), ms(t0, ready));
            if (!o->inputs.empty()) exporter::write_model_inputs(card, prepared, o->inputs);
            std::unique_ptr<ProgressBar> bar;
            const exporter::FileRanking r = exporter::score(m, prepared, [&](int64_t done, int64_t total) {
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
