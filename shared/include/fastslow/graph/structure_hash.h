// Structural hashes of nodes (Weisfeiler-Lehman refinement): a node's hash
// after r rounds depends on its opcode and on what lies up to r edges away,
// producers and users apart. Nodes playing the same part in copies of one
// block (the layers of a transformer) get equal hashes, whatever their ids;
// two graphs can be matched by them. Equal hashes are a hint, not a proof
// of isomorphism.
#pragma once

#include <cstdint>
#include <vector>

#include "fastslow/graph/graph.h"

namespace fastslow {

// Per node; deterministic across runs and platforms. Throws Error naming
// the file on an edge id out of range.
std::vector<uint64_t> structure_hashes(const GraphNodes& g, int rounds = 3);

}  // namespace fastslow
