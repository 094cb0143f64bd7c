#include "tune/graph_out.h"

#include <cmath>

#include "fastslow/graph/graph_write.h"
#include "fastslow/io/npz_reader.h"

namespace fastslow::tune {
namespace {
constexpr double kTileScale = 1e6;
}

GraphOut::GraphOut(const std::string& graph_file) {
  LoadOptions lo;
  lo.config_features = false;
  const NpzReader npz = NpzReader::open(graph_file);
  if (detect_graph_kind(npz) == GraphKind::Tile) g_ = load_tile_graph(npz, lo);
  else g_ = load_layout_graph(npz, lo);
}

void GraphOut::write(const std::string& path, const std::vector<float>& rows, const std::vector<double>& values) const {
  std::vector<int64_t> rt;
  if (const auto* tile = std::get_if<TileGraph>(&g_)) {
    for (double v : values) rt.push_back(static_cast<int64_t>(std::llround(v * kTileScale)));
    write_tile_graph(path, *tile, rows, rt, std::vector<int64_t>(values.size(), static_cast<int64_t>(kTileScale)));
    return;
  }
  for (double v : values) rt.push_back(static_cast<int64_t>(std::llround(v)));
  write_layout_graph(path, std::get<LayoutGraph>(g_), rows, rt);
}

}  // namespace fastslow::tune
