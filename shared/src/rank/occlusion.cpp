#include "fastslow/rank/occlusion.h"

#include <algorithm>
#include <string>

#include "fastslow/data/common_settings.h"
#include "fastslow/error.h"

namespace fastslow {

OcclusionRows occlusion_rows(const CachedGraph& g, int64_t config, int64_t against) {
  if (g.kind != GraphKind::Layout) throw Error(g.source, "", "explaining a config: not a layout graph");
  const int64_t n = g.num_configs;
  for (int64_t c : {config, against})
    if (c < -1 || c >= n || (c == config && c < 0))
      throw Error(g.source, "", "config " + std::to_string(c) + " is out of range (the file has " + std::to_string(n) +
                                    " configs, 0 to " + std::to_string(n - 1) + ")");
  OcclusionRows r;
  r.nodes = static_cast<int64_t>(g.pruned.config_positions.size());
  r.width = g.config_feat_width;
  r.against = against >= 0;
  const std::vector<float> common = most_common_settings(g);
  const int64_t row = r.nodes * r.width;
  for (int64_t c : {config, against}) {
    if (c < 0) continue;
    const std::vector<float> base = g.config_rows({g.groups.group_of[static_cast<size_t>(c)]});
    r.rows.insert(r.rows.end(), base.begin(), base.end());
    for (int64_t j = 0; j < r.nodes; ++j) {
      r.rows.insert(r.rows.end(), base.begin(), base.end());
      std::copy(common.begin() + j * r.width, common.begin() + (j + 1) * r.width, r.rows.end() - row + j * r.width);
    }
  }
  return r;
}

OcclusionShares occlusion_shares(const OcclusionRows& r, const std::vector<double>& scores) {
  if (static_cast<int64_t>(scores.size()) != r.count())
    throw Error("explain: " + std::to_string(scores.size()) + " scores for " + std::to_string(r.count()) + " rows");
  OcclusionShares s;
  s.share.assign(static_cast<size_t>(r.nodes), 0.0);
  for (int side = 0; side < (r.against ? 2 : 1); ++side) {
    const size_t at = static_cast<size_t>(side * (r.nodes + 1));
    const double base = scores[at];
    (side == 0 ? s.score : s.against_score) = base;
    for (int64_t j = 0; j < r.nodes; ++j)
      s.share[static_cast<size_t>(j)] += (side == 0 ? 1.0 : -1.0) * (base - scores[at + 1 + static_cast<size_t>(j)]);
  }
  return s;
}

}  // namespace fastslow
