// Quality of per-program tuning on real graphs: for each real file with
// runtimes, the unique configs are split 70/10/20 (seed 0), fastslow's
// per-program default trains on the 70 % with early stopping on the 10 %,
// and both it and a ridge regression on one-hot config values (penalty
// chosen by Kendall on the same 10 %) rank the held-out 20 %.
// Metrics are over the held-out unique configs, each with its best
// measured runtime; "all" repeats Kendall over every measurement, the way
// `fastslow eval` counts duplicates.
// Usage: fastslow_bench_real OUT FILE...   (runs go to OUT/<stem>; a
// finished run is reused, an interrupted one resumed, unless this binary
// was built after it began: stale_run.h)
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "baselines/ridge.h"
#include "fastslow/error.h"
#include "fastslow/io/remove_tree.h"
#include "fastslow/data/graph_cache.h"
#include "fastslow/rank/metrics.h"
#include "models/program_model.h"
#include "train/evaluate.h"
#include "train/run_dir.h"
#include "train/loaded_run.h"
#include "train/trainer.h"

#include "stale_run.h"

using namespace fastslow;

namespace {

volatile std::sig_atomic_t g_stop = 0;

struct Row {
  std::string name;
  GraphMetrics unique;
  double kendall_all = kNaN;
};

std::vector<double> best_runtimes(const CachedGraph& c, const std::vector<int64_t>& groups) {
  std::vector<double> out;
  for (int64_t g : groups) out.push_back(c.groups.best_runtime[static_cast<size_t>(g)]);
  return out;
}

Row score_row(const std::string& name, const train::GraphEntry& held, const std::vector<double>& scores) {
  Row r{name, evaluate_graph(scores, best_runtimes(held.cache, held.eval_groups)), kNaN};
  r.kendall_all = evaluate_ranking(rank_configs(held.cache.groups, held.eval_groups, scores), held.cache.runtime, held.cache.groups).kendall;
  return r;
}

// The baseline: ridge on one-hot config values, fitted on the
// training groups, the penalty chosen on the valid ones.
Row ridge_row(const train::GraphEntry& fit, const train::GraphEntry& valid, const train::GraphEntry& held,
              double* lambda_out) {
  const CachedGraph& c = fit.cache;
  std::vector<double> y;
  for (int64_t g : fit.train_groups) y.push_back(std::log(c.groups.best_runtime[static_cast<size_t>(g)]));
  const std::vector<float> x = c.config_rows(fit.train_groups);
  const std::vector<float> vx = valid.cache.config_rows(valid.eval_groups);
  const std::vector<double> vrt = best_runtimes(valid.cache, valid.eval_groups);
  double best_k = -2;
  baselines::OneHotRidge chosen;
  for (double lambda : {1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0}) {
    baselines::OneHotRidge ridge;
    ridge.fit(x, c.config_row_elems, y, lambda);
    const double k = kendall_tau(ridge.predict(vx), vrt);
    if (k > best_k + 1e-12) {
      best_k = k;
      *lambda_out = lambda;
      chosen = std::move(ridge);
    }
  }
  return score_row("ridge one-hot values", held, chosen.predict(held.cache.config_rows(held.eval_groups)));
}

// Two measurements of the same config: how well one predicts the other's
// order (the runs' noise, over the held-out configs measured twice or more).
double repeat_kendall(const train::GraphEntry& held, int64_t* pairs) {
  const ConfigGroups& g = held.cache.groups;
  std::vector<std::vector<double>> seen(static_cast<size_t>(g.num_groups()));
  for (int64_t i = 0; i < g.num_configs(); ++i) seen[static_cast<size_t>(g.group_of[i])].push_back(held.cache.runtime[i]);
  std::vector<double> a, b;
  for (int64_t gr : held.eval_groups)
    if (seen[static_cast<size_t>(gr)].size() >= 2) {
      a.push_back(seen[static_cast<size_t>(gr)][0]);
      b.push_back(seen[static_cast<size_t>(gr)][1]);
    }
  *pairs = static_cast<int64_t>(a.size());
  return a.size() >= 2 ? kendall_tau(a, b) : kNaN;
}

std::string cell(double v) {
  char buf[32];
  if (std::isnan(v))
    std::snprintf(buf, sizeof buf, "%8s", "-");
  else
    std::snprintf(buf, sizeof buf, "%8.4f", v);
  return buf;
}

void print_row(const Row& r, int64_t configs) {
  std::printf("%-26s %7lld %s %s %s %s %s\n", r.name.c_str(), static_cast<long long>(configs), cell(r.unique.kendall).c_str(),
              cell(r.unique.opa).c_str(), cell(r.unique.top1).c_str(), cell(r.unique.top5).c_str(),
              cell(r.kendall_all).c_str());
}

bool bench_file(const std::string& out, const std::string& file) {
  const std::string stem = std::filesystem::path(file).stem().string();
  const CachedGraph probe = CachedGraph::open(file, {out + "/.cache", 1});
  if (!probe.has_runtime()) {
    std::printf("\n%s: no measured runtimes (a test file): skipped\n", stem.c_str());
    return true;
  }
  if (probe.groups.num_groups() < 10) {
    std::printf("\n%s: %lld unique config(s) among %lld measured: nothing to rank, skipped\n", stem.c_str(),
                static_cast<long long>(probe.groups.num_groups()), static_cast<long long>(probe.num_configs));
    return true;
  }
  const std::string dir = out + "/" + stem;
  // The bench's view of a run: one line per epoch, Ctrl-C stops (and saves).
  struct Progress : train::Callback {
    std::string stem;
    void on_message(const std::string& s) override { std::fprintf(stderr, "%s\n", s.c_str()); }
    train::Verdict on_validation(const train::ValidationInfo& v) override {
      std::fprintf(stderr, "%s epoch %lld: valid kendall %.4f%s\n", stem.c_str(),
                   static_cast<long long>(v.result.epoch + 1), v.result.score, v.result.best ? " (best)" : "");
      return std::nullopt;
    }
  };
  auto progress = std::make_shared<Progress>();
  progress->stem = stem;
  const train::Callbacks hooks = {progress, std::make_shared<train::StopWhen>([] { return g_stop != 0; })};
  train::TrainResult tr;
  if (train::RunDir(dir).has("config.json") && bench::older_than_this_build(std::filesystem::path(dir) / "config.json")) {
    std::fprintf(stderr, "%s: the run predates this build: trained again\n", stem.c_str());
    remove_tree(dir);
  }
  if (train::RunDir(dir).has("config.json")) {
    tr = train::resume(dir, std::nullopt, hooks);
  } else {
    train::TrainOptions o;
    o.graph = file;
    o.out = dir;
    o.cache = out + "/.cache";
    o.seed = 0;
    tr = train::train(o, hooks);
  }
  if (tr.interrupted()) return false;
  if (tr.reason == train::StopReason::Diverged) {
    std::fprintf(stderr, "%s\n", tr.message.c_str());
    return false;
  }

  const train::LoadedRun run = train::load_run(dir, "cpu");
  const train::GraphEntry fit = std::move(train::load_split(run, "train").front());
  const train::GraphEntry valid = std::move(train::load_split(run, "valid").front());
  const train::GraphEntry held = std::move(train::load_split(run, "holdout").front());
  const auto scores = train::score_groups(*run.model, held, held.eval_groups, run.norm, *run.options.eval_chunk, run.device);
  std::vector<Row> rows{score_row("fastslow " + run.options.model + (*run.options.wide == 1 ? "+wide" : ""), held, scores)};
  if (auto* program = dynamic_cast<models::ProgramModelImpl*>(run.model.get())) {
    torch::NoGradGuard no_grad;
    const torch::Tensor kept = program->gate.clone();
    program->gate.zero_();
    rows.push_back(score_row("  its wide table alone", held,
                             train::score_groups(*run.model, held, held.eval_groups, run.norm, *run.options.eval_chunk,
                                                 run.device)));
    program->gate.copy_(kept);
  }
  double lambda = 0;
  rows.push_back(ridge_row(fit, valid, held, &lambda));

  std::printf("\n%s: %lld unique configs (%lld measured): train %zu, valid %zu, held out %zu; seed %llu; "
              "stopped (%s) after %lld epochs, best %lld; ridge lambda %g\n",
              stem.c_str(), static_cast<long long>(held.cache.groups.num_groups()),
              static_cast<long long>(held.cache.num_configs), fit.eval_groups.size(), valid.eval_groups.size(),
              held.eval_groups.size(), static_cast<unsigned long long>(run.options.seed), train::stop_reason_name(tr.reason),
              static_cast<long long>(tr.epochs_done), static_cast<long long>(tr.best_epoch + 1), lambda);
  std::printf("%-26s %7s %8s %8s %8s %8s %8s\n", "held-out unique configs", "configs", "kendall", "opa", "top1err",
              "top5err", "k(all)");
  for (const Row& r : rows) print_row(r, static_cast<int64_t>(held.eval_groups.size()));
  int64_t pairs = 0;
  const double rk = repeat_kendall(held, &pairs);
  if (pairs >= 2) std::printf("%-26s %7lld %s   (first vs second measurement)\n", "repeat measurement",
                              static_cast<long long>(pairs), cell(rk).c_str());
  std::printf("kendall ratio fastslow/ridge: %.3f\n", rows.front().unique.kendall / rows.back().unique.kendall);
  std::fflush(stdout);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUT FILE...  (real .npz files with runtimes)\n", argv[0]);
    return 1;
  }
  std::signal(SIGINT, [](int) { g_stop = 1; });
  try {
    for (int i = 2; i < argc; ++i)
      if (!bench_file(argv[1], argv[i])) {
        std::fprintf(stderr, "interrupted: run the same command again to resume\n");
        return 130;
      }
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
