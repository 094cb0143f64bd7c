#include "fastslow/graph/row_text.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace fastslow {

namespace {

// A config value: an integer as one; anything else (out of a layout's range,
// a file that breaks the format) as %g, never an undefined cast.
std::string value_text(float x) {
  if (std::isfinite(x) && std::abs(x) < 1e9f && x == std::nearbyint(x)) return std::to_string(static_cast<int64_t>(x));
  char b[32];
  std::snprintf(b, sizeof b, "%g", static_cast<double>(x));
  return b;
}

}  // namespace

std::string values_text(const std::vector<float>& row) {
  std::string s;
  for (float x : row) s += (s.empty() ? "" : " ") + value_text(x);
  return s;
}

std::string layout_row_text(const std::vector<float>& row) {
  if (row.size() != 18) return values_text(row);
  std::string s;
  for (size_t t = 0; t < 3; ++t) {
    std::string named;
    for (size_t i = 0; i < 6; ++i)
      if (row[t * 6 + i] >= 0) named += (named.empty() ? "" : ",") + value_text(row[t * 6 + i]);
    s += (t ? " " : "") + (named.empty() ? std::string("-") : "(" + named + ")");
  }
  return s;
}

std::string nodes_text(const std::vector<int64_t>& nodes, size_t shown, const char* prefix, const char* sep) {
  std::string s;
  for (size_t i = 0; i < nodes.size() && i < shown; ++i) s += (i ? sep : "") + std::string(prefix) + std::to_string(nodes[i]);
  if (nodes.size() > shown) s += sep + ("+" + std::to_string(nodes.size() - shown));
  return s;
}

}  // namespace fastslow
