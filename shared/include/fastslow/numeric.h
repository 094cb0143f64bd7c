// Numeric constants and helpers every layer of the core uses; the lowest layer holds
// them, so a layer never includes a higher one for a constant.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace fastslow {

// "Not measured / undefined" in metrics and statistics.
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Sorts v ascending and returns the pairs i < j with v[i] > v[j] (equal
// values do not count), in O(n log n): Kendall's discordant pairs and the
// edge crossings of a drawing both count these.
int64_t sort_counting_inversions(std::vector<double>& v);

// 64-bit FNV-1a of a text: a fingerprint that is the same on every build
// (cache file names, keys of stored results, seeds drawn from names).
inline uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace fastslow
