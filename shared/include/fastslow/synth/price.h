// The generator's noise-free runtime of any legal config of a graph it
// wrote: the ground truth that configs nobody measured (a search's
// proposals) are judged by. A generated file's answers file
// (ROOT/answers/<path> beside ROOT/<path>) records how its graph was made;
// the graph is made again from that record and checked against the file
// (node count, opcodes, configurable nodes) before anything is priced.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/graph/graph.h"
#include "fastslow/synth/hlo.h"
#include "fastslow/synth/layout_configs.h"
#include "fastslow/synth/tile_configs.h"

namespace fastslow::synth {

// How a file's graph was generated, as its answers file records it.
struct GeneratorRecord {
  uint64_t seed = 0;
  int target_nodes = 0;
  int template_id = -1;  // a ModelTemplate for layout graphs, -1 for a tile kernel
};

class Pricer {
 public:
  // Error naming `path` when no answers file is found beside it, when the
  // answers file has no generator record (written before there was one:
  // generate the data again), or when the graph made again differs.
  static Pricer for_file(const std::string& path);
  // Any layout file, real ones included: its graph as its node features
  // describe it (graph_from_features.h), priced by the same cost model.
  static Pricer from_features(const std::string& path);
  static Pricer from_features(const LayoutGraph& file);  // as loaded (its configs not needed)

  GraphKind kind() const { return tile_ ? GraphKind::Tile : GraphKind::Layout; }
  // Values per config: configurable nodes x 18 (layout) or 24 (tile).
  int64_t row_elems() const;
  // Noise-free runtime in ns, not rounded. Error on a layout config that is
  // not a -1 padded list of distinct dims of its tensor.
  double runtime(const float* config) const;
  // count x row_elems() configs, rounded to whole ns as the generator
  // writes config_runtime_clean.
  std::vector<int64_t> runtimes_ns(const std::vector<float>& configs) const;
  // The answers file the graph was made again from; the file itself for
  // from_features.
  const std::string& answers_file() const { return answers_; }
  // The graph made again, as checked against the file: its node count and
  // (layout) its configurable nodes.
  int64_t num_nodes() const { return g_.num_nodes(); }
  const std::vector<int64_t>& config_nodes() const { return layout_.nodes; }

 private:
  HloGraph g_;
  LayoutSpace layout_;
  TileSpace tile_space_;
  bool tile_ = false;
  std::string answers_;
};

// The graph a record stands for (what synth_write generates first).
HloGraph generated_graph(const GeneratorRecord& r);

}  // namespace fastslow::synth
