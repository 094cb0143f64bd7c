// What a tuning session's measurements so far say its runtime depends on:
// the node effects (graph/node_effects.h) over the configs measured: the
// nodes the forward selection picks, each with what it adds beyond chance
// (a session's tens of configs inflate the raw share of a node with many
// rows, and a session moves nodes together, so shares alone repeat each
// other). tune.json keeps it after each round; the session's last line
// says it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fastslow/data/graph_cache.h"
#include "fastslow/tune/trace.h"

namespace fastslow::tune {

struct SessionEffects {
  nlohmann::json json;  // null where there is nothing to say
  std::string line;     // "" likewise
};

// Nothing for a tile graph, fewer than two measurements, or runtimes all
// alike; `top` entries at most, the forward selection's picks.
SessionEffects session_effects(const CachedGraph& g, const TuneTrace& t, int top = 5);

}  // namespace fastslow::tune
