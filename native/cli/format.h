// Table cells the CLI's metric tables share.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "fastslow/graph/row_text.h"

namespace fastslow::cli {

// 4 decimals; "-" for NaN (a metric the graph has no runtimes for).
inline std::string metric_cell(double v) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}


}  // namespace fastslow::cli
