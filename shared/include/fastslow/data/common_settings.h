// A file's most common config, setting by setting: a layout config's
// settings are its configurable nodes' rows of orders, a tile config's its
// bounds. Explaining a config resets one node to it (rank/occlusion.h); an
// autotuning session measures the config nearest it first
// (tune/start_batch.h).
#pragma once

#include <cstdint>
#include <vector>

#include "fastslow/data/graph_cache.h"

namespace fastslow {

// How a config row splits into settings: `units` of `width` values each.
struct SettingShape {
  int64_t units = 0, width = 1;
};
SettingShape setting_shape(const CachedGraph& g);

// Each setting at the value the file holds most often (duplicates counted),
// one config row (config_row_elems); ties go to the smallest value, the same
// on every build. `rows`: every config group's rows (g.config_rows of
// 0..n-1), when already read. Error naming the file on a size mismatch.
std::vector<float> most_common_settings(const CachedGraph& g);
std::vector<float> most_common_settings(const CachedGraph& g, const std::vector<float>& rows);

}  // namespace fastslow
