// The node effects as JSON: `fastslow info --nodes --json`'s "node_effects"
// and the page's state().effects hold the same object (a header of its own,
// so node_effects.h stays free of the JSON library).
#pragma once

#include <cmath>

#include "fastslow/graph/hlo_tables.h"
#include "fastslow/graph/node_effects.h"

namespace fastslow {

// Json: nlohmann::json or nlohmann::ordered_json; `node_opcode` per file node.
template <class Json, class Opcodes>
Json node_effects_json(const NodeEffects& e, const Opcodes& node_opcode) {
  Json entries = Json::array();
  for (const NodeEffect& x : e.entries) {
    Json rows = Json::array();
    for (const RowEffect& r : x.rows)
      rows.push_back({{"row", r.row}, {"configs", r.configs}, {"median_over_fastest", r.median_ratio}});
    entries.push_back({{"nodes", x.nodes},
                       {"opcode", opcode_name(static_cast<int>(node_opcode.at(static_cast<size_t>(x.nodes.front()))))},
                       {"share", x.share},
                       {"adjusted", x.adjusted},
                       {"adds", std::isnan(x.adds) ? Json(nullptr) : Json(x.adds)},
                       {"rows_node", x.rows_node},
                       {"rows", rows}});
  }
  return {{"configs", e.configs}, {"constant_nodes", e.constant_nodes}, {"joint", e.joint}, {"joint_stopped", e.joint_stopped}, {"entries", entries}};
}

}  // namespace fastslow
