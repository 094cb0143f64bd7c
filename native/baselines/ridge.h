// The per-program baseline the learned models must beat: ridge regression of
// log runtime on one-hot encoded config features (each column's distinct
// training values become indicator features). No torch: Eigen only.
#pragma once

#include <cstdint>
#include <vector>

namespace fastslow::baselines {

class OneHotRidge {
 public:
  // rows: count x width row-major; target: one value per row (e.g. log runtime).
  // Throws fastslow::Error on size mismatch, count == 0 or lambda < 0.
  void fit(const std::vector<float>& rows, int64_t width, const std::vector<double>& target, double lambda = 1.0);
  // Values unseen in training contribute nothing. Lower = predicted faster.
  std::vector<double> predict(const std::vector<float>& rows) const;
  int64_t num_features() const;
  // The indicator features fit() would make of these rows: whether it
  // solves directly (solves_directly) is known before fitting.
  static int64_t count_features(const std::vector<float>& rows, int64_t width);
  // The learned effect of `value` in `column` (0 for values unseen in
  // training and for constant columns), and the intercept: predict() is the
  // bias plus the effects of a row's values.
  double weight(int64_t column, float value) const;
  double bias() const { return bias_; }

  // fit() solves exactly in the smaller of two spaces: the normal equations
  // (features x features) or, with fewer rows than features and lambda > 0,
  // the rows' Gram matrix: w = X^T (X X^T + lambda I)^-1 y, the same weights
  // (tuning fits 36 ridges on 600 configs of a graph with 4,000 features:
  // minutes in the features' space, seconds in the rows'). Above this many
  // features and rows both (the solve holds two or three matrices of
  // size^2 doubles: 3.2 GB each at 20,000, a layout graph with 848
  // configurable nodes) neither is formed; conjugate gradients run on the
  // rows instead (lambda > 0).
  static constexpr int64_t kDenseLimit = 4096;
  static bool solves_directly(int64_t rows, int64_t features, int64_t limit = kDenseLimit) {
    return features <= limit || rows <= limit;
  }
  void set_dense_limit(int64_t size) { dense_limit_ = size; }
  // Auto: as above. Tests and the benchmark pin a space to compare the two;
  // lambda 0 always solves the features' space (the minimum-norm solution).
  enum class Space { Auto, Features, Rows };
  void set_space(Space s) { space_ = s; }
  // The space the last fit() solved in (Features also for conjugate gradients).
  Space solved_in() const { return solved_in_; }

 private:
  int64_t width_ = 0;
  std::vector<std::vector<float>> values_;  // per column: distinct training values, sorted
  std::vector<int64_t> offset_;             // per column: first feature index
  std::vector<double> weights_;
  double bias_ = 0.0;
  int64_t dense_limit_ = kDenseLimit;
  Space space_ = Space::Auto;
  Space solved_in_ = Space::Auto;
};

}  // namespace fastslow::baselines
