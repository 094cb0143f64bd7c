// What a layout config's values refer to. A configurable node's 18 config
// values are three minor-to-major orders (its output, its operand 0 =
// "input", its operand 1 = "kernel"), each a permutation of dimension
// indices. Whether a choice is cheap depends on the shapes those indices
// point into (a TPU pads the minor-most dim to 128 lanes and the
// second-minor to 8 sublanes) and on the layouts the neighbouring tensors
// have (a mismatch is a relayout copy). Both facts sit in other nodes'
// feature columns, out of reach of a per-node model, so the core gathers
// them once per graph into a small table per configurable node; the models
// combine it with the config values (models/layout_tiling.h).
//
// Only files with the published 140 node feature columns say where shapes
// and layouts are; for others (e.g. files with constant columns removed)
// the table says "unknown": dims 0, layouts -1, no configurable producers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastslow {

struct LayoutContext {
  static constexpr int kSlots = 6;
  // Per configurable node, kWidth values (float, so it travels as one
  // tensor): three blocks of kTensorWidth, one per tensor a config orders
  // (the node's output, operand 0, operand 1), each
  //   [0, 6)   dims (0 beyond the rank)
  //   [6, 12)  minor-to-major layout as built (-1 beyond the rank)
  //   12       element size in bits (element_size_in_bits, or where the
  //            file leaves it 0, as every published file does, the
  //            element type's)
  //   13, 14   the dim the node's op wants minor-most, second-minor (-1:
  //            no preference known): a convolution reads its feature dims
  //            along the lanes, a dot writes its last dim there
  //   15       a dim the op wants out of the two minor-most slots (a
  //            convolution's batch dim)
  // then operand 0's and operand 1's index among the configurable nodes
  // (-1 when not configurable or absent).
  static constexpr int kTensorWidth = 16, kDims = 0, kLayout = 6, kBits = 12, kPrefer0 = 13, kPrefer1 = 14,
                       kAvoid = 15;
  static constexpr int kOutput = 0, kInput = kTensorWidth, kKernel = 2 * kTensorWidth;
  static constexpr int kInProducer = 3 * kTensorWidth, kKernelProducer = kInProducer + 1;
  static constexpr int kWidth = kKernelProducer + 1;
  // Raised whenever what the table holds for a given file changes, so that a
  // model trained on the old table is refused instead of fed the new one
  // (its weights were fitted to what the old table said). Runs (stats.json)
  // and model cards record it; those of builds before it was recorded have
  // none, and may be of version 1. 1: element bits from element_size_in_bits
  // alone, which every published file leaves 0, so the models' byte terms
  // were 0. 2: from the element type there.
  static constexpr int kVersion = 2;

  int64_t num_config_nodes = 0;
  bool known = false;        // the feature columns were found
  std::vector<float> values;  // num_config_nodes x kWidth
};

// Whether a model reads this table beside its config values: layout
// `focus` on the published 18 config values per node (models/layout_focus.h).
// The trainer, the exporter and the model card reader all ask here.
bool model_reads_layout_context(bool layout, const std::string& model, int64_t config_feat_width);

// Throws Error naming `what` (the run's stats.json or the model card) unless
// `recorded` (0: none recorded) is LayoutContext::kVersion. A model of
// files without the published node-feature columns (node_feat_width) always
// read the "unknown" table, which no version changed: never refused.
void check_layout_context_version(int64_t recorded, int64_t node_feat_width, const std::string& what);

// The table of nc nodes about which nothing is known.
LayoutContext unknown_layout_context(int64_t num_config_nodes);

// node_feat: raw (not normalised) num_nodes x width rows; node_opcode: one
// HLO opcode id per node; edge_index rows
// [u, v] (u consumes v) in file order, which is operand order;
// config_positions: the configurable nodes' indices. Throws Error on edges
// or positions outside the graph.
LayoutContext layout_context(int64_t num_nodes, int64_t node_feat_width, const std::vector<float>& node_feat,
                             const std::vector<int32_t>& node_opcode, const std::vector<int64_t>& edge_index,
                             const std::vector<int64_t>& config_positions);

}  // namespace fastslow
