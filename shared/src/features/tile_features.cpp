#include "fastslow/features/tile_features.h"

#include <cmath>
#include <string>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"

namespace fastslow {
namespace {

constexpr int kKernelCol = 0, kOutputCol = 8;
constexpr double kOnChipBytes = 16.0 * 1024 * 1024;

int64_t value(float v) { return v > 0.0f ? static_cast<int64_t>(std::llround(v)) : 0; }
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t padded(int64_t v, int64_t unit) { return ceil_div(v, unit) * unit; }
float log2f_of(double v) { return static_cast<float>(std::log2(v)); }

}  // namespace

TileContext tile_context(int64_t num_nodes, int64_t width, const std::vector<float>& node_feat) {
  TileContext c;
  if (width != static_cast<int64_t>(node_feature_names().size()) || num_nodes <= 0) return c;
  if (static_cast<int64_t>(node_feat.size()) != num_nodes * width)
    throw Error("tile context: " + std::to_string(node_feat.size()) + " feature values for " +
                std::to_string(num_nodes) + " nodes x " + std::to_string(width));
  const int root_col = require_node_feature("is_root");
  const int dims_col = require_node_feature("shape_dimensions_0");
  const int layout_col = require_node_feature("layout_minor_to_major_0");
  int64_t root = -1;
  for (int64_t n = 0; n < num_nodes; ++n)
    if (node_feat[static_cast<size_t>(n * width + root_col)] > 0.5f) root = n;  // the last, as XLA's ROOT
  if (root < 0) return c;
  const float* row = node_feat.data() + root * width;
  while (c.rank < TileContext::kSlots && value(row[dims_col + c.rank]) > 0) {
    c.dims[c.rank] = value(row[dims_col + c.rank]);
    ++c.rank;
  }
  if (c.rank == 0) return c;
  c.known = true;
  auto dim_at = [&](int slot) { return static_cast<int>(std::llround(row[layout_col + slot])); };
  const int minor = dim_at(0);
  if (minor >= 0 && minor < c.rank) c.unit[minor] = 128;
  if (c.rank > 1) {
    const int second = dim_at(1);
    if (second >= 0 && second < c.rank && second != minor) c.unit[second] = 8;
  }
  return c;
}

void tile_features(const TileContext& c, const float* config, float* out) {
  for (int64_t i = 0; i < kTileDerived; ++i) out[i] = 0.0f;
  if (!c.known) return;
  constexpr int S = TileContext::kSlots;
  double log_steps = 0, log_waste = 0, block_elems = 1;
  for (int i = 0; i < c.rank; ++i) {
    const int64_t d = c.dims[i], t = value(config[kOutputCol + i]), k = value(config[kKernelCol + i]);
    if (t <= 0 || k <= 0) continue;  // not a tiled dim in this file's reading: leave it out
    out[i] = log2f_of(static_cast<double>(ceil_div(d, t)));
    out[S + i] = log2f_of(static_cast<double>(ceil_div(t, k)));
    out[2 * S + i] = log2f_of(static_cast<double>(padded(k, c.unit[i])) / static_cast<double>(k));
    // Full blocks take ceil(t/k) steps, a ragged last block ceil((d mod t)/k).
    const int64_t steps = (d / t) * ceil_div(t, k) + (d % t ? ceil_div(d % t, k) : 0);
    log_steps += std::log2(static_cast<double>(steps));
    log_waste += std::log2(static_cast<double>(steps * padded(k, c.unit[i])) / static_cast<double>(d));
    block_elems *= static_cast<double>(padded(t, c.unit[i]));
  }
  // The contracted tile follows the output dims; a rank-6 output leaves it
  // no slot (column 6 holds the bounds' sum).
  const int64_t kc = c.rank < TileContext::kSlots ? value(config[kKernelCol + c.rank]) : 0;
  if (kc > 0) {
    out[3 * S] = log2f_of(static_cast<double>(padded(kc, 128)) / static_cast<double>(kc));
    out[3 * S + 1] = log2f_of(1.0 + static_cast<double>(kc));
  }
  out[3 * S + 2] = static_cast<float>(log_steps);
  out[3 * S + 3] = static_cast<float>(log_waste);
  out[3 * S + 4] = log2f_of(1.0 + block_elems);
  out[3 * S + 5] = static_cast<float>(std::max(0.0, std::log2(2.0 * 4.0 * block_elems / kOnChipBytes)));
}

std::vector<float> with_tile_features(const TileContext& c, const std::vector<float>& rows, int64_t count) {
  if (count < 0 || static_cast<int64_t>(rows.size()) != count * kTileConfigColumns)
    throw Error("tile features: " + std::to_string(rows.size()) + " values are not " + std::to_string(count) +
                " configs of " + std::to_string(kTileConfigColumns));
  constexpr int64_t W = kTileConfigColumns + kTileDerived;
  std::vector<float> out(static_cast<size_t>(count * W));
  for (int64_t r = 0; r < count; ++r) {
    const float* in = rows.data() + r * kTileConfigColumns;
    float* o = out.data() + r * W;
    std::copy(in, in + kTileConfigColumns, o);
    tile_features(c, in, o + kTileConfigColumns);
  }
  return out;
}

}  // namespace fastslow
