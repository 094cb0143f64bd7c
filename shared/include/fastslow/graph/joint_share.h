// What several factors explain together, found by forward selection: the
// node effects (node_effects.h) rank each node alone, and where a search
// moved nodes partly together a node's share alone repeats another's (on
// real unet3d #199 showed 10 % of a 64-config tuning session, all of it
// node 1022's tail seen through configs that changed both), while a node
// whose groups mix the others' effects shows little alone (on AlexNet #86:
// 0.8 % alone, 3.4 % once #254 and #95 are known). Each step adds the
// factor whose rows, crossed with those picked so far, explain the most
// more of the variance beyond chance; its gain is what it adds to the ones
// above it.
//
// The cells of the picked factors are their full crossing (every
// combination of rows seen is a cell, no additivity assumed), scored by
// the share beyond chance (omega squared). That alone does not stop the
// selection on noise: among tens of configs the crossing soon leaves a
// degree of freedom or two within its cells, and the best of dozens of
// candidates then looks decisive. So a pick must also pass the partial F
// test of its added cells against the variance left within them, at
// alpha over the number of candidates of its step (Bonferroni).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fastslow {

struct JointPick {
  size_t factor = 0;  // index into the factors given
  double gain = 0;    // added to the adjusted share of the picks above
  int64_t cells = 0;  // combinations of the picked factors' groups seen, this one included
  double p = 0;       // its F test's p-value
};

// Why the selection stopped.
enum class JointStop {
  AllPicked,       // no factor left
  SmallGain,       // the next best gains under min_gain
  NotSignificant,  // the next best fails its F test
  MostPicks,       // max_picks made
};

struct JointShare {
  std::vector<JointPick> picks;  // in the order picked
  double adjusted = 0;           // of all picks together (their gains' sum)
  JointStop stop = JointStop::AllPicked;
  // The step that stopped it: its best factor's gain and p-value (NaN
  // after max_picks or with no factor left), among `next_candidates`.
  double next_gain = 0, next_p = 0;
  size_t next_candidates = 0;
};

// The share beyond chance of k groups of n observations from their
// between-group and total sums of squares (omega squared):
// (SSb - (k-1) MSw) / (SSt + MSw), clamped at 0; 0 when the groups leave
// no degree of freedom within them (k >= n) or nothing varies.
double omega_squared(double between, double total, int64_t n, int64_t groups);

// `factors[f][i]`: observation i's group under factor f, in [0, number of
// groups). At most `max_picks` steps; a step's best factor is picked when
// it gains at least `min_gain` and its F test's p-value is at most
// `alpha` / (the candidates of the step).
JointShare joint_share(const std::vector<double>& y, const std::vector<std::vector<int32_t>>& factors, int max_picks,
                       double min_gain, double alpha);

}  // namespace fastslow
