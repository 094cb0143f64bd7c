// A noise-free runtime model for layout configs (layout_configs.h): the
// synthetic stand-in for measuring a compiled graph on a TPU, calibrated so
// that its runtimes look like the real ones (`fastslow realism`): a plateau
// with a tail. Most layout choices cost next to nothing, because XLA fuses
// a relayout into the neighbouring kernel and small tensors never leave
// on-chip memory; a few cost a lot: a relayout that cannot be fused, tile
// padding of a large tensor, a matrix unit fed along a short dimension.
//
// Runtime (ns) is a sum over nodes. Constants: HBM bandwidth kBytesPerNs,
// matrix throughput kFlopsPerNs, a per-op launch overhead kOpOverheadNs.
// Bytes are element bytes (element_bits / 8) times element counts; tuple,
// token and scalar tensors move no config-dependent bytes.
//
// Layouts. A config names each tensor's minor-most dims (conv/dot: the two
// minor-most; reshape: the whole order); the rest of the order is the
// tensor's built order without the named dims, and a layout of all -1 is
// the built order. Non-configurable nodes keep their built layouts, and a
// non-configurable consumer wants its operands in their built layouts.
//
// TPU tiling. A tensor lives in (8 sublanes x 128 lanes) tiles: its
// minor-most dimension is rounded up to 128, its second-minor to 8:
//   padded(dims, L) = ceil(d[L0]/128)*128 * ceil(d[L1]/8)*8 * prod(other dims)
// (rank 1: ceil(d/128)*128; rank 0: 1). L is minor-to-major, L0 the minor-most.
//
// Where a config's layout sticks. XLA fuses an op into its fusible users
// and chooses the intermediate's layout itself, so a configured layout only
// binds a tensor that is *pinned*: a computation's root, used in another
// computation, used by several ops (XLA does not recompute it in each), or
// used by a fusion barrier (a convolution, dot, reduce, tuple, while ...).
// Effects on tensors that
// are not pinned are scaled by kFusedCopyShare (memory) or kFusedMxuShare
// (the matrix unit), except for a *starved* tensor: one too large for
// on-chip memory (> kOnChipLayoutBytes) whose minor-most dim is tiny
// (<= kTinyLane): most of every tile it fills is padding, fused or not.
//
// Terms (LayoutCostTerms), each relative to the built layouts:
//  compute  Config independent. Every node: kOpOverheadNs + flops/kFlopsPerNs
//           + real bytes moved/kBytesPerNs, where bytes moved are the output
//           plus each distinct array operand, and flops are 2*out*K for dot
//           (K = product of contracting dims) and conv (K = kernel spatial
//           size * kernel input features), one per output element for other
//           ops. Reshape's compute is only the overhead (its data movement
//           is under copies); nodes inside fusion bodies count their flops only.
//  padding  Tile padding a configured output layout adds to (or saves
//           from) the built layout's, written once and read by each user:
//           padded bytes x passes / kBytesPerNs. Operands are read as they
//           are stored (their producer's padding), through a copy where the
//           op names another order.
//  copies   (a) Each array edge producer -> consumer where the consumer
//           wants another physical order than the producer stores (size-1
//           dims left out: moving them moves no data) needs a relayout:
//           (padded bytes in the old layout + in the new) / kBytesPerNs,
//           times kLaneTransposeFactor when the minor-most dim changes (a
//           transpose across lanes) or kSublaneShuffleFactor when only the
//           second-minor one does; times kFusedCopyShare when the producer
//           or the consumer is fusible (elementwise, data movement, a
//           fusion) or the producer is a program parameter or constant. A
//           convolution or dot reads an operand whose two minor-most dims
//           are only swapped for free: the matrix unit loads it transposed;
//           nor does it need a copy that only moves a dim of at most
//           kTinyLane elements (a batch of 2): its loads stride over it.
//           Consumers that want the same layout of one producer share one
//           copy, made in full if any of them needs it so.
//           (b) A reshape is a free bitcast when both its input and output
//           layouts are row-major; otherwise it moves its data: real input +
//           output bytes / kBytesPerNs (times kFusedCopyShare where its
//           output is not pinned).
//           (c) A convolution whose output is stored with a spatial dim
//           minor-most (spatial dims of at most kTinyLane elements left
//           out) writes its result across the lanes: kLaneTransposeFactor x
//           padded output bytes / kBytesPerNs (times kFusedCopyShare where
//           its output is not pinned). Its matrix-unit columns are its
//           features or its batch; no real file's convolution is stored so.
//  mxu      A convolution or dot whose matrix-unit columns are a short dim
//           feeds the 128-wide unit partly empty, by a slowdown of
//           min(kMaxMxuSlowdown, 1 / efficiency - 1), where efficiency =
//           d / (ceil(d/128)*128) of the columns' dim d: flops /
//           kFlopsPerNs x (slowdown as configured - as built). The columns
//           are the output's minor-most physical dim (a dot's operands can
//           swap roles), but a convolution stored spatial-minor (c) keeps
//           its feature or batch dim, whichever lies minor-most. Negative
//           when the config puts a longer dim there than built.
//
// The constants are calibrated against the real files (`fastslow realism`,
// scripts/bench.sh realism): on generated `small` data of seeds 0-2 every
// layout collection's median share of configs within 1 % of the best lay
// in 35-91 % and its median max/min in 1.02-1.04 (real: 55-92 %, 1.016-5.4)
// before the U-Net training steps joined the xla collections. Those
// plateau less: over seeds 0-2 an xla:random U-Net graph's median share
// within 1 % is 6 % and within 5 % 35 % (real unet3d: 58 % and 92 %; 1 %
// and 6 % before matrix operands strided over tiny dims);
// layout:xla:random's median is 19-29 % per seed (the rest as before).
#pragma once

#include "fastslow/synth/hlo.h"
#include "fastslow/synth/layout_configs.h"

namespace fastslow::synth {

constexpr double kBytesPerNs = 1200.0;    // 1.2 TB/s HBM (TPU v4 class): 1,200 bytes per ns
constexpr double kFlopsPerNs = 1.0e5;     // ~100 TFLOP/s sustained
constexpr double kOpOverheadNs = 100.0;   // per-op launch and pipeline fill
constexpr double kOnChipLayoutBytes = 1.0 * (1 << 20);  // tensors this small stay in on-chip memory
constexpr double kFusedCopyShare = 0.02;  // memory effects XLA folds into a fused kernel
constexpr double kLaneTransposeFactor = 4.0;   // minor-most dim moves: through the transpose unit
constexpr double kSublaneShuffleFactor = 2.0;  // second-minor dim moves: sublane shuffles
constexpr double kMaxMxuSlowdown = 3.0;   // a starved matrix unit at most quadruples an op
constexpr double kFusedMxuShare = 0.35;    // a fused op's emitter re-tiles the rest
constexpr int64_t kTinyLane = 3;          // a minor-most dim this short starves the vector units

struct LayoutCostTerms {
  double compute = 0, padding = 0, copies = 0, mxu = 0;
  double total() const { return compute + padding + copies + mxu; }
};

// config: nodes x 18 floats for the nodes of s, in s.nodes order. Throws
// fastslow::Error on a layout that is not a -1-padded list of distinct dims
// of its tensor.
LayoutCostTerms layout_cost_terms(const HloGraph& g, const LayoutSpace& s, const float* config);
double layout_runtime(const HloGraph& g, const LayoutSpace& s, const float* config);

// The whole minor-to-major order a (possibly partial) layout stands for:
// the named dims, then the rest of `built` in its order; empty = built.
std::vector<int> complete_layout(const std::vector<int>& named, const std::vector<int>& built);

}  // namespace fastslow::synth
