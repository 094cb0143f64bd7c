// Normalisation statistics of feature columns, computed on the training split
// and stored with a run (and later in the model card), so training, the
// terminal and the browser all transform features the same way.
//
// Size-like columns (non-negative with a large range: shape products, sums,
// tile bounds) are log-scaled with log1p first; then every column is
// standardised. Constant columns map to 0.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fastslow {

struct FeatureStats {
  std::vector<uint8_t> log_scale;  // per column: 1 = apply log1p before standardising
  std::vector<double> mean;        // of the (log-scaled) column
  std::vector<double> stddev;      // of the (log-scaled) column; 1 for constant columns
  int64_t width() const { return static_cast<int64_t>(mean.size()); }

  // In place on a row-major (rows x width()) matrix, in double:
  // x -> ((log_scale ? log1p(max(x, 0)) : x) - mean) / stddev.
  void apply(float* rows, int64_t count) const;
  std::vector<float> applied(const std::vector<float>& rows) const;

  nlohmann::json to_json() const;  // {"log_scale":[...],"mean":[...],"stddev":[...]}
  // Throws Error naming `what` on malformed JSON or inconsistent lengths.
  static FeatureStats from_json(const nlohmann::json& j, const std::string& what = "feature stats");
};

// Streaming: add any number of row blocks, then finish(). Uses a two-pass-free
// method (Welford / pairwise) so large collections do not lose precision.
class FeatureStatsBuilder {
 public:
  explicit FeatureStatsBuilder(int64_t width);
  // Throws Error naming the column on a non-finite value; the block is then
  // not counted at all.
  void add(const float* rows, int64_t count);
  // A column is log-scaled when its minimum is >= 0 and its maximum > 10.
  // stddev is the population one (ddof = 0). Throws Error when no rows were added.
  FeatureStats finish() const;
  int64_t width() const { return width_; }
  int64_t rows() const { return rows_; }

 private:
  int64_t width_;
  int64_t rows_ = 0;
  std::vector<double> min_, max_;
  // Moments of log1p(x) (used where the column ends up log-scaled, which is
  // only known at the end) and of x itself, both taken about the column's
  // first value: Welford alone loses digits when the spread is small next to
  // the magnitude (a column around 1e6 with unit spread).
  std::vector<double> shift_raw_, shift_log_;
  std::vector<double> mean_raw_, m2_raw_, mean_log_, m2_log_;
};

}  // namespace fastslow
