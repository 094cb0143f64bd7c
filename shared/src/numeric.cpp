#include "fastslow/numeric.h"

#include <algorithm>

namespace fastslow {

// Bottom-up merge sort. Equal values never count, which is what keeps ties
// out of Kendall's discordant count.
int64_t sort_counting_inversions(std::vector<double>& v) {
  const size_t n = v.size();
  std::vector<double> buf(n);
  int64_t inversions = 0;
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = std::min(lo + width, n);
      const size_t hi = std::min(lo + 2 * width, n);
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        if (v[j] < v[i]) {
          inversions += static_cast<int64_t>(mid - i);
          buf[k++] = v[j++];
        } else {
          buf[k++] = v[i++];
        }
      }
      while (i < mid) buf[k++] = v[i++];
      while (j < hi) buf[k++] = v[j++];
    }
    v.swap(buf);
  }
  return inversions;
}

}  // namespace fastslow
