// K-fold cross-validation splits. Collections fold by graph: every graph
// validates in exactly one fold and trains in the others. One graph's
// configs (per-program mode) fold by unique config (duplicate group), so a
// config measured twice never sits on both sides.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/data/holdout.h"

namespace fastslow {

// The model family a file name tells: the leading letters of its stem,
// lower-case ("resnet50.2x2.fp16" -> "resnet", "transformer_0002" ->
// "transformer"); "" when the stem starts otherwise.
std::string model_family(const std::string& path);

// The fold (0..folds-1) of each file, aligned with `files`. Balanced by
// count (fold sizes differ by at most one) and within each family (a
// family's graphs are dealt over the folds in turn, so no fold holds all
// of one family while others hold none). Files sharing a stem are one
// graph (xla:random and xla:default publish the same graphs) and share a
// fold. Depends only on the file names and `seed`, not on their order.
// Throws Error when folds < 2 or there are fewer distinct graphs than folds.
std::vector<int> assign_folds(const std::vector<std::string>& files, int folds, uint64_t seed);

// One graph's groups: the held-out share is split_holdout(num_groups,
// holdout, seed)'s, never seen by any fold; the rest are dealt over
// `folds` folds by a seeded shuffle, and fold `fold` validates while the
// others train. Throws Error on fold outside [0, folds), folds < 2, or
// fewer groups left than folds.
HoldoutSplit split_program_fold(int64_t num_groups, double holdout, int folds, int fold, uint64_t seed);

}  // namespace fastslow
