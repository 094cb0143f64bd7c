// Why a config scores as it does, for any model that scores layout configs
// (a LibTorch run natively, an exported model in ONNX Runtime Web in the
// page): occlusion. Each configurable node's layout in turn is reset to the
// file's most common one for that node (data/common_settings.h) and the
// config scored again; the
// change is the node's share:
//   share(j) = score(config) - score(config with node j reset)
// and with a second config, share(j) of the first minus share(j) of the
// second: what node j adds to the difference. Shares do not add up to the
// score (nodes interact); a model that is a sum over nodes (the wide
// table) has exact shares instead (native/tune/explain.h).
#pragma once

#include <cstdint>
#include <vector>

#include "fastslow/data/graph_cache.h"

namespace fastslow {

// The rows to score: the config, then one copy per node with that node
// reset; the same again for `against` when it is given (>= 0). Config and
// against are indices into the file's configs.
struct OcclusionRows {
  int64_t nodes = 0, width = 0;
  bool against = false;
  std::vector<float> rows;  // count() x nodes x width
  int64_t count() const { return (against ? 2 : 1) * (nodes + 1); }
};
// Throws Error naming the file for a config out of range or a tile graph.
OcclusionRows occlusion_rows(const CachedGraph& g, int64_t config, int64_t against);

// Per node, its share, from one score per row (lower = faster); Error when
// the count does not fit.
struct OcclusionShares {
  double score = 0, against_score = 0;
  std::vector<double> share;  // per node
};
OcclusionShares occlusion_shares(const OcclusionRows& r, const std::vector<double>& scores);

}  // namespace fastslow
