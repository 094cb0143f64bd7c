// Tile configurations of a fused kernel, as the 24 published tile config
// features describe them (DATA.md): kernel bounds, output bounds, input
// bounds, each 6 per-dimension values then their sum and product.
//
// What the columns mean here (the published data does not say, so the
// generator fixes one reading and keeps to it):
// - kernel bounds: the tile of one kernel step (one trip of the innermost
//   loop body): one value per output dimension in logical order, then, when
//   the kernel contracts or reduces, the tile of the contracted extent.
// - output bounds: the block of the output kept on chip and written back as
//   one DMA; one value per output dimension, each >= the kernel bound of that
//   dimension (a block holds one or more kernel steps).
// - input bounds: always 0, as in most published rows.
// Per-dimension values are 0 beyond the rank; sum and product are 0 when the
// block has no dimension (the node-feature convention of features.h).
//
// Legal tile sizes for a dimension of extent D (TPU tiling rules):
//   every size is <= D, and D itself is always legal;
//   lane (the layout's minor dim, and the contracted extent): powers of two
//     and multiples of 128 up to 1024;
//   sublane (the layout's second-minor dim): powers of two and multiples of 8
//     up to 64;
//   other dims: powers of two.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/synth/hlo.h"
#include "fastslow/rng.h"

namespace fastslow::synth {

constexpr int kTileConfigWidth = 24;
constexpr int kTileKernelCol = 0, kTileOutputCol = 8, kTileInputCol = 16;

// Padding unit of a tiled dimension inside a tile.
enum class TileRole { Major = 1, Sublane = 8, Lane = 128 };

// What the tiling and cost model need to know about a kernel, read once from
// its HloGraph.
struct TileSpace {
  std::vector<int64_t> out_dims;    // the root's output shape, logical order
  std::vector<int> minor_to_major;  // the root's layout
  int64_t contract = 0;             // extent of the contracted / reduced dim, 0 if none
  std::vector<int64_t> iter_dims;   // what kernel bounds tile: out_dims, then contract if > 0
  std::vector<TileRole> roles;      // per iter dim
  // Per output dim, which contraction operand it indexes: 0 both / none
  // (batch, elementwise), 1 only the lhs (dot rows, conv batch and spatial),
  // 2 only the rhs (dot columns, conv output features). An output block
  // re-reads the operand it does not index once per block along the other side.
  std::vector<int> side;
  int elem_bytes = 4;               // of the output element type
  bool bf16 = false;                // contraction runs at the bf16 MXU rate

  // Useful work, independent of the tiling.
  double vpu_ops = 0;     // vector-unit element ops, transcendentals weighted x4
  double mxu_flops = 0;   // 2 x multiply-adds of dots and convolutions
  double lhs_bytes = 0, rhs_bytes = 0;  // contraction operands (re-read per block)
  double once_bytes = 0;  // every other input, plus the output: moved once
  // Bytes per block element of the inputs streamed block by block with the
  // output (same-shaped elementwise inputs), and per block x contract element
  // of a reduction's streamed inputs. They size the on-chip working set.
  double out_stream_bytes = 0, in_stream_bytes = 0;
  int streams = 1;        // DMA streams per output block: output, streamed inputs, operands

  int out_rank() const { return static_cast<int>(out_dims.size()); }
  int iter_rank() const { return static_cast<int>(iter_dims.size()); }
};

// Reads the root (the kernel's single output), its contraction if any, and
// the work of every node. Throws fastslow::Error when the root has rank > 5
// (kernel bounds need one more column than the rank for the contraction).
TileSpace tile_space(const HloGraph& kernel);

// The legal tile sizes of iteration dim `dim` (ascending, unique).
std::vector<int64_t> tile_sizes(const TileSpace& s, int dim);

// `count` x 24, row-major. Kernel bounds: per dim the larger of two uniform
// draws from the legal sizes; output bounds uniform over the legal sizes >=
// the kernel bound.
std::vector<float> sample_tile_configs(const HloGraph& kernel, const TileSpace& s, int64_t count, Rng& rng);

// The compiler's default: lane tiles up to 512 and sublane tiles up to 256
// that divide the dim, the contraction up to 512, the widest of them shrunk
// while the working set exceeds an eighth of on-chip memory, then major dims
// grown while it stays under that; the output block equals the kernel tile.
// Reasonable, not optimal.
std::vector<float> default_tile_config(const HloGraph& kernel, const TileSpace& s);

// Empty if `config24` is a legal config for `s`, else what is wrong.
std::string check_tile_config(const TileSpace& s, const float* config24);

// Fills the 24 columns from per-dim kernel tiles (iter_rank values) and
// output blocks (out_rank values).
std::vector<float> make_tile_config(const TileSpace& s, const std::vector<int64_t>& kernel_tile,
                                    const std::vector<int64_t>& output_block);

}  // namespace fastslow::synth
