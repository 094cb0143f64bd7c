// One-hot ridge fits (baselines/ridge.h), the solve tuning's ridge scorer,
// the wide table's penalty search and the per-program reference repeat dozens
// of times, against the solver ridge had before: the normal equations
// (features x features) by Eigen's LDLT, written out here.
//   fastslow_bench_ridge FILE.npz... [--counts 64,256,1024] [--lambda 1]
// For each layout file with runtimes and each count, a seeded draw of that
// many configs (log runtime the target): seconds per fit by default (which
// solves in the smaller space, the rows' when there are fewer configs than
// features), pinned to the features' space (Cholesky), and the reference;
// the ratio reference / default; and the largest difference of the three's
// predictions over every config of the file (the same weights, or the line
// says so).
#include <Eigen/Dense>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "baselines/ridge.h"
#include "int_list.h"
#include "fastslow/error.h"
#include "fastslow/graph/graph.h"
#include "fastslow/io/npz_reader.h"

using namespace fastslow;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The reference: one indicator per distinct value of a non-constant column,
// the centred target, (X^T X + lambda I) w = X^T y by LDLT.
struct Reference {
  int64_t width = 0;
  std::vector<std::vector<float>> values;
  std::vector<int64_t> offset;
  Eigen::VectorXd w;
  double mean = 0;

  int64_t index(int64_t c, float x) const {
    const auto& v = values[static_cast<size_t>(c)];
    const auto it = std::lower_bound(v.begin(), v.end(), x);
    return it == v.end() || *it != x ? -1 : offset[static_cast<size_t>(c)] + (it - v.begin());
  }
  std::vector<double> predict(const std::vector<float>& all) const {
    const size_t count = all.size() / static_cast<size_t>(width);
    std::vector<double> out(count, mean);
    for (size_t r = 0; r < count; ++r)
      for (int64_t c = 0; c < width; ++c)
        if (const int64_t k = index(c, all[r * static_cast<size_t>(width) + static_cast<size_t>(c)]); k >= 0)
          out[r] += w(k);
    return out;
  }
};

Reference reference_fit(const std::vector<float>& rows, int64_t width, const std::vector<double>& y, double lambda) {
  const auto n = static_cast<int64_t>(y.size());
  Reference ref;
  ref.width = width;
  auto& values = ref.values;
  auto& offset = ref.offset;
  values.resize(static_cast<size_t>(width));
  offset.resize(static_cast<size_t>(width));
  int64_t p = 0;
  for (int64_t c = 0; c < width; ++c) {
    auto& v = values[static_cast<size_t>(c)];
    for (int64_t r = 0; r < n; ++r) v.push_back(rows[static_cast<size_t>(r * width + c)]);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    if (v.size() < 2) v.clear();
    offset[static_cast<size_t>(c)] = p;
    p += static_cast<int64_t>(v.size());
  }
  double mean = 0;
  for (double t : y) mean += t;
  mean /= static_cast<double>(n);
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(n, p);
  Eigen::VectorXd yc(n);
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < width; ++c)
      if (const int64_t k = ref.index(c, rows[static_cast<size_t>(r * width + c)]); k >= 0) x(r, k) = 1;
    yc(r) = y[static_cast<size_t>(r)] - mean;
  }
  Eigen::MatrixXd a = x.transpose() * x;
  a.diagonal().array() += lambda;
  ref.w = a.ldlt().solve(x.transpose() * yc);
  ref.mean = mean;
  return ref;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

}  // namespace

int main(int argc, char** argv) try {
  std::vector<std::string> files;
  std::vector<int64_t> counts = {64, 256, 1024};
  double lambda = 1.0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--counts" && i + 1 < argc) counts = bench::parse_int_list(argv[++i]);
    else if (a == "--lambda" && i + 1 < argc) lambda = std::stod(argv[++i]);
    else files.push_back(a);
  }
  if (files.empty()) throw Error("usage: fastslow_bench_ridge FILE.npz... [--counts 64,256,1024] [--lambda 1]");
  std::printf("one-hot ridge fit, lambda %g: default (the smaller space) against the normal equations by LDLT "
              "(the solver before); seconds per fit\n",
              lambda);
  std::printf("%-44s %6s %8s %6s %10s %10s %10s %8s %10s\n", "file", "count", "features", "space", "default",
              "features", "reference", "ratio", "max diff");
  for (const std::string& f : files) {
    const LayoutGraph g = load_layout_graph(NpzReader::open(f));
    const int64_t width = g.num_configurable() * g.config_feat_width;
    std::vector<int64_t> measured;
    for (int64_t c = 0; c < g.num_configs; ++c)
      if (g.config_runtime[static_cast<size_t>(c)] > 0) measured.push_back(c);
    std::mt19937_64 rng(7);
    for (size_t i = measured.size(); i > 1; --i) std::swap(measured[i - 1], measured[rng() % i]);
    const std::vector<float> all(g.node_config_feat.begin(), g.node_config_feat.end());
    const std::string name = f.substr(f.find_last_of('/') + 1);
    for (int64_t n : counts) {
      if (n > static_cast<int64_t>(measured.size())) continue;
      std::vector<float> rows;
      std::vector<double> y;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t c = measured[static_cast<size_t>(k)];
        rows.insert(rows.end(), all.begin() + c * width, all.begin() + (c + 1) * width);
        y.push_back(std::log(static_cast<double>(g.config_runtime[static_cast<size_t>(c)])));
      }
      baselines::OneHotRidge fast, features;
      double t0 = now();
      fast.fit(rows, width, y, lambda);
      const double t_fast = now() - t0;
      features.set_space(baselines::OneHotRidge::Space::Features);
      t0 = now();
      features.fit(rows, width, y, lambda);
      const double t_features = now() - t0;
      t0 = now();
      const Reference reference = reference_fit(rows, width, y, lambda);
      const double t_ref = now() - t0;
      const std::vector<double> ref = reference.predict(all);
      const double diff = std::max(max_diff(fast.predict(all), ref), max_diff(features.predict(all), ref));
      std::printf("%-44s %6lld %8lld %6s %10.4f %10.4f %10.4f %7.1fx %10.2e\n", name.substr(0, 44).c_str(),
                  static_cast<long long>(n), static_cast<long long>(fast.num_features()),
                  fast.solved_in() == baselines::OneHotRidge::Space::Rows ? "rows" : "feat", t_fast, t_features, t_ref,
                  t_ref / t_fast, diff);
      std::fflush(stdout);
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "fastslow_bench_ridge: %s\n", e.what());
  return 1;
}
