// Typed TpuGraphs samples. Loading accepts both the documented dtypes and the
// ones the published files really hold (DATA.md), converts them to one
// in-memory form, and checks that array shapes agree; content checks (ranges,
// finiteness) are in validate.h.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "fastslow/io/npz_reader.h"

namespace fastslow {

enum class GraphKind { Tile, Layout };
const char* graph_kind_name(GraphKind kind);  // "tile" | "layout"
// The kind a word names; Error naming `what` for any other word.
GraphKind parse_graph_kind(const std::string& word, const std::string& what);

// What tile and layout graphs share: the HLO graph itself.
struct GraphNodes {
  std::string file;
  int64_t num_nodes = 0;
  int64_t node_feat_width = 0;
  std::vector<float> node_feat;      // num_nodes x node_feat_width
  std::vector<int32_t> node_opcode;  // num_nodes
  std::vector<int64_t> edge_index;   // num_edges x 2; row [u, v]: u consumes v's output
  int64_t num_edges() const { return static_cast<int64_t>(edge_index.size() / 2); }
};

struct TileGraph : GraphNodes {
  int64_t num_configs = 0;
  int64_t config_feat_width = 0;
  std::vector<float> config_feat;                  // num_configs x config_feat_width
  std::vector<int64_t> config_runtime;             // ns
  std::vector<int64_t> config_runtime_normalizers; // ns
  // What tile configs are ranked by: runtime / normalizer.
  std::vector<double> target() const;
};

struct LayoutGraph : GraphNodes {
  int64_t num_configs = 0;
  int64_t config_feat_width = 0;
  std::vector<int64_t> node_config_ids;  // configurable nodes
  // num_configs x configurable x config_feat_width; empty when loaded with
  // config_features = false (a 100k-config file holds ~1 GB of them).
  std::vector<float> node_config_feat;
  std::vector<int64_t> config_runtime;
  std::vector<int64_t> node_splits;  // start node of each HLO computation (may be empty)
  int64_t num_configurable() const { return static_cast<int64_t>(node_config_ids.size()); }
  std::vector<double> target() const;
};

struct LoadOptions {
  bool config_features = true;
  // Bytes the caller will keep per config beside the graph (de-duplication's
  // bookkeeping), counted with the arrays against the memory budget.
  uint64_t bytes_per_config = 0;
};

// Before reading any array, loading checks that what it will hold (every
// array it keeps, converted, plus the largest in its file form while it
// converts, plus options.bytes_per_config per config) fits the memory budget
// (io/memory_budget.h); otherwise it throws Error naming the file, the array
// that weighs most and the sizes, without reading anything.
// Tile if the archive has config_feat, layout if node_config_feat; else throws.
GraphKind detect_graph_kind(const NpzReader& npz);
TileGraph load_tile_graph(const NpzReader& npz, const LoadOptions& options = {});
LayoutGraph load_layout_graph(const NpzReader& npz, const LoadOptions& options = {});

using Graph = std::variant<TileGraph, LayoutGraph>;
Graph load_graph(const NpzReader& npz, const LoadOptions& options = {});

}  // namespace fastslow
