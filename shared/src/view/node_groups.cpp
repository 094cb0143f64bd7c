#include "fastslow/view/node_groups.h"

#include <numeric>
#include <string>

#include "fastslow/error.h"
#include "fastslow/view/op_family.h"

namespace fastslow {

NodeGroups elementwise_chains(const GraphNodes& g, int64_t min_size) {
  const int64_t n = g.num_nodes;
  const auto& e = g.edge_index;
  std::vector<int64_t> users(static_cast<size_t>(n), 0);
  for (size_t k = 0; k + 1 < e.size(); k += 2) {
    if (e[k] < 0 || e[k] >= n || e[k + 1] < 0 || e[k + 1] >= n)
      throw Error(g.file + ": edge_index row " + std::to_string(k / 2) + " refers to a node outside 0.." + std::to_string(n - 1));
    ++users[e[k + 1]];
  }
  auto elementwise = [&](int64_t v) { return op_family(g.node_opcode[v]) == OpFamily::Elementwise; };
  std::vector<int64_t> parent(static_cast<size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int64_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (size_t k = 0; k + 1 < e.size(); k += 2) {
    const int64_t u = e[k], v = e[k + 1];  // u consumes v
    if (u == v || users[v] != 1 || !elementwise(u) || !elementwise(v)) continue;
    const int64_t a = find(u), b = find(v);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
  std::vector<int64_t> count(static_cast<size_t>(n), 0);
  for (int64_t v = 0; v < n; ++v) ++count[find(v)];
  NodeGroups r;
  r.group_of.assign(static_cast<size_t>(n), -1);
  std::vector<int32_t> index(static_cast<size_t>(n), -1);
  for (int64_t v = 0; v < n; ++v) {
    const int64_t c = find(v);
    if (count[c] < min_size) continue;
    if (index[c] < 0) {
      index[c] = static_cast<int32_t>(r.size.size());
      r.size.push_back(0);
      r.root.push_back(-1);
    }
    r.group_of[v] = index[c];
    ++r.size[index[c]];
  }
  // The root: the member whose users are not (all) in the group; the last
  // such in program order when a group's members end in one node.
  std::vector<char> leaves(static_cast<size_t>(n), 0);
  for (size_t k = 0; k + 1 < e.size(); k += 2) {
    const int64_t u = e[k], v = e[k + 1];
    if (r.group_of[v] >= 0 && r.group_of[u] != r.group_of[v]) leaves[v] = 1;
  }
  for (int64_t v = 0; v < n; ++v)
    if (r.group_of[v] >= 0 && (leaves[v] || users[v] == 0)) r.root[r.group_of[v]] = v;
  return r;
}

}  // namespace fastslow
