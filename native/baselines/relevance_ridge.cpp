#include "baselines/relevance_ridge.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "baselines/ridge_cv.h"
#include "fastslow/error.h"
#include "fastslow/rank/metrics.h"

namespace fastslow::baselines {

namespace {

int64_t find_value(const std::vector<float>& values, float v) {
  const auto it = std::lower_bound(values.begin(), values.end(), v);
  if (it == values.end() || *it != v) return -1;
  return it - values.begin();
}

// Step sizes of Adam on the log variances (the log evidence is smooth in
// them; 300 steps of 0.05 move a variance by up to e^15).
constexpr double kRate = 0.05, kBeta1 = 0.9, kBeta2 = 0.999;
constexpr double kLogMin = -12.0, kLogMax = 6.0;
constexpr double kLogTwoPi = 1.8378770664093453;  // log(2 pi)

// The target standardised (a constant one keeps scale 1): variances are
// then shares of 1.
struct Standardised {
  Eigen::VectorXd y;
  double mean = 0, scale = 1;
};
Standardised standardise(const std::vector<double>& target) {
  const auto n = static_cast<int64_t>(target.size());
  Standardised s;
  for (double t : target) s.mean += t;
  s.mean /= static_cast<double>(n);
  double sq = 0;
  for (double t : target) sq += (t - s.mean) * (t - s.mean);
  const double sd = std::sqrt(sq / static_cast<double>(n));
  s.scale = sd > 1e-12 ? sd : 1.0;
  s.y.resize(n);
  for (int64_t i = 0; i < n; ++i) s.y(i) = (target[static_cast<size_t>(i)] - s.mean) / s.scale;
  return s;
}

// log N(y; 0, C) from C's Cholesky factor and a = C^-1 y.
double gaussian_log_evidence(const Eigen::LLT<Eigen::MatrixXd>& llt, const Eigen::VectorXd& y, const Eigen::VectorXd& a) {
  return -0.5 * y.dot(a) - Eigen::MatrixXd(llt.matrixL()).diagonal().array().log().sum() -
         0.5 * static_cast<double>(y.size()) * kLogTwoPi;
}

}  // namespace

void RelevanceRidge::fit(const std::vector<float>& rows, int64_t width, const std::vector<int64_t>& group_of,
                         const std::vector<double>& target) {
  const auto n = static_cast<int64_t>(target.size());
  if (n < 2) throw Error("relevance ridge: needs at least 2 rows, got " + std::to_string(n));
  if (width <= 0 || static_cast<int64_t>(rows.size()) != n * width)
    throw Error("relevance ridge: " + std::to_string(rows.size()) + " values for " + std::to_string(n) +
                " rows of width " + std::to_string(width));
  if (static_cast<int64_t>(group_of.size()) != width)
    throw Error("relevance ridge: " + std::to_string(group_of.size()) + " column groups for width " +
                std::to_string(width));
  int64_t groups = 0;
  for (int64_t g : group_of) {
    if (g < 0) throw Error("relevance ridge: negative column group " + std::to_string(g));
    groups = std::max(groups, g + 1);
  }
  for (double t : target)
    if (!std::isfinite(t)) throw Error("relevance ridge: a target is not finite");
  width_ = width;

  const Standardised st = standardise(target);
  const Eigen::VectorXd& y = st.y;
  const double scale = st.scale;

  // Each column's distinct values (constant columns: none, as in
  // OneHotRidge), each row's value index, and each group's kernel: how
  // many of the group's columns two rows agree on.
  values_.assign(static_cast<size_t>(width), {});
  columns_.assign(static_cast<size_t>(groups), 0);
  std::vector<int32_t> index(static_cast<size_t>(n * width), -1);
  // Counts, as 16-bit integers: a graph of 848 configurable nodes at 160
  // configs holds 43 MB of them.
  using Counts = Eigen::Matrix<uint16_t, Eigen::Dynamic, Eigen::Dynamic>;
  std::vector<Counts> kernel(static_cast<size_t>(groups));  // empty: no column of the group varies
  for (int64_t c = 0; c < width; ++c) {
    auto& v = values_[static_cast<size_t>(c)];
    for (int64_t r = 0; r < n; ++r) {
      const float x = rows[static_cast<size_t>(r * width + c)];
      if (x == x) v.push_back(x);  // NaN: no value (and no order for sort)
    }
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    if (v.size() < 2) {
      v.clear();
      continue;
    }
    const auto g = static_cast<size_t>(group_of[static_cast<size_t>(c)]);
    if (++columns_[g] > std::numeric_limits<uint16_t>::max())
      throw Error("relevance ridge: group " + std::to_string(g) + " has more than 65535 varying columns");
    Counts& k = kernel[g];
    if (k.size() == 0) k = Counts::Zero(n, n);
    for (int64_t r = 0; r < n; ++r)
      index[static_cast<size_t>(r * width + c)] = static_cast<int32_t>(find_value(v, rows[static_cast<size_t>(r * width + c)]));
    for (int64_t i = 0; i < n; ++i) {
      const int32_t a = index[static_cast<size_t>(i * width + c)];
      if (a < 0) continue;
      for (int64_t l = 0; l < n; ++l)
        if (index[static_cast<size_t>(l * width + c)] == a) ++k(i, l);
    }
  }

  // theta: log prior variance per group, then log noise variance.
  std::vector<double> theta(static_cast<size_t>(groups + 1), std::log(1.0 / static_cast<double>(std::max<int64_t>(1, groups))));
  theta.back() = std::log(0.1);
  std::vector<double> m1(theta.size(), 0.0), m2(theta.size(), 0.0), grad(theta.size(), 0.0);
  Eigen::MatrixXd cov(n, n);
  const auto covariance = [&] {
    cov.setIdentity();
    cov *= std::exp(theta.back());
    for (int64_t g = 0; g < groups; ++g)
      if (kernel[static_cast<size_t>(g)].size() != 0)
        cov += std::exp(theta[static_cast<size_t>(g)]) * kernel[static_cast<size_t>(g)].cast<double>();
  };
  const Eigen::MatrixXd eye = Eigen::MatrixXd::Identity(n, n);
  // A step whose covariance does not factor (round-off, with variances far
  // above the noise) ends the search at the last one that did: the start
  // always does (the noise alone is 0.1 of the target's variance).
  std::vector<double> good = theta;
  for (int step = 1; step <= kSteps; ++step) {
    covariance();
    const Eigen::LLT<Eigen::MatrixXd> llt(cov);
    if (llt.info() != Eigen::Success) {
      theta = good;
      break;
    }
    good = theta;
    const Eigen::MatrixXd inv = llt.solve(eye);
    const Eigen::VectorXd a = inv * y;
    // d log evidence / d log variance = 1/2 tr((a a^T - C^-1) dC/dlog v).
    const Eigen::MatrixXd m = a * a.transpose() - inv;
    for (int64_t g = 0; g < groups; ++g)
      grad[static_cast<size_t>(g)] =
          kernel[static_cast<size_t>(g)].size() == 0
              ? 0.0
              : 0.5 * std::exp(theta[static_cast<size_t>(g)]) *
                    (m.array() * kernel[static_cast<size_t>(g)].cast<double>().array()).sum();
    grad.back() = 0.5 * std::exp(theta.back()) * m.trace();
    const double c1 = 1.0 - std::pow(kBeta1, step), c2 = 1.0 - std::pow(kBeta2, step);
    for (size_t j = 0; j < theta.size(); ++j) {
      m1[j] = kBeta1 * m1[j] + (1 - kBeta1) * grad[j];
      m2[j] = kBeta2 * m2[j] + (1 - kBeta2) * grad[j] * grad[j];
      theta[j] += kRate * (m1[j] / c1) / (std::sqrt(m2[j] / c2) + 1e-8);  // ascent
      theta[j] = std::clamp(theta[j], kLogMin, kLogMax);
    }
  }
  covariance();
  const Eigen::LLT<Eigen::MatrixXd> final_llt(cov);
  const Eigen::VectorXd a = final_llt.solve(y);
  if (final_llt.info() != Eigen::Success || !a.allFinite())
    throw Error("relevance ridge: the covariance of the fitted variances does not factor");
  log_evidence_ = gaussian_log_evidence(final_llt, y, a);
  log_noise_ = theta.back();

  // The posterior mean as weights: value v of column c adds its group's
  // variance times the sum of a over the rows holding v there.
  variance_.assign(static_cast<size_t>(groups), 0.0);
  log_variance_.assign(theta.begin(), theta.end() - 1);
  for (int64_t g = 0; g < groups; ++g)
    if (kernel[static_cast<size_t>(g)].size() != 0) variance_[static_cast<size_t>(g)] = std::exp(theta[static_cast<size_t>(g)]);
  weights_.assign(static_cast<size_t>(width), {});
  for (int64_t c = 0; c < width; ++c) {
    const auto& v = values_[static_cast<size_t>(c)];
    auto& w = weights_[static_cast<size_t>(c)];
    w.assign(v.size(), 0.0);
    const double s = variance_[static_cast<size_t>(group_of[static_cast<size_t>(c)])] * scale;
    for (int64_t r = 0; r < n && !v.empty(); ++r) {
      const int32_t at = index[static_cast<size_t>(r * width + c)];
      if (at >= 0) w[static_cast<size_t>(at)] += s * a(r);
    }
  }
  bias_ = st.mean;
}

std::vector<double> RelevanceRidge::predict(const std::vector<float>& rows) const {
  if (width_ <= 0) throw Error("relevance ridge: predict before fit");
  if (rows.size() % static_cast<size_t>(width_) != 0)
    throw Error("relevance ridge: " + std::to_string(rows.size()) + " values is not a whole number of rows of width " +
                std::to_string(width_));
  const auto count = static_cast<int64_t>(rows.size()) / width_;
  std::vector<double> out(static_cast<size_t>(count), bias_);
  for (int64_t r = 0; r < count; ++r)
    for (int64_t c = 0; c < width_; ++c) out[static_cast<size_t>(r)] += weight(c, rows[static_cast<size_t>(r * width_ + c)]);
  return out;
}

double RelevanceRidge::weight(int64_t column, float value) const {
  if (column < 0 || column >= width_) return 0.0;
  const int64_t at = find_value(values_[static_cast<size_t>(column)], value);
  return at < 0 ? 0.0 : weights_[static_cast<size_t>(column)][static_cast<size_t>(at)];
}

std::vector<double> RelevanceRidge::relevance() const {
  // A group's prior variance of its part of a config's score: its variance
  // times how many of its columns vary (the kernel's diagonal).
  std::vector<double> share(variance_.size(), 0.0);
  double total = 0;
  for (size_t g = 0; g < variance_.size(); ++g) total += share[g] = variance_[g] * static_cast<double>(columns_[g]);
  for (double& s : share) s = total > 0 ? s / total : 0.0;
  return share;
}

double relevance_log_evidence(const std::vector<float>& rows, int64_t width, const std::vector<int64_t>& group_of,
                              const std::vector<double>& target, const std::vector<double>& log_variance,
                              double log_noise) {
  const auto n = static_cast<int64_t>(target.size());
  if (n < 2 || static_cast<int64_t>(rows.size()) != n * width || static_cast<int64_t>(group_of.size()) != width)
    throw Error("relevance ridge: evidence of rows of another size");
  const Eigen::VectorXd y = standardise(target).y;
  // Written plainly (no counts, no value indices): the reference fit is checked against.
  Eigen::MatrixXd cov = std::exp(log_noise) * Eigen::MatrixXd::Identity(n, n);
  for (int64_t c = 0; c < width; ++c) {
    const auto g = static_cast<size_t>(group_of[static_cast<size_t>(c)]);
    if (g >= log_variance.size()) throw Error("relevance ridge: no variance for group " + std::to_string(g));
    bool varies = false;
    for (int64_t r = 1; r < n && !varies; ++r)
      varies = rows[static_cast<size_t>(r * width + c)] != rows[static_cast<size_t>(c)];
    if (!varies) continue;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t l = 0; l < n; ++l) {
        const float a = rows[static_cast<size_t>(i * width + c)], b = rows[static_cast<size_t>(l * width + c)];
        if (a == b) cov(i, l) += std::exp(log_variance[g]);
      }
  }
  const Eigen::LLT<Eigen::MatrixXd> llt(cov);
  if (llt.info() != Eigen::Success) throw Error("relevance ridge: the covariance does not factor");
  return gaussian_log_evidence(llt, y, llt.solve(y));
}

int64_t RelevanceRidge::num_features() const {
  int64_t f = 0;
  for (const auto& v : values_) f += static_cast<int64_t>(v.size());
  return f;
}

double relevance_cv_kendall(const std::vector<float>& rows, int64_t width, const std::vector<int64_t>& group_of,
                            const std::vector<double>& target, int folds, uint64_t seed) {
  const auto n = static_cast<int64_t>(target.size());
  if (folds < 2) throw Error("relevance ridge: need at least 2 folds");
  if (n < 2 * folds) return std::numeric_limits<double>::quiet_NaN();
  const std::vector<int> fold_of = cv_folds(n, folds, seed);
  std::vector<double> pred(static_cast<size_t>(n), 0.0);
  for (int f = 0; f < folds; ++f) {
    const FoldSplit s = split_fold(rows, width, target, fold_of, f);
    RelevanceRidge model;
    model.fit(s.fit_rows, width, group_of, s.fit_y);
    const std::vector<double> p = model.predict(s.held_rows);
    for (size_t i = 0; i < s.held.size(); ++i) pred[static_cast<size_t>(s.held[i])] = p[i];
  }
  const double k = kendall_tau(pred, target);
  return std::isfinite(k) ? k : 0.0;
}

}  // namespace fastslow::baselines
