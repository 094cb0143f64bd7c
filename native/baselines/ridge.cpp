#include "baselines/ridge.h"

#include <Eigen/Dense>
#include <Eigen/Sparse>

#include <algorithm>
#include <cmath>
#include <string>

#include "fastslow/error.h"

namespace fastslow::baselines {

namespace {

// Index of `v` among the sorted distinct values, or -1 (unseen, NaN).
int64_t find_value(const std::vector<float>& values, float v) {
  const auto it = std::lower_bound(values.begin(), values.end(), v);
  if (it == values.end() || *it != v) return -1;
  return it - values.begin();
}

// (X^T X + lambda I) w = X^T y by conjugate gradients, touching X only
// through products with vectors. The system is symmetric positive definite
// for lambda > 0; its condition number is at most 1 + rows * width / lambda.
Eigen::VectorXd solve_cg(const Eigen::SparseMatrix<double, Eigen::RowMajor>& x, const Eigen::VectorXd& b,
                         double lambda) {
  Eigen::VectorXd w = Eigen::VectorXd::Zero(b.size());
  Eigen::VectorXd r = b, p = r;
  double rr = r.squaredNorm();
  const double stop = 1e-20 * std::max(1.0, b.squaredNorm());
  for (int64_t it = 0; it < 10 * b.size() && rr > stop; ++it) {
    const Eigen::VectorXd ap = x.transpose() * (x * p) + lambda * p;
    const double alpha = rr / p.dot(ap);
    w += alpha * p;
    r -= alpha * ap;
    const double next = r.squaredNorm();
    p = r + (next / rr) * p;
    rr = next;
  }
  return w;
}

// (a + lambda I)^-1 b for a symmetric positive semi-definite `a` and lambda
// > 0: Cholesky, which Eigen runs blocked (LDLT is unblocked: 10x slower at
// 4,000), with LDLT's pivoting only if rounding makes it fail.
Eigen::VectorXd solve_spd(Eigen::MatrixXd a, const Eigen::VectorXd& b, double lambda) {
  a.diagonal().array() += lambda;
  Eigen::LLT<Eigen::MatrixXd> llt(a);
  if (llt.info() == Eigen::Success) return llt.solve(b);
  return a.ldlt().solve(b);
}

// m m^T, dense: the products of blocks of m's columns made dense, so that
// memory stays a block of m beside the result, and Eigen's blocked products
// do the work (the sparse product was slower even at 20 indicators a row of
// 338). X X^T for the rows' space, (X^T)(X^T)^T for the features'.
Eigen::MatrixXd gram(const Eigen::SparseMatrix<double, Eigen::ColMajor>& m) {
  constexpr Eigen::Index kBlock = 512;
  Eigen::MatrixXd k = Eigen::MatrixXd::Zero(m.rows(), m.rows());
  for (Eigen::Index b = 0; b < m.cols(); b += kBlock) {
    const Eigen::MatrixXd block = m.middleCols(b, std::min(kBlock, m.cols() - b));
    k.selfadjointView<Eigen::Lower>().rankUpdate(block);
  }
  return k.selfadjointView<Eigen::Lower>();
}

// Each column's distinct values, sorted; empty for a constant column (its
// indicator equals the bias: it only adds collinearity).
std::vector<std::vector<float>> column_values(const std::vector<float>& rows, int64_t width) {
  const int64_t count = width > 0 ? static_cast<int64_t>(rows.size()) / width : 0;
  std::vector<std::vector<float>> values(static_cast<size_t>(std::max<int64_t>(0, width)));
  for (int64_t c = 0; c < width; ++c) {
    auto& v = values[static_cast<size_t>(c)];
    v.reserve(static_cast<size_t>(count));
    for (int64_t r = 0; r < count; ++r) v.push_back(rows[static_cast<size_t>(r * width + c)]);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    if (v.size() < 2) v.clear();
    v.shrink_to_fit();
  }
  return values;
}

}  // namespace

int64_t OneHotRidge::count_features(const std::vector<float>& rows, int64_t width) {
  int64_t features = 0;
  for (const auto& v : column_values(rows, width)) features += static_cast<int64_t>(v.size());
  return features;
}

void OneHotRidge::fit(const std::vector<float>& rows, int64_t width, const std::vector<double>& target,
                      double lambda) {
  const auto count = static_cast<int64_t>(target.size());
  if (count == 0) throw Error("ridge: no training rows");
  if (width <= 0) throw Error("ridge: row width must be positive, got " + std::to_string(width));
  if (static_cast<int64_t>(rows.size()) != count * width)
    throw Error("ridge: " + std::to_string(rows.size()) + " feature values for " + std::to_string(count) +
                " targets of width " + std::to_string(width) + " (expected " + std::to_string(count * width) + ")");
  if (!(lambda >= 0.0) || !std::isfinite(lambda))
    throw Error("ridge: lambda must be finite and >= 0, got " + std::to_string(lambda));
  for (int64_t r = 0; r < count; ++r) {
    if (!std::isfinite(target[static_cast<size_t>(r)]))
      throw Error("ridge: target of row " + std::to_string(r) + " is not finite");
    for (int64_t c = 0; c < width; ++c)
      if (!std::isfinite(rows[static_cast<size_t>(r * width + c)]))
        throw Error("ridge: feature (row " + std::to_string(r) + ", column " + std::to_string(c) +
                    ") is not finite");
  }

  std::vector<std::vector<float>> values = column_values(rows, width);
  std::vector<int64_t> offset(static_cast<size_t>(width));
  int64_t features = 0;
  for (int64_t c = 0; c < width; ++c) {
    offset[static_cast<size_t>(c)] = features;
    features += static_cast<int64_t>(values[static_cast<size_t>(c)].size());
  }

  double mean = 0.0;
  for (double t : target) mean += t;
  mean /= static_cast<double>(count);

  // Each row's active indicators. Offsets grow with the column, so each
  // row's list is ascending.
  std::vector<Eigen::Triplet<double>> hits;
  hits.reserve(static_cast<size_t>(count * width));
  Eigen::VectorXd y(count);
  for (int64_t r = 0; r < count; ++r) {
    for (int64_t c = 0; c < width; ++c) {
      const auto& v = values[static_cast<size_t>(c)];
      if (v.empty()) continue;
      hits.emplace_back(r, offset[static_cast<size_t>(c)] + find_value(v, rows[static_cast<size_t>(r * width + c)]),
                        1.0);
    }
    y(r) = target[static_cast<size_t>(r)] - mean;
  }
  Eigen::SparseMatrix<double, Eigen::RowMajor> x(count, features);
  x.setFromTriplets(hits.begin(), hits.end());
  std::vector<Eigen::Triplet<double>>().swap(hits);  // the Gram matrices' blocks need the room
  const Eigen::VectorXd xty = x.transpose() * y;

  Eigen::VectorXd w;
  const bool direct = lambda == 0.0 || space_ != Space::Auto || solves_directly(count, features, dense_limit_);
  const bool rows_space = features > 0 && lambda > 0.0 && space_ != Space::Features &&
                          (space_ == Space::Rows || (direct && count < features));
  solved_in_ = rows_space ? Space::Rows : Space::Features;
  if (features == 0) {
    w = Eigen::VectorXd();
  } else if (rows_space) {
    w = x.transpose() * solve_spd(gram(x), y, lambda);
  } else if (!direct) {
    w = solve_cg(x, xty, lambda);
  } else {
    // X^T X is features x features; the dense design matrix would be rows x
    // features (GBs on a large layout graph).
    Eigen::MatrixXd xtx = gram(x.transpose());
    if (lambda > 0.0) {
      w = solve_spd(std::move(xtx), xty, lambda);
    } else {
      // Without a penalty the indicators of every column sum to one, so X^T X is
      // singular: take the minimum-norm least-squares solution instead.
      w = xtx.completeOrthogonalDecomposition().solve(xty);
    }
  }
  if (!w.allFinite()) throw Error("ridge: the solve produced non-finite weights");

  width_ = width;
  values_ = std::move(values);
  offset_ = std::move(offset);
  weights_.assign(w.data(), w.data() + w.size());
  bias_ = mean;
}

std::vector<double> OneHotRidge::predict(const std::vector<float>& rows) const {
  if (width_ == 0) throw Error("ridge: predict called before fit");
  if (rows.size() % static_cast<size_t>(width_) != 0)
    throw Error("ridge: " + std::to_string(rows.size()) + " feature values are not a whole number of rows of width " +
                std::to_string(width_));
  const size_t count = rows.size() / static_cast<size_t>(width_);
  std::vector<double> out(count, bias_);
  for (size_t r = 0; r < count; ++r)
    for (int64_t c = 0; c < width_; ++c) {
      const auto& v = values_[static_cast<size_t>(c)];
      if (v.empty()) continue;
      const int64_t k = find_value(v, rows[r * static_cast<size_t>(width_) + static_cast<size_t>(c)]);
      if (k >= 0) out[r] += weights_[static_cast<size_t>(offset_[static_cast<size_t>(c)] + k)];
    }
  return out;
}

int64_t OneHotRidge::num_features() const { return static_cast<int64_t>(weights_.size()); }

double OneHotRidge::weight(int64_t column, float value) const {
  if (column < 0 || column >= width_) return 0.0;
  const auto& v = values_[static_cast<size_t>(column)];
  const int64_t k = v.empty() ? -1 : find_value(v, value);
  return k < 0 ? 0.0 : weights_[static_cast<size_t>(offset_[static_cast<size_t>(column)] + k)];
}

}  // namespace fastslow::baselines
