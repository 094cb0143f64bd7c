// Quality bar of per-program tuning: a run trained with `fastslow train
// --graph FILE --holdout H` against a ridge regression on one-hot config
// features fitted on exactly the same training configs, both scored on the
// same held-out configs. Usage: fastslow_bench_holdout RUN
#include <cmath>
#include <cstdio>

#include "baselines/ridge.h"
#include "fastslow/error.h"
#include "train/evaluate.h"
#include "train/trainer.h"

using namespace fastslow;

namespace {

void row(const char* name, const GraphMetrics& m) {
  std::printf("%-24s %8lld %8.4f %8.4f %9.4f %9.4f %9.4f\n", name, static_cast<long long>(m.configs), m.kendall, m.opa,
              m.top1, m.top5, m.top10);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s RUN  (a per-program run from fastslow train --graph ... --holdout ...)\n", argv[0]);
    return 1;
  }
  try {
    const train::LoadedRun run = train::load_run(argv[1], "cpu");
    if (run.options.graph.empty()) throw Error(argv[1], "", "not a per-program run (no --graph)");
    const train::GraphEntry fit = std::move(train::load_split(run, "train").front());
    const train::GraphEntry held = std::move(train::load_split(run, "valid").front());

    const train::GraphResult model = train::evaluate_entry(*run.model, held, run.norm, run.options.eval_chunk, run.device);

    // Ridge on log(best runtime) of the training groups' unique configs.
    const CachedGraph& c = fit.cache;
    std::vector<double> y;
    for (int64_t g : fit.train_groups) y.push_back(std::log(c.groups.best_runtime[g]));
    baselines::OneHotRidge ridge;
    ridge.fit(c.config_rows(fit.train_groups), c.config_row_elems, y, 1.0);
    const std::vector<double> pred = ridge.predict(held.cache.config_rows(held.eval_groups));
    GraphMetrics rm = evaluate_ranking(rank_configs(held.cache.groups, held.eval_groups, pred), held.cache.runtime);
    rm.configs = model.metrics.configs;

    std::printf("%s: %zu training groups, %zu held-out groups (seed %llu)\n", c.source.c_str(), fit.train_groups.size(),
                held.eval_groups.size(), static_cast<unsigned long long>(run.options.seed));
    std::printf("%-24s %8s %8s %8s %9s %9s %9s\n", "model", "configs", "kendall", "opa", "top1err", "top5err", "top10err");
    row(("fastslow " + run.options.model).c_str(), model.metrics);
    row("ridge one-hot", rm);
    std::printf("kendall ratio model/ridge: %.3f\n", model.metrics.kendall / rm.kendall);
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
