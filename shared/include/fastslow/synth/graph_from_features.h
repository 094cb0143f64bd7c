// Any layout file's graph read back into the generator's HloGraph from its
// published node features, edges and node_splits, so that the generator's
// cost model (layout_cost.h) can price the configs of a graph it did not
// make, a real one above all. How the cost model ranks a real file's
// measured configs is the most a model trained on generated data could
// learn about that file: a direct check of the cost model against TPU
// measurements, without training anything.
//
// What the features do not hold is filled in, and the cost model reads
// little of it:
//  - a dot's contracting dims (no published column): read from the shapes
//    as XLA lays out a dot's result (batch dims, the lhs's free dims, the
//    rhs's), both sides contracting as many elements;
//  - a convolution's output spatial dims: the output dims that are neither
//    its batch nor its feature dim, in order;
//  - a convolution's or dot's operand order: the files list a node's
//    operands by producer id, so which is the input (lhs) and which the
//    kernel (rhs) is read from the shapes;
//  - a tuple's element shapes: none (the cost model moves no bytes for
//    tuples);
//  - a rank over 6 (six published dims): one more dim holding the elements
//    the six do not account for, so byte counts stay whole.
#pragma once

#include "fastslow/graph/graph.h"
#include "fastslow/synth/hlo.h"

namespace fastslow::synth {

// Error naming the file when its node features are not the 140 published
// columns (a cleaned file such as cleaned_alexnet.npz keeps 70), when an
// edge names a node outside the graph or the node itself, when a node has
// a negative dimension or a convolution names dims its tensors lack, or
// when a configurable node of the file is not one of its convolutions,
// dots and reshapes (the nodes the cost model prices layouts of).
HloGraph graph_from_features(const LayoutGraph& g);

}  // namespace fastslow::synth
