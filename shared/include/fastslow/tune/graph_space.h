// A graph's config space of a kind `--space` names, built from its cached
// form: layout graphs' (config_space.h) or tile kernels' (tile_space.h).
// One definition for the CLI's proposals and the page's Tune.
#pragma once

#include <memory>
#include <vector>

#include "fastslow/data/graph_cache.h"
#include "fastslow/tune/search_space.h"

namespace fastslow {

// known: the graph's unique configs (g.groups order, config_row_elems
// each). Error naming the file when the kind does not fit the graph or the
// space cannot be built from these configs.
std::unique_ptr<ConfigSpace> config_space(const CachedGraph& g, const std::vector<float>& known, SpaceKind kind);
// The kind check alone, before anything is built.
void check_space(const CachedGraph& g, SpaceKind kind);

}  // namespace fastslow
