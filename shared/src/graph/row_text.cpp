#include "fastslow/graph/row_text.h"

#include <cmath>

namespace fastslow {

std::string values_text(const std::vector<float>& row) {
  std::string s;
  for (float x : row) s += (s.empty() ? "" : " ") + std::to_string(static_cast<int>(std::lround(x)));
  return s;
}

std::string layout_row_text(const std::vector<float>& row) {
  if (row.size() != 18) return values_text(row);
  std::string s;
  for (size_t t = 0; t < 3; ++t) {
    std::string named;
    for (size_t i = 0; i < 6; ++i)
      if (row[t * 6 + i] >= 0) named += (named.empty() ? "" : ",") + std::to_string(static_cast<int>(row[t * 6 + i]));
    s += (t ? " " : "") + (named.empty() ? std::string("-") : "(" + named + ")");
  }
  return s;
}

}  // namespace fastslow
