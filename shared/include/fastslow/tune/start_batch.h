// The first batch of an autotuning session, before any model is fitted.
// An engineer tuning a program measures the compiler's own choice first:
// XLA's autotuner starts from it, and on the published layout files it
// sits on the plateau of near-best configs (AlexNet: 1.0002x the best;
// real unet3d: 1.00000x). A file does not mark which config that is; the
// published default collections perturb it node by node, so each node's
// most common setting is the compiler's and the config nearest all of them
// stands for it. `common` measures that config first and draws the rest at
// random; `random` draws them all (the reference order).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/data/graph_cache.h"
#include "fastslow/rng.h"

namespace fastslow {

enum class StartFrom { Common, Random };

// "common", "random"; Error naming the choices otherwise.
StartFrom parse_start_from(const std::string& name);
const char* start_from_name(StartFrom s);

// The config group nearest the file's most common settings: the fewest
// configurable nodes (layout; a node's whole row counts as one setting) or
// tile bounds (tile) away from each one's most common value, counted over
// the file's configs with their duplicates. Ties go to the lowest group.
int64_t most_common_config(const CachedGraph& g);
// The same from every group's rows, already read (g.config_rows of 0..n-1);
// groups with skip[k] set are never the answer (the settings still count
// them), and skipping every one is an Error.
int64_t most_common_config(const CachedGraph& g, const std::vector<float>& rows, const std::vector<char>& skip = {});

// `count` distinct candidates with measured[i] == 0, in the order measured.
// Random: the draws pick_batch's random strategy makes with `rng`. Common:
// `common` first (when not measured yet), then random draws for the rest.
std::vector<int64_t> start_batch(const std::vector<char>& measured, int64_t count, StartFrom from, int64_t common,
                                 Rng& rng);

}  // namespace fastslow
