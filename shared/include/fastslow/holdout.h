// Per-program tuning splits: a share of one graph's unique configs is held
// out. The split is over de-duplicated groups, so no config measured in
// training reappears (as a duplicate) among the held-out ones.
#pragma once

#include <cstdint>
#include <vector>

namespace fastslow {

struct HoldoutSplit {
  std::vector<int64_t> train;    // group ids, ascending
  std::vector<int64_t> holdout;  // group ids, ascending
};

// round(fraction * num_groups) (halves away from zero) groups held out (at least 1 and at most
// num_groups - 1 when num_groups >= 2), chosen by a portable shuffle with
// `seed`: the same on every platform. Throws Error on fraction outside (0, 1)
// or num_groups < 2.
HoldoutSplit split_holdout(int64_t num_groups, double fraction, uint64_t seed);

}  // namespace fastslow
