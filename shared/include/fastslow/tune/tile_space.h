// The tile configs a kernel may take beyond the ones its file measured. A
// published tile config is 24 values: three blocks (kernel, output and
// input bounds), each 6 per-dimension values then their sum and product.
// What the bounds mean on the chip is not published (real files hold
// kernel bounds of 1-12 and output bounds of 16-384; generated files hold
// tile sizes, synth/tile_configs.h), so the space keeps to what the file
// shows:
//   - a dimension is *free* when the file holds more than one value there;
//     the others keep the one value they always have (0 beyond the rank);
//   - each block's sum and product are recomputed from its dimensions when
//     every config of the file has them so (otherwise every column is a
//     dimension of its own);
//   - where every config of the file has an output bound at least its
//     kernel bound (same dimension), every config of the space does too.
//
// Three spaces, as `--space` names them:
//   menu   each free dimension takes a value the file holds for it;
//   sizes  also every power of two between the smallest and the largest
//          the file holds there: tile sizes no config measured, legal
//          wherever the file's own values are (a power of two no larger
//          than a dimension always is, on the TPU and in the generator);
//   shape  the bounds read as tile sizes of the kernel's output (the root
//          node's shape and layout in its features): every size the TPU
//          allows for each output dimension, kernel and output bounds alike
//          (powers of two, the extent itself, and multiples of 128 up to
//          1024 for the minor dim, of 8 up to 64 for the second-minor),
//          and for the contraction's tile the lane sizes up to the largest
//          the file holds. Only where every config of the file is such
//          sizes of one root's shape: the published real files' bounds are
//          not (kernel bounds of 1-12 on a 1024 x 768 output), so there it
//          is an error, and menu or sizes are the spaces to use.
//
// Mutations: step a tile size (one free dimension to the next value up or
// down), reset a dimension to its most common value, draw one anew;
// crossover takes each dimension from either parent. A change that breaks
// output >= kernel raises the output bound to the nearest legal value (or,
// when there is none, lowers the kernel bound).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/tune/search_space.h"

namespace fastslow {

struct TileDim {
  int col = 0;                // column of the config row
  std::vector<float> values;  // legal values, ascending
  float mode = 0;             // the file's most common value
};

// A root of the kernel (is_root in its features): its output's dims in
// logical order and its minor-to-major layout.
struct TileRoot {
  std::vector<int64_t> dims;
  std::vector<int> minor_to_major;
};
// The roots of a kernel whose node features are the published 140 (none
// otherwise).
std::vector<TileRoot> tile_roots(int64_t num_nodes, int64_t width, const std::vector<float>& node_feat);
// The TPU's tile sizes of a dim of this extent: powers of two up to it, the
// extent itself, and multiples of `unit` (128 lane, 8 sublane, 0 none) up
// to 8 x unit.
std::vector<float> tpu_tile_sizes(int64_t extent, int unit);

class TileConfigSpace : public ConfigSpace {
 public:
  // rows: the file's unique configs (count x width); weight: how often each
  // occurs (empty: once each); roots: the kernel's (shape space only).
  // Error on sizes that disagree, no config, a value that is not finite,
  // kind orders (a layout space), or a shape space that does not fit.
  TileConfigSpace(int64_t width, const std::vector<float>& rows, const std::vector<int64_t>& weight, SpaceKind kind,
                  const std::vector<TileRoot>& roots = {});

  SpaceKind kind() const { return kind_; }
  int64_t row_elems() const override { return width_; }
  // Dimensions a config may change.
  const std::vector<TileDim>& free_dims() const { return free_; }
  // Whether sums and products are recomputed (published, consistent rows).
  bool derived() const { return derived_; }

  // The first problem names the column (block and dimension).
  std::string why_illegal(const float* config) const override;
  std::vector<float> most_common() const override;
  void random_config(Rng& rng, float* out) const override;
  void mutate(const float* parent, Rng& rng, float* child) const override;
  void crossover(const float* a, const float* b, Rng& rng, float* child) const override;
  // Each combination of the free dims' values that keeps output >= kernel.
  int64_t for_each_config(int64_t limit, const std::function<void(const float*)>& visit) const override;

 private:
  // Shape space: what `allowed` becomes at the output's dims.
  void shape_sizes(const std::vector<float>& rows, int64_t count, const std::vector<TileRoot>& roots,
                   std::vector<std::vector<float>>& allowed) const;
  // Output >= kernel where the file keeps it, then sums and products.
  void repair(float* c) const;
  void fill_derived(float* c) const;
  std::string column_name(int col) const;
  const TileDim* free_at(int col) const;

  SpaceKind kind_;
  int64_t width_ = 0;
  bool derived_ = false;
  std::vector<float> fixed_;       // per column: the one value of a column that is not free
  std::vector<char> is_free_;      // per column
  std::vector<TileDim> free_;
  std::vector<int> paired_;        // dims i (0-5) whose output bound >= kernel bound in every file config
};

}  // namespace fastslow
