#include "fastslow/rank/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>

#include "fastslow/error.h"

namespace fastslow {

namespace {

void check_no_nan(const std::vector<double>& v, const char* name) {
  for (size_t i = 0; i < v.size(); ++i)
    if (std::isnan(v[i]))
      throw Error(std::string(name) + "[" + std::to_string(i) + "] is NaN");
}

void check_inputs(const std::vector<double>& score,
                  const std::vector<double>& runtime) {
  if (score.size() != runtime.size())
    throw Error("score has " + std::to_string(score.size()) +
                " entries but runtime has " + std::to_string(runtime.size()));
  check_no_nan(score, "score");
  check_no_nan(runtime, "runtime");
}

int64_t pairs(size_t n) {
  return static_cast<int64_t>(n) * (static_cast<int64_t>(n) - 1) / 2;
}

// Pairs of equal values in an already sorted vector.
int64_t tied_pairs(const std::vector<double>& sorted) {
  int64_t tied = 0;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    tied += pairs(j - i);
    i = j;
  }
  return tied;
}

// Counts over ranks 0..n-1; prefix(r) counts entries with rank < r.
class Fenwick {
 public:
  explicit Fenwick(size_t n) : tree_(n + 1, 0) {}
  void add(size_t rank) {
    for (size_t i = rank + 1; i < tree_.size(); i += i & (~i + 1)) ++tree_[i];
  }
  int64_t prefix(size_t rank) const {
    int64_t sum = 0;
    for (size_t i = rank; i > 0; i -= i & (~i + 1)) sum += tree_[i];
    return sum;
  }

 private:
  std::vector<int64_t> tree_;
};

}  // namespace


double kendall_tau(const std::vector<double>& score,
                   const std::vector<double>& runtime) {
  check_inputs(score, runtime);
  const size_t n = score.size();
  if (n < 2) return kNaN;

  // Knight: after sorting by (score, runtime), every inversion left in the
  // runtime sequence is a discordant pair; pairs tied in score are already in
  // runtime order, so they add no inversions.
  std::vector<std::pair<double, double>> p(n);
  for (size_t i = 0; i < n; ++i) p[i] = {score[i], runtime[i]};
  std::sort(p.begin(), p.end());

  int64_t tied_score = 0, tied_both = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && p[j].first == p[i].first) ++j;
    tied_score += pairs(j - i);
    for (size_t a = i; a < j;) {
      size_t b = a;
      while (b < j && p[b].second == p[a].second) ++b;
      tied_both += pairs(b - a);
      a = b;
    }
    i = j;
  }

  std::vector<double> y(n);
  for (size_t i = 0; i < n; ++i) y[i] = p[i].second;
  const int64_t discordant = sort_counting_inversions(y);
  const int64_t tied_runtime = tied_pairs(y);

  const int64_t total = pairs(n);
  if (tied_score == total || tied_runtime == total) return kNaN;
  // concordant - discordant, with all counts exact integers.
  const int64_t s =
      total - tied_score - tied_runtime + tied_both - 2 * discordant;
  // The product can exceed int64 for large n, so it is formed in double.
  const double denom = std::sqrt(static_cast<double>(total - tied_score) *
                                 static_cast<double>(total - tied_runtime));
  return static_cast<double>(s) / denom;
}

double ordered_pair_accuracy(const std::vector<double>& score,
                             const std::vector<double>& runtime) {
  check_inputs(score, runtime);
  const size_t n = score.size();

  // Dense score ranks, so the tree can be indexed by them.
  std::vector<std::pair<double, size_t>> by_score(n);
  for (size_t i = 0; i < n; ++i) by_score[i] = {score[i], i};
  std::sort(by_score.begin(), by_score.end());
  std::vector<size_t> rank(n);
  size_t ranks = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && by_score[i].first != by_score[i - 1].first) ++ranks;
    rank[by_score[i].second] = ranks;
  }

  // (runtime, score rank), sorted: contiguous, so no indirect comparisons.
  std::vector<std::pair<double, size_t>> by_runtime(n);
  for (size_t i = 0; i < n; ++i) by_runtime[i] = {runtime[i], rank[i]};
  std::sort(by_runtime.begin(), by_runtime.end());

  // A group of equal runtimes is queried before it is inserted, so the tree
  // only ever holds strictly faster configurations; the strict prefix makes a
  // score tie count as wrong.
  Fenwick faster(n);
  int64_t right = 0, total = 0, inserted = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && by_runtime[j].first == by_runtime[i].first) ++j;
    for (size_t a = i; a < j; ++a) right += faster.prefix(by_runtime[a].second);
    total += inserted * static_cast<int64_t>(j - i);
    for (size_t a = i; a < j; ++a) faster.add(by_runtime[a].second);
    inserted += static_cast<int64_t>(j - i);
    i = j;
  }
  if (total == 0) return kNaN;
  return static_cast<double>(right) / static_cast<double>(total);
}

std::vector<int64_t> ranking_from_scores(const std::vector<double>& score) {
  check_no_nan(score, "score");
  std::vector<int64_t> order(score.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return score[static_cast<size_t>(a)] < score[static_cast<size_t>(b)];
  });
  return order;
}

double top_k_error(const std::vector<int64_t>& ranking,
                   const std::vector<double>& runtime, int k) {
  if (k < 1) throw Error("top-k needs k >= 1, got " + std::to_string(k));
  if (ranking.empty()) throw Error("top-k of an empty ranking");
  if (runtime.empty()) throw Error("top-k over no runtimes");
  check_no_nan(runtime, "runtime");
  const int64_t n = static_cast<int64_t>(runtime.size());
  for (size_t i = 0; i < ranking.size(); ++i)
    if (ranking[i] < 0 || ranking[i] >= n)
      throw Error("ranking[" + std::to_string(i) + "] = " +
                  std::to_string(ranking[i]) + " is out of range for " +
                  std::to_string(n) + " runtimes");

  const double best = *std::min_element(runtime.begin(), runtime.end());
  // The error is a ratio to the best runtime; zero or negative makes it
  // meaningless rather than merely large.
  if (!(best > 0))
    throw Error("runtimes must be positive, best is " + std::to_string(best));

  const size_t kk = std::min(static_cast<size_t>(k), ranking.size());
  double best_k = runtime[static_cast<size_t>(ranking[0])];
  for (size_t i = 1; i < kk; ++i)
    best_k = std::min(best_k, runtime[static_cast<size_t>(ranking[i])]);
  return best_k / best - 1.0;
}

double tile_score(const std::vector<int64_t>& ranking,
                  const std::vector<double>& runtime) {
  return 1.0 - top_k_error(ranking, runtime, 5);
}

double kendall_null_sd(int64_t n) {
  if (n < 2) return kNaN;
  const double v = static_cast<double>(n);
  return std::sqrt(2.0 * (2.0 * v + 5.0) / (9.0 * v * (v - 1.0)));
}

GraphMetrics evaluate_graph(const std::vector<double>& score,
                            const std::vector<double>& runtime) {
  check_inputs(score, runtime);
  if (score.empty()) throw Error("graph has no configurations");
  // A runtime of 0 is a config nobody measured (a file validation only
  // warns about, e.g. proposals merged in): scored against, it would count
  // as the fastest of all. Every metric is over the measured configs.
  if (!(*std::min_element(runtime.begin(), runtime.end()) > 0)) {
    std::vector<double> s, r;
    for (size_t i = 0; i < runtime.size(); ++i)
      if (runtime[i] > 0) s.push_back(score[i]), r.push_back(runtime[i]);
    if (r.empty()) return GraphMetrics{};
    return evaluate_graph(s, r);
  }
  GraphMetrics m;
  m.configs = static_cast<int64_t>(score.size());
  m.kendall = kendall_tau(score, runtime);
  m.opa = ordered_pair_accuracy(score, runtime);
  const std::vector<int64_t> ranking = ranking_from_scores(score);
  m.top1 = top_k_error(ranking, runtime, 1);
  m.top5 = top_k_error(ranking, runtime, 5);
  m.top10 = top_k_error(ranking, runtime, 10);
  m.tile_score = 1.0 - m.top5;
  return m;
}

CollectionMetrics summarize(const std::vector<GraphMetrics>& graphs) {
  CollectionMetrics c;
  c.graphs = static_cast<int64_t>(graphs.size());
  for (const GraphMetrics& g : graphs)
    if (std::isnan(g.kendall)) ++c.undefined_kendall;

  auto mean = [&](double GraphMetrics::*field) {
    double sum = 0;
    int64_t count = 0;
    for (const GraphMetrics& g : graphs) {
      if (std::isnan(g.*field)) continue;
      sum += g.*field;
      ++count;
    }
    return count == 0 ? kNaN : sum / static_cast<double>(count);
  };
  c.kendall = mean(&GraphMetrics::kendall);
  c.opa = mean(&GraphMetrics::opa);
  c.top1 = mean(&GraphMetrics::top1);
  c.top5 = mean(&GraphMetrics::top5);
  c.top10 = mean(&GraphMetrics::top10);
  c.tile_score = mean(&GraphMetrics::tile_score);
  return c;
}

}  // namespace fastslow
