#include "fastslow/rank/metrics_json.h"

#include <cmath>

namespace fastslow {

namespace {

nlohmann::json number(double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); }

// GraphMetrics and CollectionMetrics name their metrics alike.
template <class M>
nlohmann::json six(const M& m) {
  return {{"kendall", number(m.kendall)},       {"opa", number(m.opa)},
          {"top1_error", number(m.top1)},       {"top5_error", number(m.top5)},
          {"top10_error", number(m.top10)},     {"tile_score", number(m.tile_score)}};
}

}  // namespace

nlohmann::json metrics_json(const GraphMetrics& m) { return six(m); }
nlohmann::json metrics_json(const CollectionMetrics& m) { return six(m); }

}  // namespace fastslow
