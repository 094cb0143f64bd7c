// Ranking metrics as JSON, one shape wherever they are written: the run's
// metrics.json, `fastslow_rank_finish` for JS and the page's state. Keys
// kendall, opa, top1_error, top5_error, top10_error, tile_score; a metric
// that is undefined (NaN: no runtimes, every runtime tied) is null, since
// JSON has no NaN.
#pragma once

#include <nlohmann/json.hpp>

#include "fastslow/rank/metrics.h"

namespace fastslow {

// The six metrics only: callers add what identifies them (a graph's name and
// config count, a collection's graph count).
nlohmann::json metrics_json(const GraphMetrics& m);
// Means over a collection's graphs, under the same keys.
nlohmann::json metrics_json(const CollectionMetrics& m);

}  // namespace fastslow
