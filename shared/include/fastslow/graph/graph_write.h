// Writes a layout or tile graph back as the published files hold it (the same
// arrays, dtypes and shapes, np.savez_compressed), with the configs the
// caller gives: the measurements an autotuning session has made so far, or
// configs proposed that nobody has measured (runtimes 0, as test files
// carry). Every fastslow command and numpy read the result.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/graph/graph.h"

namespace fastslow {

// config_feat: count x g.num_configurable() x g.config_feat_width values;
// runtimes: count values in ns (0 = not measured). The graph's own configs
// are not written. Throws Error naming `path` on sizes that do not fit.
void write_layout_graph(const std::string& path, const LayoutGraph& g, const std::vector<float>& config_feat,
                        const std::vector<int64_t>& runtimes);

// config_feat: count x g.config_feat_width values; runtimes and normalizers:
// count values each in ns (what tile configs are ranked by is their ratio).
void write_tile_graph(const std::string& path, const TileGraph& g, const std::vector<float>& config_feat,
                      const std::vector<int64_t>& runtimes, const std::vector<int64_t>& normalizers);

}  // namespace fastslow
