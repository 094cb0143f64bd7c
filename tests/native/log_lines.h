// A run's log.jsonl without what is measured rather than computed (wall
// time, resident memory), which no two runs share: what tests compare.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fastslow::test {

inline std::vector<nlohmann::json> unmeasured_log_lines(const std::string& run) {
  std::ifstream f(run + "/log.jsonl");
  std::vector<nlohmann::json> out;
  for (std::string l; std::getline(f, l);) {
    if (l.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(l);
    for (const char* measured : {"seconds", "train_seconds", "allreduce_seconds", "steps_resident_mb", "steps_peak_mb"})
      j.erase(measured);
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace fastslow::test
