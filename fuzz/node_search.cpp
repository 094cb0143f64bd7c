// The explorer's search box (node_search.h) reads whatever a user types or
// a page script passes: search_nodes on a small fixed graph with the
// published 140 feature columns, so shape terms are read too. An accepted
// query's answer is well formed: ascending, each start on some match.
#include <algorithm>
#include <string>
#include <vector>

#include "fastslow/graph/hlo_tables.h"
#include "fastslow/view/node_search.h"
#include "fuzz_support.h"

using namespace fastslow;

namespace {

// 24 nodes in a chain with side inputs, cycling through a few opcodes and
// shapes; every third node configurable.
const GraphNodes& graph() {
  static const GraphNodes g = [] {
    GraphNodes x;
    x.file = "fuzz.npz";
    x.num_nodes = 24;
    x.node_feat_width = static_cast<int64_t>(node_feature_names().size());
    x.node_feat.assign(static_cast<size_t>(x.num_nodes * x.node_feat_width), 0.0f);
    const char* ops[] = {"parameter", "dot", "add", "tanh", "reduce", "reduce-window"};
    const int dims = require_node_feature("shape_dimensions_0");
    for (int64_t v = 0; v < x.num_nodes; ++v) {
      x.node_opcode.push_back(require_opcode(ops[v % 6]));
      for (int64_t k = 0; k < v % 4; ++k) x.node_feat[v * x.node_feat_width + dims + k] = static_cast<float>(8 << k);
      if (v > 0) x.edge_index.insert(x.edge_index.end(), {v, v - 1});
      if (v > 2 && v % 5 == 0) x.edge_index.insert(x.edge_index.end(), {v, v - 3});
    }
    return x;
  }();
  return g;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;  // the box holds 127 bytes; a script could pass more, but not megabytes
  const std::string query(reinterpret_cast<const char*>(data), size);
  std::vector<int8_t> configurable(24, 0);
  for (size_t v = 0; v < configurable.size(); v += 3) configurable[v] = 1;
  NodeSearch r;
  if (!fuzz::accepts([&] { r = search_nodes(graph(), configurable, query); })) return 0;
  FUZZ_CHECK(std::is_sorted(r.starts.begin(), r.starts.end()));
  FUZZ_CHECK(std::is_sorted(r.nodes.begin(), r.nodes.end()));
  FUZZ_CHECK(std::adjacent_find(r.nodes.begin(), r.nodes.end()) == r.nodes.end());
  for (int64_t v : r.starts) FUZZ_CHECK(std::binary_search(r.nodes.begin(), r.nodes.end(), v));
  for (int64_t v : r.nodes) FUZZ_CHECK(v >= 0 && v < 24);
  FUZZ_CHECK(r.starts.empty() == r.nodes.empty());
  return 0;
}
