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

// The element-type one-hot columns (shape_element_type_is_invalid_type ..
// _is_token, 19 in the published order) and what one element of each type
// occupies: no published file fills element_size_in_bits (it is 0 on every
// node), so the type's column is where a tensor's bytes come from.
constexpr int kElementTypeColumns = 19;
int first_element_type_column();
// Bits per element of the type at this offset from the first type column;
// 0 for invalid, tuple, opaque and token (and offsets out of range).
int element_type_bits(int type_offset);
// The bits of the type a published node row's one-hot names (row: the
// node's node_feature_names().size() values); 0 when none is set.
int element_bits_of_row(const float* row);

}  // namespace fastslow
