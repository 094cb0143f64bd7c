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
// Conventions follow the published files (data/real): fields a
// node does not have are 0, except products, which are 1 (the empty
// product; a scalar's and a tuple's shape product too); per-dimension fields
// are 0 beyond the rank; element_size_in_bits is 0, as no published file
// fills it.
std::vector<float> node_features(const HloGraph& g);

}  // namespace fastslow::synth
