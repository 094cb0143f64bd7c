// A layered drawing of an HLO graph (Sugiyama style) for the explorer:
// layers by longest path from the inputs, then every node off the longest
// paths pulled down next to its first user, crossings reduced by barycentre sweeps, x coordinates pulled
// toward neighbours while keeping each layer's order and spacing. Long edges
// get no dummy nodes: drawn straight, they keep a 50k-node graph at O((n + m)
// log n) per sweep, which a browser lays out in about a second.
#pragma once

#include <cstdint>
#include <vector>

namespace fastslow {

struct DrawingOptions {
  int sweeps = 6;          // crossing-reduction sweeps (each one down and one up)
  int straighten = 4;      // x-coordinate refinement rounds
  float node_gap = 1.0f;   // minimum distance between neighbours in a layer
  float layer_gap = 1.0f;  // distance between layers
  // > 0: pieces of the graph that no edge joins are packed in rows, left to
  // right in program order, toward this width / height ratio (a k-hop view
  // is hundreds of small pieces, which side by side make a thin strip).
  // Each piece keeps its own drawing. 0: every piece spans the same layers.
  float pack_aspect = 0;
};

struct GraphDrawing {
  std::vector<int32_t> layer;  // per node
  std::vector<float> x, y;     // per node: centre
  // Nodes layer by layer, left to right: layer l is
  // layer_nodes[layer_start[l], layer_start[l + 1]).
  std::vector<int32_t> layer_nodes;
  std::vector<int32_t> layer_start;
  int64_t back_edges = 0;  // edges ignored for layering because they close a cycle
  float min_x = 0, max_x = 0, max_y = 0;
  int32_t num_layers() const { return static_cast<int32_t>(layer_start.size()) - 1; }
};

// edge_index: m rows [u, v] as in the files (u consumes v's output), so
// edges run v -> u, drawn top to bottom. Throws Error on an id out of range.
GraphDrawing draw_layered(int64_t num_nodes, const std::vector<int64_t>& edge_index, const DrawingOptions& options = {});

// Fills layer_start and layer_nodes from layer: each layer's nodes in id
// order (ids follow the program order), or in x order (ids on ties) when
// by_x. For drawings whose nodes moved between layers (open_in_place.h).
void group_by_layer(GraphDrawing& d, bool by_x);
// y from each node's layer (layer * layer_gap), and the drawing's extent
// (min_x and max_x, never past 0 on either side; max_y).
void place_layers(GraphDrawing& d, float layer_gap);

// Crossings between consecutive layers among edges that span exactly one
// layer (the measure the sweeps reduce); O(m log m). For tests and benches.
int64_t count_adjacent_crossings(const GraphDrawing& d, const std::vector<int64_t>& edge_index);

}  // namespace fastslow
