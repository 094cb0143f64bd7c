// The opcode and feature-name tables of the published TpuGraphs data
// (hlo_opcodes.tsv, feature_names.tsv), compiled in at configure time so the
// core needs no data files at run time, natively or in the page.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fastslow/graph/graph.h"

namespace fastslow {

// Opcode ids run 1..opcode_count(); 0 means unknown.
int opcode_count();
// "" for 0 and unknown ids.
const char* opcode_name(int id);
// -1 if no opcode has this name.
int opcode_id(std::string_view name);
// Ops the table marks "removed" (trace, tuple-select): valid ids that current
// XLA never emits.
bool opcode_removed(int id);
// Like opcode_id, but throws fastslow::Error for an unknown name: for code
// that names opcodes itself, where a typo is a bug.
int require_opcode(std::string_view name);

// Names per column, in column order.
const std::vector<std::string>& node_feature_names();          // 140
const std::vector<std::string>& config_feature_names(GraphKind kind);  // tile 24, layout 18

// Column of a node feature; -1 if unknown / throws fastslow::Error if unknown.
int node_feature_index(std::string_view name);
int require_node_feature(std::string_view name);

}  // namespace fastslow
