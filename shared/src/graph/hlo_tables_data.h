// The raw rows of the TSV tables, as cmake/embed_tables.cmake writes them into
// the build folder. Only hlo_tables.cpp reads these; everyone else uses
// fastslow/hlo_tables.h, which checks them.
#pragma once

namespace fastslow::tables_data {

struct OpcodeRow {
  int id;
  const char* name;
  const char* status;  // "active" | "removed"
};

struct FeatureRow {
  const char* vector;  // "node" | "tile_config" | "layout_config"
  int index;
  const char* name;
};

extern const OpcodeRow kOpcodeRows[];
extern const int kOpcodeRowCount;
extern const FeatureRow kFeatureRows[];
extern const int kFeatureRowCount;

}  // namespace fastslow::tables_data
