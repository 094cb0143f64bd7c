// A noise-free runtime model for layout configs (layout_configs.h): the
// synthetic stand-in for measuring a compiled graph on a TPU. It is simple
// enough to check by hand and has several interacting terms, so ranking
// configs takes learning but is possible.
//
// Runtime (ns) is a sum over nodes. Constants: HBM bandwidth kBytesPerNs,
// matrix throughput kFlopsPerNs, a per-op launch overhead kOpOverheadNs.
// Bytes are element bytes (element_bits / 8) times element counts; tuple,
// token and scalar tensors move no config-dependent bytes.
//
// TPU tiling. A tensor lives in (8 sublanes x 128 lanes) tiles: its
// minor-most dimension is rounded up to 128, its second-minor to 8:
//   padded(dims, L) = ceil(d[L0]/128)*128 * ceil(d[L1]/8)*8 * prod(other dims)
// (rank 1: ceil(d/128)*128; rank 0: 1). L is minor-to-major, L0 the minor-most.
//
// Terms (LayoutCostTerms):
//  compute      Config independent. Every node: kOpOverheadNs + flops/kFlopsPerNs
//               + real bytes moved/kBytesPerNs, where bytes moved are the output
//               plus each distinct array operand, and flops are 2*out*K for dot
//               (K = product of contracting dims) and conv (K = kernel spatial
//               size * kernel input features), one per output element for
//               other ops. Exceptions: reshape's compute is only the overhead
//               (its data movement is under copies), and nodes inside nested
//               computations still count (they stand for the fused work).
//  padding      (padded - real) bytes / kBytesPerNs of every array tensor a
//               convolution or dot reads or writes (output, input, kernel) in
//               its configured layout, plus the input and output of a reshape
//               that moves data (see copies): tile waste is bytes moved.
//  copies       Layout changes. (a) Each array edge producer -> consumer where the
//               producer's output layout (configured for configurable producers,
//               the built layout otherwise) differs from what the consumer wants
//               (a configurable consumer's input layout for operand 0, kernel
//               layout for operand 1 of conv/dot; otherwise the producer's built
//               layout) needs a copy: kCopyFactor * (padded bytes in the old
//               layout + padded bytes in the new) / kBytesPerNs, times
//               kLaneTransposeFactor when the minor-most dim changes (a
//               transpose across lanes) or kSublaneShuffleFactor when only the
//               second-minor one does; permuting major dims is a plain strided
//               copy. Consumers that want the same layout of the same producer
//               share one copy.
//               (b) A reshape is a free bitcast when both its input and output
//               layouts are row-major (ignoring size-1 dims); otherwise it moves
//               its data: real input + output bytes / kBytesPerNs (their tile
//               waste goes to padding).
//               Layouts are compared on the dims larger than 1 only: moving a
//               size-1 dim does not move data.
//  kernel_pref  Convolution and dot run best with preferred layouts; each
//               violated preference multiplies the node's compute (overhead
//               + flops + real bytes) by (1 + penalty); kernel_pref is
//               compute * (product of factors - 1). Preferences:
//                 conv input:  feature dim minor-most               +0.6
//                              batch dim not in the two minor-most  +0.3
//                 conv kernel: output feature minor-most            +0.4
//                              input feature second-minor           +0.25
//                 conv output: feature dim minor-most               +0.5
//                 dot lhs:     a contracting dim minor-most         +0.5
//                              no batch dim in the two minor-most   +0.3
//                 dot rhs:     minor-most is a free (non-contracting,
//                              non-batch) dim                       +0.4
//                              second-minor is a contracting dim    +0.2
//                 dot output:  last (rhs free) dim minor-most       +0.3
//               Rules needing a second-minor dim apply to rank >= 2 only;
//               rules about dims that do not exist (no batch dims, ...) hold.
//
// The row-major layouts XLA builds by default satisfy these preferences for
// NHWC convs and [.., m, k] x [.., k, n] dots and need no copies, which is
// why default_layout_config is a good config.
#pragma once

#include "fastslow/synth/hlo.h"
#include "fastslow/synth/layout_configs.h"

namespace fastslow::synth {

constexpr double kBytesPerNs = 1.2;       // ~1.2 TB/s HBM (TPU v4 class)
constexpr double kFlopsPerNs = 1.0e5;     // ~100 TFLOP/s sustained
constexpr double kOpOverheadNs = 100.0;   // per-op launch and pipeline fill
constexpr double kCopyFactor = 1.0;       // a copy is a read plus a write
constexpr double kLaneTransposeFactor = 4.0;   // minor-most dim moves: through the transpose unit
constexpr double kSublaneShuffleFactor = 2.0;  // second-minor dim moves: sublane shuffles

struct LayoutCostTerms {
  double compute = 0, padding = 0, copies = 0, kernel_pref = 0;
  double total() const { return compute + padding + copies + kernel_pref; }
};

// config: nodes x 18 floats for the nodes of s, in s.nodes order. Throws
// fastslow::Error on a layout that is not a -1-padded permutation of its rank.
LayoutCostTerms layout_cost_terms(const HloGraph& g, const LayoutSpace& s, const float* config);
double layout_runtime(const HloGraph& g, const LayoutSpace& s, const float* config);

}  // namespace fastslow::synth
