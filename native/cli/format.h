// Table cells the CLI's metric tables share.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace fastslow::cli {

// 4 decimals; "-" for NaN (a metric the graph has no runtimes for).
inline std::string metric_cell(double v) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

// Config values as integers, space separated (a layout row as the file holds it).
inline std::string values_text(const std::vector<float>& v) {
  std::string s;
  for (float x : v) s += (s.empty() ? "" : " ") + std::to_string(static_cast<int>(std::lround(x)));
  return s;
}

}  // namespace fastslow::cli
