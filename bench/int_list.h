// A comma-separated list of integers from a benchmark's command line
// ("16,32,64"), as the benchmarks' --ns and --counts take them.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace fastslow::bench {

inline std::vector<int64_t> parse_int_list(const std::string& s) {
  std::vector<int64_t> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stoll(item));
  return out;
}

}  // namespace fastslow::bench
