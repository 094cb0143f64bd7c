// Ridge on one-hot config values with a prior variance of its own for each
// group of columns (a configurable node's), the variances and the noise
// chosen by maximising the evidence (type-II maximum likelihood, automatic
// relevance determination): a Gaussian process whose kernel is a sum over
// nodes of how many of a node's config values two configs share.
//
// Why: with tens of measured configs, one penalty for every node (ridge)
// spreads what a few nodes decide over all of them, and cross-validating
// which nodes matter over 4 folds of 4 configs is noise. The evidence reads
// every config at once. Real AlexNet, 16 measured configs, 10 draws:
// held-out Kendall 0.42 against ridge's 0.13, with node 254 (what the whole
// file names) given most of the variance in 8 of 10 draws.
// The dual form costs groups x n^2 per step: for few measurements only.
#pragma once

#include <cstdint>
#include <vector>

namespace fastslow::baselines {

class RelevanceRidge {
 public:
  // rows: count x width row-major; group_of: the group (0..groups-1) of
  // each column; target: one value per row (e.g. log runtime). Throws
  // fastslow::Error on size mismatch, fewer than 2 rows or a bad group.
  void fit(const std::vector<float>& rows, int64_t width, const std::vector<int64_t>& group_of,
           const std::vector<double>& target);
  // Lower = predicted faster; values unseen in training contribute nothing.
  std::vector<double> predict(const std::vector<float>& rows) const;
  // As OneHotRidge: predict() is the bias plus the weights of a row's values.
  double weight(int64_t column, float value) const;
  double bias() const { return bias_; }
  // Each group's share of the prior variance of a config's score: its
  // variance times its varying columns, over all groups' (sums to 1; all
  // 0 where no column varies).
  std::vector<double> relevance() const;
  // What the evidence chose: per group its log variance, the log noise
  // variance (both of the standardised target), and the log evidence there.
  const std::vector<double>& log_variances() const { return log_variance_; }
  double log_noise() const { return log_noise_; }
  double log_evidence() const { return log_evidence_; }
  // Indicator features with a weight (distinct values of non-constant columns).
  int64_t num_features() const;

  // Adam steps on the log evidence, from every group at 1/groups of the
  // target's variance and the noise at 0.1 of it.
  static constexpr int kSteps = 300;

 private:
  int64_t width_ = 0;
  std::vector<std::vector<float>> values_;   // per column: distinct training values, sorted
  std::vector<std::vector<double>> weights_;  // per column and value
  std::vector<double> variance_;             // per group: prior variance (target units, standardised)
  std::vector<int64_t> columns_;             // per group: columns that vary
  std::vector<double> log_variance_;         // per group, as searched (constant groups too)
  double log_noise_ = 0.0, log_evidence_ = 0.0;
  double bias_ = 0.0;
};

// The log evidence (log marginal likelihood) of the standardised target
// under these log variances per group and log noise variance: what fit()
// maximises, computed without its shortcuts, for checking it. Throws
// fastslow::Error on sizes that do not fit or a covariance that does not
// factor.
double relevance_log_evidence(const std::vector<float>& rows, int64_t width, const std::vector<int64_t>& group_of,
                              const std::vector<double>& target, const std::vector<double>& log_variance,
                              double log_noise);

// Kendall tau of the out-of-fold predictions of K-fold cross-validation on
// the folds baselines::cv_folds deals (those every few-measurement choice
// uses, so the figures compare); NaN for fewer than 2 * folds rows.
double relevance_cv_kendall(const std::vector<float>& rows, int64_t width, const std::vector<int64_t>& group_of,
                            const std::vector<double>& target, int folds, uint64_t seed);

}  // namespace fastslow::baselines
