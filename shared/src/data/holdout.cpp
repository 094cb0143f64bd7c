#include "fastslow/data/holdout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>

#include "fastslow/error.h"
#include "fastslow/rng.h"

namespace fastslow {

namespace {

// Whether group g is set in a per-group mask (a shorter mask sets none beyond it).
bool set_in(const std::vector<char>& mask, int64_t g) {
  return static_cast<size_t>(g) < mask.size() && mask[static_cast<size_t>(g)] != 0;
}

std::string show(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

}  // namespace

HoldoutSplit split_holdout(int64_t num_groups, double fraction, uint64_t seed) {
  // Written so that NaN fails too.
  if (!(fraction >= 0.0 && fraction < 1.0))
    throw Error("holdout: fraction must be in [0, 1), got " + show(fraction));
  if (fraction == 0.0) {  // nothing held out: every group trains (an engineer ranking configs not yet measured)
    if (num_groups < 1) throw Error("holdout: no unique configs to train on");
    HoldoutSplit all;
    all.train.resize(static_cast<size_t>(num_groups));
    std::iota(all.train.begin(), all.train.end(), int64_t{0});
    return all;
  }
  if (num_groups < 2)
    throw Error("holdout: need at least 2 unique configs to hold some out, got " + std::to_string(num_groups));

  const int64_t k = std::clamp<int64_t>(std::llround(fraction * static_cast<double>(num_groups)), 1, num_groups - 1);

  std::vector<int64_t> order(static_cast<size_t>(num_groups));
  std::iota(order.begin(), order.end(), int64_t{0});
  // Fisher-Yates with our own uniform_int: std::shuffle's draws differ
  // between libstdc++ and libc++ (native vs wasm).
  Rng rng(seed);
  for (int64_t i = num_groups - 1; i > 0; --i) std::swap(order[i], order[rng.uniform_int(0, i)]);

  HoldoutSplit split;
  split.holdout.assign(order.begin(), order.begin() + k);
  split.train.assign(order.begin() + k, order.end());
  std::sort(split.holdout.begin(), split.holdout.end());
  std::sort(split.train.begin(), split.train.end());
  return split;
}

HoldoutSplit split_program(int64_t num_groups, double holdout, double valid, uint64_t seed) {
  if (!(valid >= 0.0 && valid < 1.0)) throw Error("valid share must be in [0, 1), got " + show(valid));
  if (valid == 0.0 && holdout == 0.0)
    throw Error("holdout and valid shares are both 0: nothing is left to validate on");
  if (valid == 0.0) return split_holdout(num_groups, holdout, seed);
  if (!(holdout + valid < 1.0))
    throw Error("holdout (" + show(holdout) + ") and valid (" + show(valid) + ") shares leave nothing to train on");
  const int64_t need = holdout > 0.0 ? 3 : 2;
  if (num_groups < need)
    throw Error(std::string("holdout: need at least ") + std::to_string(need) + " unique configs to train, validate" +
                (holdout > 0.0 ? " and hold some out" : "") + ", got " + std::to_string(num_groups));
  HoldoutSplit split = split_holdout(num_groups, holdout, seed);
  const auto rest = static_cast<int64_t>(split.train.size());
  const int64_t k = std::clamp<int64_t>(std::llround(valid * static_cast<double>(num_groups)), 1, rest - 1);
  // A second stream of the same seed: the held-out groups stay split_holdout's.
  std::vector<int64_t> order = split.train;
  Rng rng(seed ^ 0x76616c6964ull);  // "valid"
  for (int64_t i = rest - 1; i > 0; --i) std::swap(order[i], order[rng.uniform_int(0, i)]);
  split.valid.assign(order.begin(), order.begin() + k);
  split.train.assign(order.begin() + k, order.end());
  std::sort(split.valid.begin(), split.valid.end());
  std::sort(split.train.begin(), split.train.end());
  return split;
}

HoldoutSplit split_measured(int64_t num_groups, int64_t measured, double valid, uint64_t seed,
                            const std::vector<char>& unmeasured) {
  if (!(valid >= 0.0 && valid < 1.0)) throw Error("valid share must be in [0, 1), got " + show(valid));
  const int64_t need = valid > 0.0 ? 3 : 2;
  if (measured < need)
    throw Error("measured: need at least " + std::to_string(need) + " measured unique configs" +
                (valid > 0.0 ? " to train and validate" : " to train") + ", got " + std::to_string(measured));
  const auto skipped = [&](int64_t g) { return set_in(unmeasured, g); };
  int64_t with_runtime = num_groups;
  for (int64_t g = 0; g < num_groups; ++g) with_runtime -= skipped(g);
  if (measured > with_runtime)
    throw Error("measured: " + std::to_string(measured) + " configs asked for, the graph has " +
                std::to_string(with_runtime) + " unique configs" +
                (with_runtime < num_groups ? " with a runtime (" + std::to_string(num_groups) + " in all)" : ""));
  std::vector<int64_t> order(static_cast<size_t>(num_groups));
  std::iota(order.begin(), order.end(), int64_t{0});
  Rng rng(seed ^ 0x6d6561737572ull);  // "measur"
  for (int64_t i = num_groups - 1; i > 0; --i) std::swap(order[i], order[rng.uniform_int(0, i)]);
  // The shuffle's order with the groups without a runtime taken out: the
  // others keep their places relative to each other.
  order.erase(std::remove_if(order.begin(), order.end(), skipped), order.end());
  HoldoutSplit split;
  split.train.assign(order.begin(), order.begin() + measured);
  split.holdout.assign(order.begin() + measured, order.end());
  if (valid > 0.0) {
    const int64_t k = std::clamp<int64_t>(std::llround(valid * static_cast<double>(measured)), 1, measured - 1);
    // The last k of the measured draw validate: the first ones, which every
    // larger count shares, keep training.
    split.valid.assign(split.train.end() - k, split.train.end());
    split.train.resize(static_cast<size_t>(measured - k));
  }
  std::sort(split.train.begin(), split.train.end());
  std::sort(split.valid.begin(), split.valid.end());
  std::sort(split.holdout.begin(), split.holdout.end());
  return split;
}

HoldoutSplit without_unmeasured(HoldoutSplit h, const std::vector<char>& unmeasured) {
  if (unmeasured.empty()) return h;
  const auto drop = [&](std::vector<int64_t>& part) {
    part.erase(std::remove_if(part.begin(), part.end(), [&](int64_t g) { return set_in(unmeasured, g); }), part.end());
  };
  drop(h.train);
  drop(h.valid);
  drop(h.holdout);
  return h;
}

}  // namespace fastslow
