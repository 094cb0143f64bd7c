#include "fastslow/rng.h"

#include "fastslow/error.h"

namespace fastslow {

int64_t Rng::uniform_int(int64_t lo, int64_t hi) {
  if (lo > hi) throw Error("rng: uniform_int with lo > hi");
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<int64_t>(next());
  const uint64_t range = span + 1;
  // Rejection keeps every value equally likely: draws in the last partial
  // block of size range would favour small values.
  const uint64_t limit = UINT64_MAX - (UINT64_MAX % range + 1) % range;
  uint64_t x;
  do {
    x = next();
  } while (x > limit);
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + x % range);
}

double Rng::uniform() {
  // The top 53 bits fill a double's mantissa exactly.
  return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace fastslow
