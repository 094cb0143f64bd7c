#include "fastslow/graph/computations.h"

#include <algorithm>

namespace fastslow {

std::vector<int64_t> computation_starts(const std::vector<int64_t>& node_splits, int64_t num_nodes) {
  if (node_splits.empty()) return {};
  std::vector<int64_t> starts{0};
  for (int64_t s : node_splits)
    if (s > 0 && s < num_nodes) starts.push_back(s);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return starts;
}

}  // namespace fastslow
