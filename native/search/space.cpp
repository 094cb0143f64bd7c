#include "search/space.h"

#include <algorithm>
#include <cmath>

#include "fastslow/error.h"

namespace fastslow::search {
namespace {

double clamp01(double u) { return std::min(1.0, std::max(0.0, u)); }

// Integers [low, high] as equal shares of the unit interval; on a log
// scale the shares are those of [low - 0.5, high + 0.5] in log space.
int64_t int_at(const Param& p, double u) {
  const double lo = p.low - 0.5, hi = p.high + 0.5;
  double v = p.log ? std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo))) : lo + u * (hi - lo);
  return static_cast<int64_t>(std::clamp(std::llround(v), static_cast<long long>(p.low), static_cast<long long>(p.high)));
}

}  // namespace

nlohmann::json Param::from_unit(double u) const {
  u = clamp01(u);
  switch (kind) {
    case ParamKind::Categorical: {
      const size_t i = std::min(choices.size() - 1, static_cast<size_t>(u * static_cast<double>(choices.size())));
      return choices[i];
    }
    case ParamKind::Int: return int_at(*this, u);
    case ParamKind::Float:
      return log ? std::exp(std::log(low) + u * (std::log(high) - std::log(low))) : low + u * (high - low);
  }
  return nullptr;
}

int Param::choice_index(const nlohmann::json& value) const {
  for (size_t i = 0; i < choices.size(); ++i)
    if (choices[i] == value) return static_cast<int>(i);
  return -1;
}

double Param::to_unit(const nlohmann::json& value) const {
  auto outside = [&] { return Error("parameter " + name + ": " + value.dump() + " is not in the search space"); };
  if (kind == ParamKind::Categorical) {
    const int i = choice_index(value);
    if (i < 0) throw outside();
    return (i + 0.5) / static_cast<double>(choices.size());
  }
  if (!value.is_number()) throw outside();
  const double v = value.get<double>();
  if (v < low - 1e-12 * std::abs(low) || v > high + 1e-12 * std::abs(high)) throw outside();
  if (kind == ParamKind::Int) {
    const double lo = low - 0.5, hi = high + 0.5;
    return log ? (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)) : (v - lo) / (hi - lo);
  }
  if (high == low) return 0.5;
  return log ? (std::log(v) - std::log(low)) / (std::log(high) - std::log(low)) : (v - low) / (high - low);
}

std::vector<nlohmann::json> Param::grid(int points) const {
  if (kind == ParamKind::Categorical) return choices;
  std::vector<nlohmann::json> out;
  points = std::max(points, 1);
  if (kind == ParamKind::Int) {
    const int64_t count = static_cast<int64_t>(high - low) + 1;
    if (count <= points) {
      for (int64_t v = static_cast<int64_t>(low); v <= static_cast<int64_t>(high); ++v) out.push_back(v);
      return out;
    }
    std::vector<int64_t> vals;
    for (int i = 0; i < points; ++i) {
      const double t = points == 1 ? 0.5 : static_cast<double>(i) / (points - 1);
      const double v = log ? std::exp(std::log(low) + t * (std::log(high) - std::log(low))) : low + t * (high - low);
      vals.push_back(std::llround(v));
    }
    vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
    for (int64_t v : vals) out.push_back(v);
    return out;
  }
  for (int i = 0; i < points; ++i) {
    const double t = points == 1 ? 0.5 : static_cast<double>(i) / (points - 1);
    out.push_back(log ? std::exp(std::log(low) + t * (std::log(high) - std::log(low))) : low + t * (high - low));
  }
  return out;
}

nlohmann::json Space::from_unit(const std::vector<double>& u) const {
  nlohmann::json j = nlohmann::json::object();
  for (size_t i = 0; i < params.size(); ++i) j[params[i].name] = params[i].from_unit(u.at(i));
  return j;
}

nlohmann::json Space::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const Param& p : params) {
    if (p.kind == ParamKind::Categorical) {
      j[p.name] = p.choices;
    } else {
      nlohmann::json r = {{"low", p.low}, {"high", p.high}, {"log", p.log}};
      if (p.kind == ParamKind::Int) r = {{"low", static_cast<int64_t>(p.low)}, {"high", static_cast<int64_t>(p.high)}, {"log", p.log}};
      j[p.name] = r;
    }
  }
  return j;
}

}  // namespace fastslow::search
