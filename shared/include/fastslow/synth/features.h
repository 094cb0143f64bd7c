// The published 140 node features of a synthetic graph, column by column as
// feature_names.tsv names them (meanings in DATA.md).
#pragma once

#include <vector>

#include "fastslow/synth/hlo.h"

namespace fastslow::synth {

// Row-major num_nodes x node_feature_names().size(). Columns are found by
// name once, so a feature_names.tsv that lacks a name the generator fills
// throws fastslow::Error instead of shifting columns silently.
//
// Conventions where the data leaves a choice: fields a node does not have are
// 0 (sum and product included); per-dimension fields are 0 beyond the rank;
// a scalar's shape product is 1, a tuple's shape fields are 0;
// element_size_in_bits is the element type's width.
std::vector<float> node_features(const HloGraph& g);

}  // namespace fastslow::synth
