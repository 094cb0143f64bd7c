// Preprocessed graphs for training and ranking: pruned to the configurable
// nodes' k-hop neighbourhood, configs de-duplicated (least measured runtime kept),
// and repacked into an uncompressed npz so that any config's row is one
// pread away. The published files are deflated, where reading config 90,000
// means inflating the 89,999 before it (2nd-place solution: 5-10x faster
// loading after repacking).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/graph/dedup.h"
#include "fastslow/graph/graph.h"
#include "fastslow/graph/graph_info.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/graph/prune.h"

namespace fastslow {

struct GraphCacheOptions {
  std::string dir;  // where cache files go (created if missing)
  int khop = 1;     // 0 = keep the whole graph
};

class CachedGraph {
 public:
  // Reuses DIR's cache file when it was built from the same source (path,
  // size, modification time) with the same options; otherwise builds it.
  // Throws Error naming the source on bad input (see validate.h).
  static CachedGraph open(const std::string& source, const GraphCacheOptions& options);
  // The same graph built from an archive already open (the page's document,
  // whose bytes are in memory), kept in memory: no file is read or written.
  // Equal, field for field and row for row, to open() on the same bytes;
  // `source` is the reader's name and `path` stays empty. `known`: what
  // graph_info found reading these bytes (their config groups), so the
  // configs are not grouped a second time.
  static CachedGraph in_memory(const NpzReader& source, int khop, const GraphContents* known = nullptr);

  GraphKind kind = GraphKind::Layout;
  std::string source;  // the original .npz
  std::string path;    // the cache file ("" when built in memory)
  int64_t original_nodes = 0, original_edges = 0;

  PrunedGraph pruned;
  int64_t node_feat_width = 0;
  std::vector<float> node_feat;      // pruned.num_nodes() x node_feat_width, as in the file
  std::vector<int32_t> node_opcode;  // pruned.num_nodes()

  int64_t num_configs = 0;        // as in the file, duplicates included
  int64_t config_feat_width = 0;  // 24 (tile) / 18 (layout) in published files
  int64_t config_row_elems = 0;   // tile: width; layout: configurable nodes x width
  ConfigGroups groups;
  // Per original config: what configs are ranked by (tile: runtime /
  // normalizer, layout: runtime). Empty for files without measured runtimes
  // (test splits hold zeros).
  std::vector<double> runtime;
  bool has_runtime() const { return !runtime.empty(); }

  // The representative rows of the given groups, in that order
  // (count x config_row_elems).
  std::vector<float> config_rows(const std::vector<int64_t>& group_ids) const;
  // Every group's id, 0..num_groups-1 (config_rows of it: the file's unique configs).
  std::vector<int64_t> all_groups() const;

 private:
  // Reads the fields from a built cache archive.
  void load(std::shared_ptr<NpzReader> reader);
  std::shared_ptr<NpzReader> reader_;
};

}  // namespace fastslow
