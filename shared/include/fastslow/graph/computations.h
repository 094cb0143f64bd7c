// A layout graph's computations from its node_splits. Files list each
// computation's first node and sometimes the end as well ([0, 324, 372] for
// AlexNet's 372 nodes), not always starting at 0: every reader (the info
// count, the page's computations table and boxes) takes the same starts.
#pragma once

#include <cstdint>
#include <vector>

namespace fastslow {

// The first node of each computation, increasing: node 0, then each
// distinct split inside the graph. Empty when the file has no node_splits.
std::vector<int64_t> computation_starts(const std::vector<int64_t>& node_splits, int64_t num_nodes);

}  // namespace fastslow
