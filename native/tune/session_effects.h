// What a tuning session's measurements so far say its runtime depends on:
// the node effects (graph/node_effects.h) over the configs measured: the
// nodes the forward selection picks, each with what it adds beyond chance
// (a session's tens of configs inflate the raw share of a node with many
// rows, and a session moves nodes together, so shares alone repeat each
// other). tune.json keeps it after each round, as `info --nodes --json`
// writes it of a file holding just the measured configs (one JSON writer,
// graph/node_effects_json.h); a line after each round names the picks.
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
// alike. The line names at most `top` of the forward selection's picks;
// the JSON holds every entry.
SessionEffects session_effects(const CachedGraph& g, const TuneTrace& t, int top = 4);

}  // namespace fastslow::tune
