// A session's graph written back with configs of its choosing: each
// round's measurements (what a round's run learns from) and the proposals
// (runtimes 0). Layout graphs keep their runtimes in ns. Tile configs are
// ranked by runtime over normalizer, which is what `--measure file` gives;
// they are written as runtime = value x 1e6 over a normalizer of 1e6, so
// the ratio keeps six decimals and a command's runtimes in ns fit too.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "fastslow/graph/graph.h"

namespace fastslow::tune {

class GraphOut {
 public:
  // Reads the graph's structure (no configs). Error naming the file.
  explicit GraphOut(const std::string& graph_file);
  // rows: count configs; values: count measured values (0 = not measured).
  void write(const std::string& path, const std::vector<float>& rows, const std::vector<double>& values) const;

 private:
  std::variant<TileGraph, LayoutGraph> g_;
};

}  // namespace fastslow::tune
