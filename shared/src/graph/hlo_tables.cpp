#include "fastslow/graph/hlo_tables.h"

#include <cstring>
#include <unordered_map>

#include "fastslow/error.h"
#include "graph/hlo_tables_data.h"

namespace fastslow {
namespace {

using tables_data::kFeatureRowCount;
using tables_data::kFeatureRows;
using tables_data::kOpcodeRowCount;
using tables_data::kOpcodeRows;

struct Opcodes {
  std::vector<std::string> names;  // by id; names[0] = ""
  std::vector<bool> removed;
  std::unordered_map<std::string, int> ids;
};

// Built once from the generated rows; ids must be exactly 1..n so that an id
// can index the tables directly.
const Opcodes& opcodes() {
  static const Opcodes table = [] {
    Opcodes t;
    t.names.assign(static_cast<size_t>(kOpcodeRowCount) + 1, "");
    t.removed.assign(t.names.size(), false);
    for (int i = 0; i < kOpcodeRowCount; ++i) {
      const auto& row = kOpcodeRows[i];
      if (row.id < 1 || row.id > kOpcodeRowCount || !t.names[row.id].empty())
        throw Error("hlo_opcodes.tsv: ids are not exactly 1.." + std::to_string(kOpcodeRowCount) +
                    " (at id " + std::to_string(row.id) + ")");
      t.names[row.id] = row.name;
      t.removed[row.id] = std::strcmp(row.status, "removed") == 0;
      t.ids.emplace(row.name, row.id);
    }
    return t;
  }();
  return table;
}

std::vector<std::string> feature_group(const char* vector) {
  std::vector<std::string> names;
  for (int i = 0; i < kFeatureRowCount; ++i) {
    const auto& row = kFeatureRows[i];
    if (std::strcmp(row.vector, vector) != 0) continue;
    if (row.index < 0) throw Error("feature_names.tsv: negative index in '" + std::string(vector) + "'");
    if (static_cast<size_t>(row.index) >= names.size()) names.resize(static_cast<size_t>(row.index) + 1);
    if (!names[row.index].empty())
      throw Error("feature_names.tsv: index " + std::to_string(row.index) + " of '" + vector + "' twice");
    names[row.index] = row.name;
  }
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i].empty())
      throw Error("feature_names.tsv: '" + std::string(vector) + "' has no name for index " + std::to_string(i));
  return names;
}

const std::unordered_map<std::string, int>& node_feature_columns() {
  static const std::unordered_map<std::string, int> columns = [] {
    std::unordered_map<std::string, int> m;
    const auto& names = node_feature_names();
    for (size_t i = 0; i < names.size(); ++i) m.emplace(names[i], static_cast<int>(i));
    return m;
  }();
  return columns;
}

}  // namespace

int opcode_count() { return static_cast<int>(opcodes().names.size()) - 1; }

const char* opcode_name(int id) {
  const auto& t = opcodes();
  if (id < 1 || id >= static_cast<int>(t.names.size())) return "";
  return t.names[id].c_str();
}

int opcode_id(std::string_view name) {
  const auto& ids = opcodes().ids;
  const auto it = ids.find(std::string(name));
  return it == ids.end() ? -1 : it->second;
}

bool opcode_removed(int id) {
  const auto& t = opcodes();
  return id >= 1 && id < static_cast<int>(t.removed.size()) && t.removed[id];
}

int require_opcode(std::string_view name) {
  const int id = opcode_id(name);
  if (id < 0) throw Error("unknown HLO opcode '" + std::string(name) + "' (not in hlo_opcodes.tsv)");
  return id;
}

const std::vector<std::string>& node_feature_names() {
  static const std::vector<std::string> names = feature_group("node");
  return names;
}

const std::vector<std::string>& config_feature_names(GraphKind kind) {
  static const std::vector<std::string> tile = feature_group("tile_config");
  static const std::vector<std::string> layout = feature_group("layout_config");
  return kind == GraphKind::Tile ? tile : layout;
}

int node_feature_index(std::string_view name) {
  const auto& columns = node_feature_columns();
  const auto it = columns.find(std::string(name));
  return it == columns.end() ? -1 : it->second;
}

int require_node_feature(std::string_view name) {
  const int i = node_feature_index(name);
  if (i < 0) throw Error("unknown node feature '" + std::string(name) + "' (not in feature_names.tsv)");
  return i;
}

int first_element_type_column() {
  static const int first = require_node_feature("shape_element_type_is_invalid_type");
  return first;
}

int element_type_bits(int type_offset) {
  // invalid, pred, s8, s16, s32, s64, u8, u16, u32, u64, f16, f32, f64, bf16,
  // c64, c128, tuple, opaque, token (pred is stored in a byte).
  static constexpr int kBits[kElementTypeColumns] = {0, 8, 8, 16, 32, 64, 8, 16, 32, 64, 16, 32, 64, 16, 64, 128, 0, 0, 0};
  return type_offset >= 0 && type_offset < kElementTypeColumns ? kBits[type_offset] : 0;
}

int element_bits_of_row(const float* row) {
  const int first = first_element_type_column();
  for (int t = 0; t < kElementTypeColumns; ++t)
    if (row[first + t] > 0.5f) return element_type_bits(t);
  return 0;
}

}  // namespace fastslow
