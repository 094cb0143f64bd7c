// Per-program tuning splits: a share of one graph's unique configs is held
// out, and optionally a second share validates (early stopping, the
// baselines' regularisation) so that the held-out share is never looked at
// while training. The split is over de-duplicated groups, so no config
// measured in training reappears (as a duplicate) among the others.
#pragma once

#include <cstdint>
#include <vector>

namespace fastslow {

struct HoldoutSplit {
  std::vector<int64_t> train;    // group ids, ascending
  std::vector<int64_t> valid;    // group ids, ascending (empty without a valid share)
  std::vector<int64_t> holdout;  // group ids, ascending
};

// round(fraction * num_groups) (halves away from zero) groups held out (at least 1 and at most
// num_groups - 1 when num_groups >= 2), chosen by a portable shuffle with
// `seed`: the same on every platform. fraction 0 holds nothing out (every
// group trains). Throws Error on fraction outside [0, 1), or num_groups < 2
// when some are held out.
HoldoutSplit split_holdout(int64_t num_groups, double fraction, uint64_t seed);

// Three ways: the held-out groups are exactly split_holdout's for the same
// (num_groups, holdout, seed), so adding a valid share never changes what
// is held out; round(valid * num_groups) of the rest validate (at least 1,
// and at least 1 stays for training). valid = 0 is split_holdout. Throws
// Error on valid outside [0, 1), holdout + valid >= 1, both 0 (nothing to
// validate on), or fewer than 3 groups (2 without a held-out share) when
// valid > 0.
HoldoutSplit split_program(int64_t num_groups, double holdout, double valid, uint64_t seed);

// Few measurements (an engineer tuning one program): `measured` groups are
// the ones with runtimes, every other group is held out. The measured ones
// are the first `measured` of one portable shuffle of `seed`, so a larger
// count keeps a smaller one's configs (learning curves grow one draw).
// valid > 0: round(valid * measured) of them validate (at least 1, and at
// least 1 trains). Groups with unmeasured[g] set (the file holds no runtime
// for them) are skipped in the shuffle's order and are in no part. Throws
// Error on measured < 2 (or < 3 with a valid share), measured > the groups
// with a runtime, or valid outside [0, 1).
HoldoutSplit split_measured(int64_t num_groups, int64_t measured, double valid, uint64_t seed,
                            const std::vector<char>& unmeasured = {});

// `h` without the groups whose file holds no runtime (unmeasured[g] set):
// a split is drawn over every group, so that filling in a runtime later
// moves no other group to another part; those without one are in none.
HoldoutSplit without_unmeasured(HoldoutSplit h, const std::vector<char>& unmeasured);

}  // namespace fastslow
