// One opened .npz as the explorer holds it: the archive (its bytes owned
// here, config rows read on demand), the graph, its drawing, its config
// groups and runtimes. No ImGui, no GL: the views read it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fastslow/data/dedup.h"
#include "fastslow/graph/graph.h"
#include "fastslow/graph/graph_info.h"
#include "fastslow/view/graph_drawing.h"
#include "fastslow/io/npz_reader.h"

namespace fastslow::explorer {

struct Document {
  std::string name;
  std::shared_ptr<NpzReader> npz;
  GraphInfo info;
  GraphKind kind = GraphKind::Layout;
  GraphNodes graph;                      // nodes, features, opcodes, edges
  std::vector<int64_t> config_nodes;     // layout: node ids of the configurable nodes
  std::vector<int8_t> configurable;      // per node
  std::vector<int64_t> node_splits;      // layout: first node of each computation
  std::vector<int32_t> computation;      // per node: index of its computation (0 without splits)
  std::vector<double> runtime;           // per config: what configs rank by (empty in test files)
  ConfigGroups groups;
  GraphDrawing drawing;
  // Neighbours per node (CSR): producers (operands) and users.
  std::vector<int64_t> in_ptr, out_ptr;
  std::vector<int32_t> in_idx, out_idx;
  double load_ms = 0, layout_ms = 0;

  // Rows of configs [begin, end): each tile [Fc]; layout [configurable nodes x Fc].
  std::vector<float> config_rows(int64_t begin, int64_t end) const;
  int64_t config_width() const { return info.config_feat_width; }
};

// Throws fastslow::Error naming the file on anything wrong with it.
std::unique_ptr<Document> open_document(std::string name, std::vector<uint8_t> bytes);

}  // namespace fastslow::explorer
