// Groups that follow a graph's own structure, for folding in the explorer:
// chains of elementwise ops between heavier ones (a bias add, an
// activation, a scale and a cast after a dot) read as one step, and the
// copies of a repeated block (a transformer's layers) as one box each.
#pragma once

#include <cstdint>
#include <vector>

#include "fastslow/graph/graph.h"

namespace fastslow {

struct NodeGroups {
  std::vector<int32_t> group_of;  // per node: its group, or -1
  std::vector<int64_t> size;      // per group: nodes in it
  std::vector<int64_t> root;      // per group: the node whose output leaves it
  std::vector<int32_t> run;       // repeated_blocks: per group, its run of copies (else empty)
  int64_t groups() const { return static_cast<int64_t>(size.size()); }
};

// Elementwise nodes joined along edges whose producer has that one user:
// every node of a group but its root feeds only the group, so folding a
// group into one box keeps the graph acyclic and its edges in and out.
// Groups of fewer than `min_size` nodes are left out. Groups are numbered
// by their first node (program order). Ids out of range throw Error.
NodeGroups elementwise_chains(const GraphNodes& g, int64_t min_size = 3);

struct RepeatOptions {
  int hash_rounds = 3;       // structure_hash.h: how far a node's hash looks
  double min_share = 0.05;   // the repeated nodes' least share of the graph
  int64_t min_classes = 3;   // least distinct hashes repeated R times
  int64_t min_block = 4;     // least nodes per copy
  int max_runs = 4;          // runs of copies looked for, one after another
};

// Copies of a block the graph repeats R times, as bands of the drawing's
// layers (`layer`: per node, e.g. GraphDrawing::layer). The copies show as
// structure hashes held by exactly R nodes that lie one per copy in layer
// order (anchors); R is the count whose hashes cover the most nodes. Copy
// i's band starts at its first anchor's layer, less one shift common to all
// copies (the one whose cuts cross the fewest edges), and runs to the next
// copy's start; the last band is as deep as the one before. A graph may
// hold several runs of R copies (a training graph's forward layers, then
// their gradients): each is found over layers the runs before it left
// free (`run` says which). Whole layers fold into one box each, so edges
// between boxes still run down the drawing; a band also holds what else
// the graph computes beside the copy in its layers. Groups are numbered in
// layer order; root: a band's last node. A copy's nodes within hash_rounds
// edges of the graph's input or output hash like no other copy's: blocks
// much deeper than that are found. No repeat found: no groups. Throws
// Error on an edge id out of range or a layer vector of the wrong size.
NodeGroups repeated_blocks(const GraphNodes& g, const std::vector<int32_t>& layer, const RepeatOptions& options = {});

}  // namespace fastslow
