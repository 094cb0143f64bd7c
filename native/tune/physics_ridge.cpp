#include "tune/physics_ridge.h"

#include <torch/torch.h>
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

#include "fastslow/error.h"
#include "fastslow/features/layout_context.h"
#include "models/layout_tiling.h"

namespace fastslow::tune {
namespace {

using C = LayoutContext;

// Positions of the tiling features used here, within one tensor's block
// (models/layout_tiling.h lists all kTilingPerLayout).
constexpr int kComparable = 4, kSameMinor = 5, kSameOrder = 7, kBytes = 8, kPadded = 9, kCopy = 11, kMissMinor = 12,
              kBatchMinor = 14;

}  // namespace

PhysicsRidge::PhysicsRidge(const CachedGraph& g) {
  if (g.kind != GraphKind::Layout)
    throw Error(g.source, "", "--predictor physics prices layouts: a tile graph's predictors are fastslow, ridge and run");
  source_ = g.source;
  nc_ = static_cast<int64_t>(g.pruned.config_positions.size());
  width_ = g.config_feat_width;
  row_ = nc_ * width_;
  const LayoutContext ctx = layout_context(g.pruned.num_nodes(), g.node_feat_width, g.node_feat, g.node_opcode,
                                           g.pruned.edge_index, g.pruned.config_positions);
  known_ = ctx.known && width_ == 3 * C::kSlots && nc_ > 0;
  if (known_) context_ = ctx.values;
}

std::vector<double> PhysicsRidge::terms(const std::vector<float>& rows) const {
  const int64_t count = row_ > 0 ? static_cast<int64_t>(rows.size()) / row_ : 0;
  std::vector<double> out(static_cast<size_t>(count * kTerms), 0.0);
  if (!known_ || count == 0) return out;
  torch::NoGradGuard no_grad;
  const torch::Tensor context = torch::from_blob(const_cast<float*>(context_.data()), {nc_, C::kWidth}, torch::kFloat32);
  const torch::Tensor used = torch::tensor({kComparable, kSameMinor, kSameOrder, kBytes, kPadded, kCopy, kMissMinor, kBatchMinor});
  // In chunks: the tiling features are configs x nodes x 48 (a graph of 848
  // configurable nodes: 160 KB a config before their intermediates).
  constexpr int64_t kChunk = 128;
  for (int64_t from = 0; from < count; from += kChunk) {
    const int64_t b = std::min(kChunk, count - from);
    const torch::Tensor config =
        torch::from_blob(const_cast<float*>(rows.data() + from * row_), {b, nc_, width_}, torch::kFloat32);
    const torch::Tensor t = models::layout_tiling_features(config, context)
                                .view({b, nc_, 3, models::kTilingPerLayout})
                                .index_select(3, used)
                                .to(torch::kFloat64);
    const auto f = [&](int k) { return t.select(3, k); };  // k: position in `used`
    // The byte features are log2(1 + bytes) / 16.
    const auto bytes = torch::exp2(16 * f(3)) - 1, padded = torch::exp2(16 * f(4)) - 1, copy = torch::exp2(16 * f(5)) - 1;
    const auto comparable = f(0);
    const auto total = bytes.sum({1, 2}).clamp_min(1.0);
    const torch::Tensor all = torch::stack({(comparable * padded).sum({1, 2}) / total,
                                            (comparable * (1 - f(2)) * copy).sum({1, 2}) / total,
                                            (comparable * (1 - f(1)) * copy).sum({1, 2}) / total,
                                            (f(6) * padded).sum({1, 2}) / total, (f(7) * padded).sum({1, 2}) / total},
                                           1)
                                  .contiguous();
    std::copy(all.data_ptr<double>(), all.data_ptr<double>() + all.numel(), out.begin() + from * kTerms);
  }
  return out;
}

// count x (features_ + kTerms), row-major, standardised by the fit's
// means and scales (raw before the fit has set them).
std::vector<double> PhysicsRidge::design(const std::vector<float>& rows, int64_t* count) const {
  *count = static_cast<int64_t>(rows.size()) / row_;
  const int64_t w = features_ + kTerms;
  std::vector<double> x(static_cast<size_t>(*count * w), 0.0);
  const std::vector<double> g = terms(rows);
  for (int64_t i = 0; i < *count; ++i) {
    double* xi = x.data() + i * w;
    for (const auto& [column, values] : index_) {
      const auto it = values.find(rows[static_cast<size_t>(i * row_ + column)]);
      if (it != values.end()) xi[it->second] = 1.0;
    }
    for (int k = 0; k < kTerms; ++k) xi[features_ + k] = g[static_cast<size_t>(i * kTerms + k)];
  }
  if (!mean_.empty()) standardise(x);
  return x;
}

void PhysicsRidge::standardise(std::vector<double>& x) const {
  const auto w = static_cast<size_t>(features_ + kTerms);
  for (size_t i = 0; i < x.size(); ++i) x[i] = (x[i] - mean_[i % w]) * scale_[i % w];
}

void PhysicsRidge::fit(const std::vector<float>& rows, const std::vector<double>& target, double lambda) {
  if (row_ == 0 || rows.size() % static_cast<size_t>(row_) != 0 || rows.size() / static_cast<size_t>(row_) != target.size() ||
      target.empty())
    throw Error(source_, "", "physics ridge: " + std::to_string(rows.size()) + " values are not " + std::to_string(target.size()) +
                " configs of " + std::to_string(row_));
  if (!(lambda > 0)) throw Error(source_, "", "physics ridge: the penalty must be positive");
  const auto n = static_cast<int64_t>(target.size());
  weights_.clear();  // a fit that fails leaves nothing to predict with
  index_.clear();
  mean_.clear();
  scale_.clear();
  features_ = 0;
  for (int64_t c = 0; c < row_; ++c) {
    std::map<float, int64_t> values;
    for (int64_t i = 0; i < n; ++i) {
      const float v = rows[static_cast<size_t>(i * row_ + c)];
      if (!std::isnan(v)) values.emplace(v, 0);
    }
    if (values.size() < 2) continue;  // a constant column says nothing
    for (auto& [v, k] : values) k = features_++;
    index_[c] = std::move(values);
  }
  const int64_t w = features_ + kTerms;
  if (std::min(n, w) > kDenseLimit || n * w > kDesignLimit)
    throw Error(source_, "", "physics ridge: " + std::to_string(n) + " configs x " + std::to_string(w) +
                " features is too large to solve densely (both above " + std::to_string(kDenseLimit) +
                ", or more than " + std::to_string(kDesignLimit) + " values); --predictor ridge solves it");
  int64_t count = 0;
  std::vector<double> raw = design(rows, &count);
  // Every column centred (the bias is then the target's mean and no
  // indicator stands in for it; OneHotRidge leaves them 0/1, which on the
  // benchmark's graphs let the indicators absorb what the terms explain:
  // 10 of 12 graphs instead of 11); the terms also scaled to unit sd.
  mean_.assign(static_cast<size_t>(w), 0.0);
  scale_.assign(static_cast<size_t>(w), 1.0);
  for (int64_t j = 0; j < w; ++j) {
    double s = 0, sq = 0;
    for (int64_t i = 0; i < n; ++i) s += raw[static_cast<size_t>(i * w + j)];
    const double m = s / static_cast<double>(n);
    for (int64_t i = 0; i < n; ++i) sq += std::pow(raw[static_cast<size_t>(i * w + j)] - m, 2);
    mean_[static_cast<size_t>(j)] = m;
    if (j >= features_) {
      const double sd = std::sqrt(sq / static_cast<double>(n));
      scale_[static_cast<size_t>(j)] = sd > 1e-12 ? 1.0 / sd : 0.0;  // a constant term is left out
    }
  }
  // Standardised in place: the design is dense, configs x features.
  std::vector<double>& x = raw;
  standardise(x);
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> X(x.data(), n, w);
  Eigen::VectorXd y = Eigen::Map<const Eigen::VectorXd>(target.data(), n);
  bias_ = y.mean();
  y.array() -= bias_;
  Eigen::VectorXd penalty = Eigen::VectorXd::Constant(w, lambda);
  penalty.tail(kTerms).setConstant(lambda * 1e-3);
  Eigen::VectorXd wts;
  if (n < w) {  // the rows' space: w = P^-1 X^T (X P^-1 X^T + I)^-1 y
    const Eigen::MatrixXd xp = X * penalty.cwiseInverse().asDiagonal();
    Eigen::MatrixXd k = xp * X.transpose();
    k.diagonal().array() += 1.0;
    const Eigen::LLT<Eigen::MatrixXd> llt(k);
    if (llt.info() != Eigen::Success) throw Error(source_, "", "physics ridge: the rows' system does not factor");
    wts = xp.transpose() * llt.solve(y);
  } else {  // the features' space: (X^T X + P) w = X^T y
    Eigen::MatrixXd a = X.transpose() * X;
    a.diagonal() += penalty;
    const Eigen::LLT<Eigen::MatrixXd> llt(a);
    if (llt.info() != Eigen::Success) throw Error(source_, "", "physics ridge: the normal equations do not factor");
    wts = llt.solve(X.transpose() * y);
  }
  weights_.assign(wts.data(), wts.data() + wts.size());
}

std::vector<double> PhysicsRidge::predict(const std::vector<float>& rows) const {
  if (weights_.empty()) throw Error(source_, "", "physics ridge: predict() before fit()");
  if (rows.size() % static_cast<size_t>(row_) != 0)
    throw Error(source_, "", "physics ridge: " + std::to_string(rows.size()) + " values are not whole configs of " + std::to_string(row_));
  const int64_t total = static_cast<int64_t>(rows.size()) / row_, w = static_cast<int64_t>(weights_.size());
  std::vector<double> out(static_cast<size_t>(total), bias_);
  // In chunks: the design is dense, configs x features.
  constexpr int64_t kChunk = 1024;
  for (int64_t from = 0; from < total; from += kChunk) {
    const int64_t upto = std::min(total, from + kChunk);
    const std::vector<float> part(rows.begin() + from * row_, rows.begin() + upto * row_);
    int64_t count = 0;
    const std::vector<double> x = design(part, &count);
    for (int64_t i = 0; i < count; ++i)
      for (int64_t j = 0; j < w; ++j)
        out[static_cast<size_t>(from + i)] += x[static_cast<size_t>(i * w + j)] * weights_[static_cast<size_t>(j)];
  }
  return out;
}

std::array<double, PhysicsRidge::kTerms> PhysicsRidge::term_effects() const {
  std::array<double, kTerms> e{};
  for (int k = 0; k < kTerms && !weights_.empty(); ++k) e[static_cast<size_t>(k)] = weights_[static_cast<size_t>(features_ + k)];
  return e;
}

}  // namespace fastslow::tune
