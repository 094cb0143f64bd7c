// Finding nodes the way the explorer's search box reads a query.
//
// A query is one or more steps joined by "->"; a step is terms separated by
// spaces, all of which a node must meet:
//   dot, op:dot       the opcode: a full opcode name, else any opcode whose
//                     name contains the word (so "reduce" finds reduce and
//                     reduce-window)
//   #12, 12           node 12
//   configurable      a node whose layout the configs set
//   rank:3            a tensor of rank 3 (shape_dimensions_* > 0)
//   shape:8x128       exactly that shape; * stands for any size (shape:*x128)
//   dim:128           some dimension of size 128
// With several steps, "dot -> add -> tanh" finds chains where each step's
// node consumes the previous one's output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/graph/graph.h"

namespace fastslow {

struct NodeSearch {
  std::vector<int64_t> starts;  // nodes that begin a match (one step: the matches), ascending
  std::vector<int64_t> nodes;   // every node on some match, ascending
  int steps = 0;
};

// `configurable`: per node, nonzero where configurable (may be empty: no
// node is). An empty query finds nothing. Throws Error naming the query for
// a term it cannot read, and for shape terms on a graph whose node features
// are not the published 140 columns.
NodeSearch search_nodes(const GraphNodes& g, const std::vector<int8_t>& configurable, const std::string& query);

// A node's tensor shape from its features (shape_dimensions_0..5), empty for
// a scalar or a graph without the published feature columns.
std::vector<int64_t> node_shape(const GraphNodes& g, int64_t node);
// "8x128", or "scalar".
std::string shape_text(const std::vector<int64_t>& dims);
// A node's shape as the explorer writes it: shape_text, or "" where the
// graph's node features are not the published 140 columns (shape unknown).
std::string node_shape_text(const GraphNodes& g, int64_t node);

}  // namespace fastslow
