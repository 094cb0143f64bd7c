// Few measurements, per program: learning curves over N measured configs
// on real graphs. For each N and draw, N unique configs are "measured"
// (split_measured, draw = split seed), every other config is held out, and
// three rankers are scored on the held-out ones:
//   ridge            one-hot ridge, penalty by 4-fold cross-validation in the N;
//   physics          `tune --predictor physics`'s ridge (tune/physics_ridge.h):
//                    ridge's penalty, centred one-hot values plus five shared
//                    byte terms (none on files without the 140 columns);
//   fastslow         the per-program default, `fastslow train --measured N`;
//   fastslow --init  the same, starting from a prior run (--init RUN), where
//                    its node features fit the graph's.
// Reported per N: mean Kendall (and its spread over draws), top-1 and top-5
// slowdown, and the share of the predicted top 10 in the slow tail (more
// than 5 % over the held-out best). Curves go to OUT/fewshot-<stem>.svg.
// Usage: fastslow_bench_fewshot OUT [--ns 16,32,...] [--draws D] [--init RUN] FILE...
// Runs go to OUT/<stem>/n<N>-d<D>-<method>; finished ones are reused
// (unless this binary is newer: stale_run.h).
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "baselines/ridge.h"
#include "baselines/ridge_cv.h"
#include "fastslow/data/graph_cache.h"
#include "fastslow/data/holdout.h"
#include "fastslow/error.h"
#include "fastslow/io/remove_tree.h"
#include "fastslow/io/write_file.h"
#include "fastslow/rank/metrics.h"
#include "fastslow/search/line_chart.h"
#include "models/program_model.h"
#include "train/evaluate.h"
#include "train/loaded_run.h"
#include "train/run_dir.h"
#include "train/run_files.h"
#include "train/trainer.h"
#include "tune/physics_ridge.h"

#include "int_list.h"
#include "stale_run.h"

using namespace fastslow;

namespace {

volatile std::sig_atomic_t g_stop = 0;

struct Score {
  double kendall = kNaN, top1 = kNaN, top5 = kNaN, tail10 = kNaN;
};

Score score_of(const std::vector<double>& pred, const std::vector<double>& runtime) {
  const GraphMetrics m = evaluate_graph(pred, runtime);
  Score s{m.kendall, m.top1, m.top5, 0};
  const double best = *std::min_element(runtime.begin(), runtime.end());
  const std::vector<int64_t> r = ranking_from_scores(pred);
  const size_t k = std::min<size_t>(10, r.size());
  for (size_t i = 0; i < k; ++i) s.tail10 += runtime[static_cast<size_t>(r[i])] > 1.05 * best ? 1.0 : 0.0;
  s.tail10 /= static_cast<double>(k);
  return s;
}

struct Cell {
  std::vector<Score> draws;
  double mean(double Score::*f) const {
    double s = 0;
    int n = 0;
    for (const Score& d : draws)
      if (std::isfinite(d.*f)) s += d.*f, ++n;
    return n ? s / n : kNaN;
  }
  double sd(double Score::*f) const {
    const double m = mean(f);
    double s = 0;
    int n = 0;
    for (const Score& d : draws)
      if (std::isfinite(d.*f)) s += (d.*f - m) * (d.*f - m), ++n;
    return n > 1 ? std::sqrt(s / (n - 1)) : 0.0;
  }
};

// A fastslow run on N measured configs (reused when finished, unless its
// prior finished after it, a prior trained again on newer generated data,
// or this binary was built after it: stale_run.h), scored on the held-out
// configs. Returns false when interrupted.
bool fastslow_scores(const std::string& file, const std::string& dir, const std::string& cache, int64_t n, int draw,
                     const std::string& init, std::vector<double>* scores, std::vector<double>* runtimes,
                     std::vector<double>* table_scores) {
  const train::Callbacks hooks = {std::make_shared<train::StopWhen>([] { return g_stop != 0; })};
  train::TrainResult tr;
  namespace fs = std::filesystem;
  const bool finished = train::RunDir(dir).has("best.pt") && train::RunDir(dir).has("metrics.json");
  const bool stale = finished && ((!init.empty() && fs::last_write_time(fs::path(init) / "metrics.json") >
                                                         fs::last_write_time(fs::path(dir) / "metrics.json")) ||
                                   bench::older_than_this_build(fs::path(dir) / "config.json"));
  if (!finished || stale) {
    remove_tree(dir);
    train::TrainOptions o;
    o.graph = file;
    o.out = dir;
    o.cache = cache;
    o.measured = n;
    o.seed = static_cast<uint64_t>(draw);
    o.init = init;
    tr = train::train(o, hooks);
    if (tr.interrupted()) return false;
  }
  const train::LoadedRun run = train::load_run(dir, "cpu");
  const train::GraphEntry held = std::move(train::load_split(run, "holdout").front());
  *scores = train::score_groups(*run.model, held, held.eval_groups, run.norm, *run.options.eval_chunk, run.device);
  table_scores->clear();
  if (auto* program = dynamic_cast<models::ProgramModelImpl*>(run.model.get())) {  // the wide table alone
    torch::NoGradGuard no_grad;
    program->gate.zero_();
    *table_scores = train::score_groups(*run.model, held, held.eval_groups, run.norm, *run.options.eval_chunk, run.device);
  }
  runtimes->clear();
  for (int64_t g : held.eval_groups) runtimes->push_back(held.cache.groups.best_runtime[static_cast<size_t>(g)]);
  return true;
}

bool bench_file(const std::string& out, const std::string& file, const std::vector<int64_t>& ns, int draws,
                const std::string& init) {
  const std::string stem = std::filesystem::path(file).stem().string();
  const std::string cache = out + "/.cache";
  const CachedGraph g = CachedGraph::open(file, {cache, 1});
  if (!g.has_runtime() || g.groups.num_groups() < 40) {
    std::printf("\n%s: too few measured unique configs to draw from: skipped\n", stem.c_str());
    return true;
  }
  bool use_init = !init.empty();
  if (use_init && train::read_stats(train::RunDir(init)).node.width() != g.node_feat_width) {
    std::printf("\n%s: %lld node features, the prior %s another number: no --init curve\n", stem.c_str(),
                static_cast<long long>(g.node_feat_width), init.c_str());
    use_init = false;
  }
  std::vector<std::string> methods = {"ridge", "fastslow"};
  if (g.kind == GraphKind::Layout) methods.insert(methods.begin() + 1, "physics");
  if (use_init) methods.push_back("fastslow --init");
  std::map<std::string, std::map<int64_t, Cell>> cells;
  for (int64_t n : ns) {
    if (n >= g.groups.num_groups() - 10) continue;
    for (int d = 0; d < draws; ++d) {
      // The draw the runs make: configs without a runtime in no part.
      const HoldoutSplit split = split_measured(g.groups.num_groups(), n, 0.0, static_cast<uint64_t>(d), g.groups.unmeasured());
      std::vector<double> held_rt;
      for (int64_t h : split.holdout) held_rt.push_back(g.groups.best_runtime[static_cast<size_t>(h)]);
      {  // ridge
        std::vector<double> y;
        for (int64_t t : split.train) y.push_back(std::log(g.groups.best_runtime[static_cast<size_t>(t)]));
        const std::vector<float> x = g.config_rows(split.train);
        const baselines::RidgeChoice c = baselines::choose_ridge_penalty(x, g.config_row_elems, y, 4, static_cast<uint64_t>(d));
        baselines::OneHotRidge ridge;
        ridge.fit(x, g.config_row_elems, y, c.lambda);
        cells["ridge"][n].draws.push_back(score_of(ridge.predict(g.config_rows(split.holdout)), held_rt));
        if (g.kind == GraphKind::Layout) {  // physics prices layouts only
          tune::PhysicsRidge physics(g);
          physics.fit(x, y, c.lambda);
          cells["physics"][n].draws.push_back(score_of(physics.predict(g.config_rows(split.holdout)), held_rt));
        }
      }
      for (const std::string& m : methods) {
        if (m == "ridge" || m == "physics") continue;
        const bool with_init = m != "fastslow";
        const std::string dir = out + "/" + stem + "/n" + std::to_string(n) + "-d" + std::to_string(d) +
                                (with_init ? "-init" : "-scratch");
        std::vector<double> scores, rt, table;
        if (!fastslow_scores(file, dir, cache, n, d, with_init ? init : "", &scores, &rt, &table)) return false;
        if (rt != held_rt) throw Error(dir, "", "held out other configs than split_measured draws");
        cells[m][n].draws.push_back(score_of(scores, rt));
        if (!with_init && !table.empty()) cells["  its table alone"][n].draws.push_back(score_of(table, rt));
      }
      std::fprintf(stderr, "%s N=%lld draw %d: ridge %.3f physics %.3f fastslow %.3f\n", stem.c_str(),
                   static_cast<long long>(n), d, cells["ridge"][n].draws.back().kendall,
                   cells["physics"].count(n) ? cells["physics"][n].draws.back().kendall : kNaN,
                   cells["fastslow"][n].draws.back().kendall);
    }
  }
  std::printf("\n%s: %lld unique configs; %d draws per N; held out: every config not measured\n", stem.c_str(),
              static_cast<long long>(g.groups.num_groups()), draws);
  std::printf("%6s  %-16s %8s %6s %8s %8s %8s  %s\n", "N", "ranker", "kendall", "sd", "top1", "top5", "tail10",
              "kendall - ridge");
  std::vector<std::string> rows = methods;
  if (cells.count("  its table alone"))
    rows.insert(std::find(rows.begin(), rows.end(), "fastslow") + 1, "  its table alone");
  for (int64_t n : ns) {
    if (!cells["ridge"].count(n)) continue;
    for (const std::string& m : rows) {
      const Cell& c = cells[m][n];
      std::printf("%6lld  %-16s %8.4f %6.3f %7.2f%% %7.2f%% %7.1f%%  %+.4f\n", static_cast<long long>(n), m.c_str(),
                  c.mean(&Score::kendall), c.sd(&Score::kendall), 100 * c.mean(&Score::top1), 100 * c.mean(&Score::top5),
                  100 * c.mean(&Score::tail10), c.mean(&Score::kendall) - cells["ridge"][n].mean(&Score::kendall));
    }
  }
  search::LineChart chart;
  chart.title = stem + ": held-out Kendall against measured configs";
  chart.x_label = "measured unique configs N";
  chart.y_label = "Kendall tau (mean of " + std::to_string(draws) + " draws)";
  chart.x_scale = ScaleChoice::Log;
  for (const std::string& m : methods) {
    search::Curve c{m, {}};
    for (const auto& [n, cell] : cells[m]) c.points.emplace_back(static_cast<double>(n), cell.mean(&Score::kendall));
    chart.curves.push_back(c);
  }
  const std::string svg = out + "/fewshot-" + stem + ".svg";
  write_file_atomically(svg, search::line_chart_svg(chart));
  std::printf("curves: %s\n", svg.c_str());
  std::fflush(stdout);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUT [--ns 16,32,64] [--draws D] [--init RUN] FILE...\n", argv[0]);
    return 1;
  }
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::vector<int64_t> ns = {16, 32, 64, 128, 256, 512};
  int draws = 5;
  std::string init;
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--ns" && i + 1 < argc) ns = bench::parse_int_list(argv[++i]);
    else if (a == "--draws" && i + 1 < argc) draws = std::stoi(argv[++i]);
    else if (a == "--init" && i + 1 < argc) init = std::filesystem::absolute(argv[++i]).string();
    else files.push_back(a);
  }
  try {
    for (const std::string& f : files)
      if (!bench_file(argv[1], f, ns, draws, init)) {
        std::fprintf(stderr, "interrupted: run the same command again to resume\n");
        return 130;
      }
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
