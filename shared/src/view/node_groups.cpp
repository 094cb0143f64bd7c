#include "fastslow/view/node_groups.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <unordered_map>

#include "fastslow/error.h"
#include "fastslow/graph/structure_hash.h"
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

namespace {

// Edges across the cut just above each layer (index b: between b - 1 and b).
std::vector<int64_t> crossings(const GraphNodes& g, const std::vector<int32_t>& layer, int32_t layers) {
  std::vector<int64_t> c(static_cast<size_t>(layers) + 2, 0);
  for (size_t k = 0; k + 1 < g.edge_index.size(); k += 2) {
    const int32_t a = layer[g.edge_index[k]], b = layer[g.edge_index[k + 1]];
    ++c[std::min(a, b) + 1];
    --c[std::max(a, b) + 1];
  }
  for (int32_t b = 1; b <= layers; ++b) c[b] += c[b - 1];
  return c;
}

// One run of R copies in `rows` (hashes held by R nodes, member i in copy
// i, in layer order): the first layer of each copy's band and the last
// band's end, or nothing. Rows that do not fit the run found are left in
// `rows` for the next run; the run's own are taken out.
struct Run {
  std::vector<int32_t> start;
  int32_t end = 0;
};

std::optional<Run> find_run(std::vector<std::vector<int32_t>>& rows, const std::vector<int32_t>& layer, int64_t R,
                            const std::vector<int64_t>& crossing, int64_t min_classes) {
  // Copy i starts at the first layer of its anchors; a hash whose member i
  // falls outside copy i's band (another run's, or one that repeats R
  // times for another reason) is set aside and the bands found again,
  // until none is.
  std::vector<std::vector<int32_t>> own = rows, aside;
  Run run;
  run.start.resize(static_cast<size_t>(R));
  for (;;) {
    if (static_cast<int64_t>(own.size()) < min_classes) return std::nullopt;
    std::fill(run.start.begin(), run.start.end(), std::numeric_limits<int32_t>::max());
    for (const auto& m : own)
      for (int64_t i = 0; i < R; ++i) run.start[i] = std::min(run.start[i], layer[m[i]]);
    for (int64_t i = 1; i < R; ++i)
      if (run.start[i] <= run.start[i - 1]) return std::nullopt;
    const size_t before = own.size();
    for (size_t k = 0; k < own.size();) {
      bool fits = true;
      for (int64_t i = 0; i + 1 < R && fits; ++i) fits = layer[own[k][i]] < run.start[i + 1];
      if (fits) {
        ++k;
      } else {
        aside.push_back(std::move(own[k]));
        own[k] = std::move(own.back());
        own.pop_back();
      }
    }
    if (own.size() == before) break;
  }
  // The anchors start each copy's band a little late (a copy's first nodes
  // hash like no other copy's when they read the graph's input). All cuts
  // move up by one shift, so the bands stay congruent: the shift whose cuts
  // cross the fewest edges in all (the narrow waist between two layers of a
  // network), the smallest on ties, and small enough that every copy's
  // anchors stay in its band. The last band is as deep as the one before.
  std::vector<int32_t> last_anchor(static_cast<size_t>(R), 0);
  for (const auto& m : own)
    for (int64_t i = 0; i < R; ++i) last_anchor[i] = std::max(last_anchor[i], layer[m[i]]);
  std::vector<int32_t>& start = run.start;
  const int32_t last_period = start[R - 1] - start[R - 2];
  int32_t max_shift = std::min(start[0], start[R - 1] + last_period - 1 - last_anchor[R - 1]);
  for (int64_t i = 0; i + 1 < R; ++i) max_shift = std::min(max_shift, start[i + 1] - 1 - last_anchor[i]);
  int32_t shift = 0;
  int64_t best = std::numeric_limits<int64_t>::max();
  for (int32_t d = 0; d <= max_shift; ++d) {
    int64_t total = 0;
    for (int64_t i = 0; i < R; ++i) total += crossing[start[i] - d];
    if (total < best) best = total, shift = d;
  }
  for (int32_t& st : start) st -= shift;
  run.end = std::min(static_cast<int32_t>(crossing.size()) - 3, start[R - 1] + last_period - 1);
  rows = std::move(aside);
  return run;
}

}  // namespace

NodeGroups repeated_blocks(const GraphNodes& g, const std::vector<int32_t>& layer, const RepeatOptions& options) {
  const int64_t n = g.num_nodes;
  if (static_cast<int64_t>(layer.size()) != n)
    throw Error(g.file + ": " + std::to_string(layer.size()) + " layers for " + std::to_string(n) + " nodes");
  NodeGroups r;
  r.group_of.assign(static_cast<size_t>(n), -1);
  const std::vector<uint64_t> hash = structure_hashes(g, options.hash_rounds);

  // Members of each hash; R: the count whose hashes cover the most nodes.
  std::unordered_map<uint64_t, std::vector<int32_t>> members;
  for (int64_t v = 0; v < n; ++v) members[hash[v]].push_back(static_cast<int32_t>(v));
  std::unordered_map<int64_t, int64_t> covered, classes;  // per count: nodes, hashes
  for (const auto& [h, m] : members)
    if (m.size() >= 2) covered[static_cast<int64_t>(m.size())] += static_cast<int64_t>(m.size()), ++classes[static_cast<int64_t>(m.size())];
  int64_t R = 0;
  for (const auto& [count, nodes] : covered)
    if (classes[count] >= options.min_classes && (nodes > covered[R] || (nodes == covered[R] && count > R))) R = count;
  if (R < 2 || static_cast<double>(covered[R]) < options.min_share * static_cast<double>(n)) return r;

  // The hashes held by R nodes in R distinct layers, in layer order.
  std::vector<std::vector<int32_t>> rows;
  for (auto& [h, m] : members) {
    if (static_cast<int64_t>(m.size()) != R) continue;
    std::sort(m.begin(), m.end(), [&](int32_t x, int32_t y) { return layer[x] != layer[y] ? layer[x] < layer[y] : x < y; });
    bool distinct = true;
    for (int64_t i = 1; i < R && distinct; ++i) distinct = layer[m[i]] > layer[m[i - 1]];
    if (distinct) rows.push_back(m);
  }
  // The graph may repeat its block in several runs (a training graph's
  // forward layers, then their gradients in reverse): runs found one after
  // another, each over layers no earlier run holds.
  int32_t layers = 0;
  for (int32_t l : layer) layers = std::max(layers, l + 1);
  const std::vector<int64_t> crossing = crossings(g, layer, layers);
  std::vector<std::pair<int32_t, int32_t>> taken;  // layer ranges of the runs so far
  auto free_range = [&](int32_t lo, int32_t hi) {
    for (const auto& [a, b] : taken)
      if (lo <= b && a <= hi) return false;
    return true;
  };
  for (int k = 0; k < options.max_runs && !rows.empty(); ++k) {
    // Rows with a member in a run's layers belong to none of the rest.
    rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const std::vector<int32_t>& m) {
      return !free_range(layer[m.front()], layer[m.back()]);
    }), rows.end());
    const std::optional<Run> run = find_run(rows, layer, R, crossing, options.min_classes);
    if (!run) break;
    const int32_t lo = run->start[0], hi = run->end;
    if (!free_range(lo, hi)) continue;
    const int64_t first = r.groups();
    r.size.resize(static_cast<size_t>(first + R), 0);
    r.root.resize(static_cast<size_t>(first + R), -1);
    r.run.resize(static_cast<size_t>(first + R), k);
    for (int64_t v = 0; v < n; ++v) {
      const int32_t l = layer[v];
      if (l < lo || l > hi) continue;
      const int64_t c = first + (std::upper_bound(run->start.begin(), run->start.end(), l) - run->start.begin()) - 1;
      r.group_of[v] = static_cast<int32_t>(c);
      ++r.size[c];
      if (r.root[c] < 0 || l >= layer[r.root[c]]) r.root[c] = v;
    }
    taken.emplace_back(lo, hi);
  }
  // Too small a copy is no block worth a box: no groups at all.
  for (int64_t s : r.size)
    if (s < options.min_block) {
      NodeGroups none;
      none.group_of.assign(static_cast<size_t>(n), -1);
      return none;
    }
  // Runs found later may lie earlier in the drawing: groups in layer order.
  const int64_t G = r.groups();
  std::vector<int64_t> order(static_cast<size_t>(G));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return layer[r.root[a]] < layer[r.root[b]]; });
  std::vector<int32_t> rank(static_cast<size_t>(G));
  for (int64_t i = 0; i < G; ++i) rank[order[i]] = static_cast<int32_t>(i);
  NodeGroups out;
  out.group_of.assign(static_cast<size_t>(n), -1);
  for (int64_t v = 0; v < n; ++v)
    if (r.group_of[v] >= 0) out.group_of[v] = rank[r.group_of[v]];
  for (int64_t i = 0; i < G; ++i) {
    out.size.push_back(r.size[order[i]]);
    out.root.push_back(r.root[order[i]]);
    out.run.push_back(r.run[order[i]]);
  }
  // Runs numbered in layer order too.
  std::vector<int32_t> run_rank;
  for (int32_t x : out.run)
    if (std::find(run_rank.begin(), run_rank.end(), x) == run_rank.end()) run_rank.push_back(x);
  for (int32_t& x : out.run) x = static_cast<int32_t>(std::find(run_rank.begin(), run_rank.end(), x) - run_rank.begin());
  return out;
}

}  // namespace fastslow
