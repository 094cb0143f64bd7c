// The generator's ground truth for tile data: a noise-free runtime in ns of a
// fused kernel under a tile config (tile_configs.h says what the columns
// mean). A roofline-style model of one TPU core, simple enough to check by
// hand, with the effects that make tile choice matter on real hardware.
//
// Machine constants (all in the .cpp, named as here):
//   kVpuOpsPerNs   2048     vector-unit element ops per ns
//   kMxuFlopsPerNs 100000   bf16 matrix-unit flops per ns (f32: 25000)
//   kHbmBytesPerNs 1200     HBM bandwidth
//   kLaunchNs      1000     fixed cost of launching the kernel
//   kStepNs        100      fixed cost of one kernel step (loop trip, sync)
//   kDmaNs         300      fixed cost of one block DMA (per stream per block)
//   kOnChipBytes   16 MiB   on-chip memory for the working set
//
// Notation: per iteration dim i, extent D_i, kernel tile k_i; per output dim,
// output block T_i. Steps along an output dim:
//   steps_i = (D_i / T_i) * ceil(T_i / k_i) + ceil((D_i mod T_i) / k_i)
// (each block is cut into kernel steps; the last block may be partial); along
// the contraction, steps = ceil(K / k_K). pad(k) rounds a lane tile up to
// 128, a sublane tile up to 8, and leaves a major tile alone.
//
// Terms (TileCostTerms):
//   compute = vpu_ops / kVpuOpsPerNs + mxu_flops / mxu_rate
//             + (once_bytes + lhs_bytes * lhs_reads + rhs_bytes * rhs_reads) / kHbmBytesPerNs
//     where lhs_reads = product over rhs-side output dims of ceil(D_i / T_i)
//     (the lhs panel is fetched again for every block along the rhs side) and
//     rhs_reads likewise over lhs-side dims. Useful work, plus the re-reads
//     small output blocks imply.
//   padding_waste = w * (vpu time + mxu time + hbm time / 2),
//     w = product_i(steps_i * pad(k_i)) / product_i(D_i) - 1 over iteration
//     dims: the remainder of a last tile that does not divide its dim and the
//     lane / sublane padding inside every tile are computed for nothing, and
//     their partial DMAs lose about half their bandwidth.
//   per_tile_overhead = kLaunchNs + kStepNs * total steps
//                       + kDmaNs * output blocks * streams,
//     streams = 1 (output) + same-shaped streamed inputs + 2 if contracting:
//     tiny tiles pay this many times.
//   spill = 0 when working set <= kOnChipBytes, else
//           3 * (working set / kOnChipBytes) * (compute + padding_waste):
//     the tile no longer fits on chip and round-trips through HBM.
//   working set = 2 (double buffering) * bytes of: the output block (padded)
//     with its streamed inputs, the reduction's streamed input slab
//     (block x k_K), and the lhs / rhs panels (their side's block dims x k_K).
#pragma once

#include "fastslow/synth/hlo.h"
#include "fastslow/synth/tile_configs.h"

namespace fastslow::synth {

constexpr double kOnChipBytes = 16.0 * 1024 * 1024;

struct TileCostTerms {
  double compute = 0, padding_waste = 0, per_tile_overhead = 0, spill = 0;
  double total() const { return compute + padding_waste + per_tile_overhead + spill; }
};

// Throws fastslow::Error if the config is not legal for `s` (check_tile_config).
TileCostTerms tile_cost_terms(const HloGraph& kernel, const TileSpace& s, const float* config24);
double tile_runtime(const HloGraph& kernel, const TileSpace& s, const float* config24);
// Runtime of default_tile_config: the file's config_runtime_normalizers value.
double tile_normalizer(const HloGraph& kernel, const TileSpace& s);

// The on-chip bytes a config needs (see "working set" above).
double tile_working_set(const TileSpace& s, const float* config24);

}  // namespace fastslow::synth
