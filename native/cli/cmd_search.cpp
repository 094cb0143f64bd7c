#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "commands.h"
#include "fastslow/error.h"
#include "fastslow/io/read_file.h"
#include "fastslow/io/write_file.h"
#include "progress.h"
#include "fastslow/search/figure.h"
#include "fastslow/search/report.h"
#include "search/precision_trials.h"
#include "search/search_config.h"
#include "search/study.h"
#include "search/train_trials.h"

namespace fs = std::filesystem;

namespace fastslow::cli {
namespace {

// What the terminal shows of a trial's training: messages, the cache, and
// (one trial at a time on a terminal) each checkpoint's steps as a bar.
class TrialProgress : public train::Callback {
 public:
  explicit TrialProgress(bool bars) : bars_(bars), cache_(cache_progress()) {}
  void on_message(const std::string& s) override { std::fprintf(stderr, "%s\n", s.c_str()); }
  void on_prepare(size_t done, size_t total, const std::string& file) override { cache_(done, total, file); }
  void on_epoch_begin(int64_t epoch, int64_t epochs, int64_t steps) override {
    if (bars_)
      bar_ = std::make_shared<ProgressBar>("  checkpoint " + std::to_string(epoch + 1) + "/" + std::to_string(epochs),
                                           static_cast<size_t>(steps), "steps");
  }
  train::Verdict on_step(const train::StepInfo& s) override {
    if (bar_) bar_->update(static_cast<size_t>(s.step + 1));
    return std::nullopt;
  }
  train::Verdict on_validation(const train::ValidationInfo&) override {
    if (bar_) bar_->finish();
    bar_.reset();
    return std::nullopt;
  }

 private:
  bool bars_;
  std::function<void(size_t, size_t, const std::string&)> cache_;
  std::shared_ptr<ProgressBar> bar_;
};

std::string read_text(const std::string& path) { return read_whole_file(path, "cannot be read"); }

// --resume continues the study the folder holds: the configuration may
// differ in its number of trials alone.
void check_same_study(const std::string& out, const search::SearchConfig& config) {
  const std::string file = (fs::path(out) / "study.json").string();
  nlohmann::json saved = nlohmann::json::parse(read_text(file), nullptr, false);
  if (saved.is_discarded()) throw Error(file, "", "not JSON");
  nlohmann::json now = config.to_json();
  saved.erase("trials");
  now.erase("trials");
  for (const auto& [k, v] : now.items())
    if (!saved.contains(k) || saved[k] != v)
      throw Error(file, "", "--resume: the configuration's " + k + " differs from the study's (" +
                                (saved.contains(k) ? saved[k].dump() : "absent") + " there, " + v.dump() +
                                " now); only [search] trials may change");
}

int run_report(const std::string& dir, const std::string& figures) {
  const std::string file = (fs::path(dir) / "trials.jsonl").string();
  if (!fs::exists(file)) throw Error(dir, "", "no trials.jsonl: not a study folder (or no trial has finished)");
  const search::StudyFile study = search::parse_trials_jsonl(read_text(file), file);
  const search::Report r = search::write_report(study, figures.empty() ? dir : figures);
  std::printf("%s", r.text.c_str());
  for (const std::string& p : r.paths) std::printf("%s\n", p.c_str());
  return 0;
}

std::string trial_line(const search::Trial& t) {
  std::string s = search::state_name(t.state);
  for (const auto& [k, v] : t.objectives) s += " " + k + " " + search::figure::objective_text(k, v);
  return s;
}

}  // namespace

Command add_search_command(CLI::App& app) {
  struct Opts {
    std::string config, out, report, figures;
    bool resume = false, keep_all = false;
    int parallel = 1, threads = 0;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand(
      "search",
      "Search over models: trials train with parameters a sampler (grid, random, qmc, tpe, nsga2) draws\n"
      "(or, with [precision] run = RUN, lower that run's weight tensors, each to fp32, fp16 or int8)\n"
      "from the [space] of SEARCH.toml, are scored on its objectives (validation score, latency,\n"
      "parameters, ONNX bytes) and pruned early when clearly worse. The study folder gets trials.jsonl\n"
      "(every trial), pareto.json (the non-dominated ones) and trials/N (run folders of the Pareto trials).\n"
      "Ctrl-C stops after saving; --resume continues (with a larger [search] trials to go on).\n"
      "--report STUDY prints the front and writes front.svg and params.svg.");
  sub->add_option("--config", o->config, "the study file (TOML: [data], [space], [objectives], [search], [budget])");
  sub->add_option("--out", o->out, "study folder (e.g. studies/NAME)");
  sub->add_flag("--resume", o->resume, "continue the study in --out");
  sub->add_option("--parallel", o->parallel, "trials at once, each with cores / N threads (latency is then noisier)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  sub->add_option("--threads", o->threads, "LibTorch threads per trial (0: all cores / --parallel)")->capture_default_str();
  sub->add_flag("--keep-all", o->keep_all, "keep every trial's run folder, not only the Pareto trials'");
  sub->add_option("--report", o->report, "a study folder: print its front, write its figures");
  sub->add_option("--figures", o->figures, "with --report: where the figures go (default: the study folder)");
  return {sub, [o] {
            if (!o->report.empty()) return run_report(o->report, o->figures);
            if (o->config.empty() || o->out.empty())
              throw Error("search: give --config SEARCH.toml and --out STUDY (or --report STUDY)");
            search::SearchConfig config = search::read_search_config(o->config);
            // A precision study's space is its run's weight tensors.
            if (!config.precision_run.empty()) config.space = search::precision_space(config.precision_run);
            const fs::path out(o->out);
            const bool exists = fs::exists(out / "study.json") || fs::exists(out / "trials.jsonl");
            if (exists && !o->resume)
              throw Error(o->out, "", "already holds a study; continue it with --resume or choose another --out");
            if (!exists && o->resume) throw Error(o->out, "", "--resume: no study here (no study.json)");
            if (o->resume) check_same_study(o->out, config);
            install_interrupt_handler();

            const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
            const int threads = o->threads > 0 ? o->threads : o->parallel > 1 ? std::max(1, static_cast<int>(cores) / o->parallel) : 0;
            // One trial at a time on a terminal: its steps as a bar. Otherwise
            // (several at once, or a log) each trial's start and end only.
            auto progress = std::make_shared<TrialProgress>(o->parallel == 1 && isatty(2));
            std::unique_ptr<search::TrialRunner> runner;
            if (config.precision_run.empty()) {
              auto training = std::make_unique<search::TrainTrialRunner>(config, threads, o->parallel == 1,
                                                                         train::Callbacks{progress});
              training->check_space();
              runner = std::move(training);
            } else {
              runner = std::make_unique<search::PrecisionTrialRunner>(config);
            }
            auto sampler = search::make_sampler(config.sampler, config.space, config.objectives);
            auto pruner = search::make_pruner(config.pruner);
            fs::create_directories(out);
            write_file_atomically((out / "study.json").string(), config.to_json().dump(1) + "\n");
            write_file_atomically((out / "search.toml").string(), read_text(o->config));

            search::StudySettings st;
            st.out = o->out;
            st.objectives = config.objectives;
            st.trials = config.trials;
            st.keep_all = o->keep_all;
            st.parallel = o->parallel;
            st.reference = config.reference;
            for (const search::Param& p : config.space.params) st.distributions[p.name] = p;
            search::StudyHooks sh;
            sh.stop = [] { return interrupted(); };
            sh.trial_start = [](int64_t n, const nlohmann::json& params, bool resumed) {
              std::fprintf(stderr, "trial %lld%s: %s\n", static_cast<long long>(n), resumed ? " (resumed)" : "",
                           params.dump().c_str());
            };
            sh.trial_end = [](const search::Trial& t, int64_t done, int64_t total) {
              std::fprintf(stderr, "trial %lld %s (%lld/%lld, %.0f s)%s%s\n", static_cast<long long>(t.number),
                           trial_line(t).c_str(), static_cast<long long>(done), static_cast<long long>(total),
                           t.seconds, t.message.empty() ? "" : ": ", t.message.c_str());
            };
            const search::StudyResult r = search::run_study(st, *sampler, pruner.get(), *runner, sh);
            std::printf("%s\n\n%s", search::study_summary(r.study).c_str(), search::best_trials_table(r.study).c_str());
            if (r.interrupted) {
              std::fprintf(stderr, "\ninterrupted: continue with: fastslow search --config %s --out %s --resume\n",
                           o->config.c_str(), o->out.c_str());
              return 130;
            }
            if (r.exhausted) std::fprintf(stderr, "the grid is exhausted: every point was tried\n");
            std::printf("%s/pareto.json\n", o->out.c_str());
            return 0;
          }};
}

}  // namespace fastslow::cli
