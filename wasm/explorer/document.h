// One opened .npz as the explorer holds it: the file's bytes (the only copy
// the page keeps: the archive is read where they lie, config rows on
// demand), the graph, its drawing, its config groups and runtimes. No ImGui,
// no GL: the views read it.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fastslow/graph/adjacency.h"
#include "fastslow/graph/dedup.h"
#include "fastslow/graph/graph.h"
#include "fastslow/graph/graph_info.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/view/graph_drawing.h"

namespace fastslow::explorer {

// Bytes malloc'd by JS and handed over (explorer_open): freed with free().
struct FreeBytes {
  void operator()(uint8_t* p) const { std::free(p); }
};
using MallocBytes = std::unique_ptr<uint8_t, FreeBytes>;

struct Document {
  std::string name;
  MallocBytes bytes;  // the file; declared before npz, which reads it, so it outlives it
  std::shared_ptr<NpzReader> npz;
  GraphInfo info;
  GraphKind kind = GraphKind::Layout;
  GraphNodes graph;                      // nodes, features, opcodes, edges
  std::vector<int64_t> config_nodes;     // layout: node ids of the configurable nodes
  std::vector<int8_t> configurable;      // per node
  std::vector<int64_t> node_splits;      // layout: first node of each computation (computation_starts)
  std::vector<int32_t> computation;      // per node: index of its computation (0 without splits)
  std::vector<double> runtime;           // per config: what configs rank by (empty in test files)
  ConfigGroups groups;
  bool layout_values_only = true;  // what a ranking's preparation reuses (graph_cache.h)
  GraphDrawing drawing;
  // Neighbours per node (CSR): producers (operands) and users.
  std::vector<int64_t> in_ptr, out_ptr;
  std::vector<int32_t> in_idx, out_idx;
  double load_ms = 0, layout_ms = 0;

  // Config c's row (tile [Fc]; layout [configurable nodes x Fc]), as the
  // views show it. Rows are read in blocks of 128 configs and kept: a
  // deflated array is inflated from its start up to the rows asked for, so a
  // table scrolled far down reads once per block, not once per row and frame.
  // Throws Error naming the file for a config out of range.
  const std::vector<float>& config_row(int64_t c) const;
  int64_t config_width() const { return info.config_feat_width; }

 private:
  mutable std::map<int64_t, std::vector<float>> row_cache_;  // this document's rows only
};

// Opens the `size` bytes at `bytes` (taken over: freed with the document, or
// here when the file fails). Throws fastslow::Error naming the file on
// anything wrong with it. Without `for_view` the neighbour lists and the
// drawing are left empty: a file only compared with the open one needs
// neither.
std::unique_ptr<Document> open_document(std::string name, MallocBytes bytes, size_t size, bool for_view = true);

}  // namespace fastslow::explorer
