// What several factors explain together, found by forward selection: the
// node effects (node_effects.h) rank each node alone, and where a search
// moved nodes partly together a node's share alone repeats another's (on
// real unet3d #199 shows 10 % of a 64-config tuning session, all of it node
// 1022's tail seen through configs that changed both), while a node whose
// effect another one masks shows little alone (on AlexNet #86: 0.8 % alone,
// 3.4 % once #254 and #95 are known). Each step adds the factor whose rows,
// crossed with those picked so far, explain the most more of the variance
// beyond chance; its gain is what it adds to the ones above it.
//
// The cells of the picked factors are their full crossing (every
// combination of rows seen is a cell, no additivity assumed), scored by
// the share beyond chance (omega squared), which charges each cell its
// degree of freedom: with few measurements the crossing soon has as many
// cells as configs and no further pick gains.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fastslow {

struct JointPick {
  size_t factor = 0;  // index into the factors given
  double gain = 0;    // added to the adjusted share of the picks above
  int64_t cells = 0;  // combinations of the picked factors' groups seen, this one included
};

struct JointShare {
  std::vector<JointPick> picks;  // in the order picked
  double adjusted = 0;           // of all picks together (their gains' sum)
};

// The share beyond chance of k groups of n observations from their
// between-group and total sums of squares (omega squared):
// (SSb - (k-1) MSw) / (SSt + MSw), clamped at 0; 0 when the groups leave
// no degree of freedom within them (k >= n) or nothing varies.
double omega_squared(double between, double total, int64_t n, int64_t groups);

// `factors[f][i]`: observation i's group under factor f, in [0, number of
// groups). At most `max_picks` steps; a step stops the selection when its
// best gain is under `min_gain`.
JointShare joint_share(const std::vector<double>& y, const std::vector<std::vector<int32_t>>& factors, int max_picks,
                       double min_gain);

}  // namespace fastslow
