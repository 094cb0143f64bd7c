// Autotuning sessions replayed on real measured files (`fastslow tune
// --measure file`): how much measuring time each order spends before it
// measures a config within 0.1 % of the file's best, against random order
// at the same batch size, and how many slow-tail configs (more than 5 %
// over the best) each round measures. Orders: random, ridge-guided and
// fastslow-guided (both epsilon-greedy, the default strategy). Each order
// starts from the file's most common config and random ones (the session's
// default, start_batch.h) or from random ones only, the same draws per
// start seed; "common+random" (the common config, then random order)
// separates what the start gives from what the model gives.
// Usage: fastslow_bench_tune OUT [--starts S] [--fastslow-starts F] [--rounds R] [--batch B]
//                            [--orders A,B,...] FILE...
// Sessions go to OUT/<stem>/<order>-s<seed>; finished rounds are reused
// (unless this binary was built after them: stale_run.h).
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "fastslow/error.h"
#include "fastslow/io/remove_tree.h"
#include "fastslow/io/write_file.h"
#include "fastslow/search/line_chart.h"
#include "tune/session.h"

#include "stale_run.h"

using namespace fastslow;

namespace {

volatile std::sig_atomic_t g_stop = 0;

struct Order {
  std::string name;
  std::string predictor;
  PickStrategy strategy;
  StartFrom start_from;
  int starts;
};

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

bool bench_file(const std::string& out, const std::string& file, const std::vector<Order>& orders, int64_t rounds,
                int64_t batch) {
  const std::string stem = std::filesystem::path(file).stem().string();
  std::map<std::string, std::vector<TraceSummary>> results;
  double best_known = 0;
  for (const Order& o : orders)
    for (int s = 0; s < o.starts; ++s) {
      tune::TuneSettings t;
      t.graph = file;
      t.out = out + "/" + stem + "/" + o.name + "-s" + std::to_string(s);
      t.predictor = o.predictor;
      t.pick.strategy = o.strategy;
      t.rounds = rounds;
      t.batch = batch;
      t.start = batch;
      t.start_from = o.start_from;
      t.seed = static_cast<uint64_t>(s);
      t.run.cache = out + "/.cache";
      if (bench::older_than_this_build(std::filesystem::path(t.out) / "tune.json")) remove_tree(t.out);
      const tune::TuneOutcome r = tune::run_session(t, {}, [] { return g_stop != 0; });
      if (r.interrupted) return false;
      best_known = r.best_known;
      results[o.name].push_back(summarize_trace(r.trace, r.best_known));
      const TraceSummary& last = results[o.name].back();
      std::fprintf(stderr, "%s %s start %d: within 0.1 %% after %lld measurements\n", stem.c_str(), o.name.c_str(), s,
                   static_cast<long long>(last.to_target));
    }
  if (best_known <= 0) {
    std::printf("\n%s: no runtimes to replay: skipped\n", stem.c_str());
    return true;
  }
  // A session that never reached the target counts its whole time (a lower bound).
  auto time_to = [](const TraceSummary& s) { return s.to_target > 0 ? s.time_to_target : s.time_total; };
  std::vector<double> random_times;
  for (const TraceSummary& s : results["random"]) random_times.push_back(time_to(s));
  const double random_median = median(random_times);
  std::printf("\n%s: batch %lld, %lld rounds after a start of %lld; the file's best %.6g ms\n", stem.c_str(),
              static_cast<long long>(batch), static_cast<long long>(rounds), static_cast<long long>(batch), best_known / 1e6);
  std::printf("%-15s %6s %8s %16s %12s %14s %14s\n", "order", "starts", "reached", "median time (s)", "vs random",
              "median meas.", "tail / round");
  for (const Order& o : orders) {
    const auto& rs = results[o.name];
    std::vector<double> times, counts;
    int reached = 0;
    double tail = 0;
    int64_t round_count = 0;
    for (const TraceSummary& s : rs) {
      times.push_back(time_to(s));
      counts.push_back(static_cast<double>(s.to_target > 0 ? s.to_target : -1));
      reached += s.to_target > 0;
      for (size_t r = 1; r < s.tail_per_round.size(); ++r) tail += static_cast<double>(s.tail_per_round[r]), ++round_count;
    }
    std::printf("%-15s %6zu %5d/%-2zu %16.4f %11.3fx %14.1f %14.2f\n", o.name.c_str(), rs.size(), reached, rs.size(),
                median(times) / 1e9, median(times) / random_median, median(counts),
                round_count ? tail / static_cast<double>(round_count) : NAN);
  }
  // Per round: the tail configs each order measured (mean over starts).
  std::printf("tail configs measured per round (mean over starts; round 0 is the start):\n%-15s", "round");
  for (int64_t r = 0; r <= rounds; ++r) std::printf(" %5lld", static_cast<long long>(r));
  std::printf("\n");
  for (const Order& o : orders) {
    std::printf("%-15s", o.name.c_str());
    for (int64_t r = 0; r <= rounds; ++r) {
      double sum = 0;
      int n = 0;
      for (const TraceSummary& s : results[o.name])
        if (r < static_cast<int64_t>(s.tail_per_round.size())) sum += static_cast<double>(s.tail_per_round[static_cast<size_t>(r)]), ++n;
      std::printf(" %5.2f", n ? sum / n : NAN);
    }
    std::printf("\n");
  }
  search::LineChart chart;
  chart.title = stem + ": best found against measuring time";
  chart.x_label = "measuring time spent (s, mean over starts)";
  chart.y_label = "best found, % over the file's best (mean)";
  for (const Order& o : orders) {
    search::Curve c{o.name, {}};
    for (int64_t r = 0; r <= rounds; ++r) {
      double t = 0, b = 0;
      int n = 0;
      for (const TraceSummary& s : results[o.name])
        if (r < static_cast<int64_t>(s.best_after_round.size()))
          t += s.time_after_round[static_cast<size_t>(r)], b += s.best_after_round[static_cast<size_t>(r)], ++n;
      if (n) c.points.emplace_back(t / n / 1e9, 100.0 * (b / n / best_known - 1));
    }
    chart.curves.push_back(c);
  }
  const std::string svg = out + "/tune-" + stem + ".svg";
  write_file_atomically(svg, search::line_chart_svg(chart));
  std::printf("curves: %s\n", svg.c_str());
  std::fflush(stdout);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s OUT [--starts S] [--fastslow-starts F] [--rounds R] [--batch B] [--orders A,B] "
                 "FILE...\n",
                 argv[0]);
    return 1;
  }
  std::signal(SIGINT, [](int) { g_stop = 1; });
  int starts = 20, fastslow_starts = 10;
  int64_t rounds = 10, batch = 8;
  std::string only;
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--starts" && i + 1 < argc) starts = std::stoi(argv[++i]);
    else if (a == "--fastslow-starts" && i + 1 < argc) fastslow_starts = std::stoi(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc) rounds = std::stoll(argv[++i]);
    else if (a == "--batch" && i + 1 < argc) batch = std::stoll(argv[++i]);
    else if (a == "--orders" && i + 1 < argc) only = "," + std::string(argv[++i]) + ",";
    else files.push_back(a);
  }
  std::vector<Order> orders = {
      {"random", "ridge", PickStrategy::Random, StartFrom::Random, starts},
      {"common+random", "ridge", PickStrategy::Random, StartFrom::Common, starts},
      {"ridge", "ridge", PickStrategy::Epsilon, StartFrom::Common, starts},
      {"fastslow", "fastslow", PickStrategy::Epsilon, StartFrom::Common, fastslow_starts},
      {"ridge-rstart", "ridge", PickStrategy::Epsilon, StartFrom::Random, starts},
      {"fastslow-rstart", "fastslow", PickStrategy::Epsilon, StartFrom::Random, fastslow_starts}};
  if (!only.empty()) {
    std::vector<Order> kept;
    for (const Order& o : orders)
      if (o.name == "random" || only.find("," + o.name + ",") != std::string::npos) kept.push_back(o);
    orders = kept;
  }
  try {
    for (const std::string& f : files)
      if (!bench_file(argv[1], f, orders, rounds, batch)) {
        std::fprintf(stderr, "interrupted: run the same command again to go on\n");
        return 130;
      }
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
