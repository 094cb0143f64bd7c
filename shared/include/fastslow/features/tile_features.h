// Derived features of a tile config: what the tiling does to the kernel's
// output. A tile config gives a kernel tile (one loop step) and an output
// block (one DMA) per output dim; what a step costs follows from how they
// divide the output's extents and how they pad to the TPU's 8 x 128 tiles.
// A model that sees the 24 published columns and a node sum has to learn
// division; these hand it the log counts and padding factors instead. The
// core computes them so that the trainer, `fastslow rank` and the page
// feed a model the same numbers: they are appended to the published
// columns (the model's config_feat_width is 24 + kTileDerived).
//
// The columns are read as the generator reads them (synth/tile_configs.h):
// kernel bounds per output dim in logical order, then the contracted
// extent's tile; output bounds per output dim. The output is the root node's
// (is_root), with its dims and minor-to-major layout from the published
// node feature columns; files without those columns get zeros.
//
// Per output dim i (6 slots, zeros beyond the rank), with extent D, block t,
// kernel tile k and padding unit u (128 for the minor-most dim, 8 for the
// second-minor one, 1 else):
//   log2 ceil(D / t)          blocks along i
//   log2 ceil(t / k)          kernel steps per block
//   log2 (ceil(k/u)*u / k)    padding of the kernel tile
// then: the contracted tile's lane padding, log2(1 + its size), log2 of
// the kernel steps over the output, log2 of executed over useful elements
// (padding and ragged blocks), log2(1 + padded block elements), and how far
// the block's bytes (double-buffered, 4-byte elements) exceed a 16 MiB
// on-chip memory, in log2 (0 when they fit).
#pragma once

#include <cstdint>
#include <vector>

namespace fastslow {

constexpr int64_t kTileConfigColumns = 24;  // published: kernel, output, input bounds
constexpr int64_t kTileDerived = 24;

struct TileContext {
  static constexpr int kSlots = 6;
  bool known = false;
  int rank = 0;
  int64_t dims[kSlots] = {};
  int64_t unit[kSlots] = {1, 1, 1, 1, 1, 1};  // padding unit per output dim
};

// From a tile graph's node features (num_nodes x width, as in the file).
TileContext tile_context(int64_t num_nodes, int64_t width, const std::vector<float>& node_feat);

// One config: 24 published values -> kTileDerived features in out.
void tile_features(const TileContext& c, const float* config, float* out);

// count rows of 24 -> count rows of 24 + kTileDerived (published, then derived).
std::vector<float> with_tile_features(const TileContext& c, const std::vector<float>& rows, int64_t count);

}  // namespace fastslow
