#include "fastslow/features/feature_stats.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "fastslow/error.h"
#include "fastslow/io/json_text.h"

namespace fastslow {

namespace {

// Below this a column is treated as constant: dividing by it would blow
// rounding noise up into large values.
constexpr double kMinStddev = 1e-12;

// NaN stays NaN (so bad input is visible downstream); negatives clamp to 0
// because a log-scaled column was non-negative in training.
double log_of(double x) { return std::log1p(x < 0.0 ? 0.0 : x); }

std::string show(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

void FeatureStats::apply(float* rows, int64_t count) const {
  const int64_t w = width();
  for (int64_t r = 0; r < count; ++r) {
    float* row = rows + r * w;
    for (int64_t j = 0; j < w; ++j) {
      const double x = log_scale[j] ? log_of(row[j]) : static_cast<double>(row[j]);
      row[j] = static_cast<float>((x - mean[j]) / stddev[j]);
    }
  }
}

std::vector<float> FeatureStats::applied(const std::vector<float>& rows) const {
  const int64_t w = width();
  const int64_t n = static_cast<int64_t>(rows.size());
  if (w == 0 ? n != 0 : n % w != 0)
    throw Error("feature stats: " + std::to_string(n) + " values are not whole rows of width " + std::to_string(w));
  std::vector<float> out = rows;
  if (w > 0) apply(out.data(), n / w);
  return out;
}

nlohmann::json FeatureStats::to_json() const {
  nlohmann::json j;
  j["log_scale"] = log_scale;
  j["mean"] = mean;
  j["stddev"] = stddev;
  return j;
}

FeatureStats FeatureStats::from_json(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object()) throw Error(what, "", "expected a JSON object with log_scale, mean and stddev");
  auto numbers = [&](const char* key) {
    const auto it = j.find(key);
    if (it == j.end()) throw Error(what, "", std::string("missing key '") + key + "'");
    if (!it->is_array()) throw Error(what, "", std::string("'") + key + "' is not an array");
    std::vector<double> v;
    for (size_t i = 0; i < it->size(); ++i) {
      const nlohmann::json& x = (*it)[i];
      if (!x.is_number())
        throw Error(what, "", std::string("'") + key + "'[" + std::to_string(i) + "] is not a number: " + x.dump());
      v.push_back(x.get<double>());
    }
    return v;
  };

  const std::vector<double> log_scale = numbers("log_scale");
  FeatureStats s;
  s.mean = numbers("mean");
  s.stddev = numbers("stddev");
  if (log_scale.size() != s.mean.size() || s.stddev.size() != s.mean.size())
    throw Error(what, "", "lengths differ: log_scale " + std::to_string(log_scale.size()) + ", mean " +
                              std::to_string(s.mean.size()) + ", stddev " + std::to_string(s.stddev.size()));
  for (size_t i = 0; i < log_scale.size(); ++i) {
    if (log_scale[i] != 0.0 && log_scale[i] != 1.0)
      throw Error(what, "", "log_scale[" + std::to_string(i) + "] is " + show(log_scale[i]) + ", not 0 or 1");
    s.log_scale.push_back(log_scale[i] != 0.0 ? 1 : 0);
    if (!std::isfinite(s.mean[i]))
      throw Error(what, "", "mean[" + std::to_string(i) + "] is not finite");
    if (!(std::isfinite(s.stddev[i]) && s.stddev[i] > 0.0))
      throw Error(what, "", "stddev[" + std::to_string(i) + "] is " + show(s.stddev[i]) + ", not a positive number");
  }
  return s;
}

FeatureStatsBuilder::FeatureStatsBuilder(int64_t width) : width_(width) {
  if (width < 0) throw Error("feature stats: negative width " + std::to_string(width));
  const size_t w = static_cast<size_t>(width);
  min_.assign(w, INFINITY);
  max_.assign(w, -INFINITY);
  shift_raw_.assign(w, 0.0);
  shift_log_.assign(w, 0.0);
  mean_raw_.assign(w, 0.0);
  m2_raw_.assign(w, 0.0);
  mean_log_.assign(w, 0.0);
  m2_log_.assign(w, 0.0);
}

void FeatureStatsBuilder::add(const float* rows, int64_t count) {
  if (count < 0) throw Error("feature stats: negative row count " + std::to_string(count));
  // Checked before any update so that a rejected block leaves the builder as it was.
  for (int64_t r = 0; r < count; ++r)
    for (int64_t j = 0; j < width_; ++j)
      if (!std::isfinite(rows[r * width_ + j]))
        throw Error("feature stats: column " + std::to_string(j) + " has a non-finite value (" +
                    show(rows[r * width_ + j]) + ") in row " + std::to_string(rows_ + r));

  if (rows_ == 0 && count > 0)
    for (int64_t j = 0; j < width_; ++j) {
      shift_raw_[j] = rows[j];
      shift_log_[j] = log_of(rows[j]);
    }
  // Welford: every column shares the row count, so one division per row.
  for (int64_t r = 0; r < count; ++r) {
    const float* row = rows + r * width_;
    const double inv_n = 1.0 / static_cast<double>(rows_ + r + 1);
    for (int64_t j = 0; j < width_; ++j) {
      const double v = row[j];
      if (v < min_[j]) min_[j] = v;
      if (v > max_[j]) max_[j] = v;
      const double x = v - shift_raw_[j];  // exact: two floats' difference fits a double
      const double d = x - mean_raw_[j];
      mean_raw_[j] += d * inv_n;
      m2_raw_[j] += d * (x - mean_raw_[j]);
      const double lx = log_of(v) - shift_log_[j];
      const double dl = lx - mean_log_[j];
      mean_log_[j] += dl * inv_n;
      m2_log_[j] += dl * (lx - mean_log_[j]);
    }
  }
  rows_ += count;
}

FeatureStats FeatureStatsBuilder::finish() const {
  if (rows_ == 0) throw Error("feature stats: no rows were added");
  FeatureStats s;
  const double n = static_cast<double>(rows_);
  for (int64_t j = 0; j < width_; ++j) {
    const bool log = min_[j] >= 0.0 && max_[j] > 10.0;
    const double sd = std::sqrt((log ? m2_log_[j] : m2_raw_[j]) / n);
    s.log_scale.push_back(log ? 1 : 0);
    s.mean.push_back(log ? shift_log_[j] + mean_log_[j] : shift_raw_[j] + mean_raw_[j]);
    s.stddev.push_back(sd < kMinStddev ? 1.0 : sd);
  }
  return s;
}

}  // namespace fastslow
