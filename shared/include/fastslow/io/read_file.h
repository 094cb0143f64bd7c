// Reading a whole file (CSVs, JSON, TOML, trials.jsonl) into memory: its
// length is checked against the memory budget (memory_budget.h) before
// anything is read, so pointing a command at a huge file fails with a
// message instead of exhausting memory.
#pragma once

#include <string>

namespace fastslow {

// The file's bytes. Throws Error(path, "", cannot_open) when it cannot be
// opened, Error(path, "", "is 12 GB, over the memory budget ...") when it is
// larger than the budget, Error(path, "", "read failed: ...") on a read error.
std::string read_whole_file(const std::string& path, const std::string& cannot_open = "cannot be read");

}  // namespace fastslow
