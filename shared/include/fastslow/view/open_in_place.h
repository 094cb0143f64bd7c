// Opening a folded box in a drawing without reshuffling the rest: the
// box's members, drawn on their own, take its place. Every other node keeps
// its layer order and its x; the layers below the box move down by the
// members' depth, and the nodes in the box's own layer move aside by half
// the members' width. A reader's picture of the graph survives a click.
#pragma once

#include <cstdint>
#include <vector>

#include "fastslow/view/graph_drawing.h"

namespace fastslow {

// outer: the drawing with the box (node `box`); inside: the members' own
// drawing. The result has outer's nodes but the box plus inside's nodes,
// numbered by outer_to_new (per outer node; -1 for the box) and
// inside_to_new (per member): together a permutation of 0..n-1.
// layer_gap: outer's distance between layers (y = layer * layer_gap). The
// nodes beside the box keep their distance to it from the members. Throws
// Error on a box out of range or maps that are not a permutation.
GraphDrawing open_in_place(const GraphDrawing& outer, int32_t box, const GraphDrawing& inside,
                           const std::vector<int32_t>& outer_to_new, const std::vector<int32_t>& inside_to_new,
                           float layer_gap);

}  // namespace fastslow
