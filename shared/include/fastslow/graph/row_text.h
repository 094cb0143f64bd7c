// A config row as text, the same in the CLI's tables and the page's panels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastslow {

// Values space separated, integers as integers and anything else as %g (a
// layout row as the file holds it).
std::string values_text(const std::vector<float>& row);

// A layout row of the published 18 values as each tensor's named dims
// (output, input, kernel: "(3,4) (4,0) -"), "-" where the order is left to
// the compiler; other widths as values_text.
std::string layout_row_text(const std::vector<float>& row);

// Node ids in a short list: the first `shown` after `prefix`, joined by
// `sep`, then "+N" for the rest ("199,235,+29"; "#199, #235, +29").
std::string nodes_text(const std::vector<int64_t>& nodes, size_t shown, const char* prefix, const char* sep);

}  // namespace fastslow
