#include "fastslow/view/graph_drawing.h"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <numeric>
#include <string>

#include "fastslow/error.h"
#include "fastslow/numeric.h"

namespace fastslow {

namespace {

// CSR adjacency of one direction.
struct Adjacency {
  std::vector<int64_t> ptr;
  std::vector<int32_t> idx;
  int64_t begin(int32_t v) const { return ptr[v]; }
  int64_t end(int32_t v) const { return ptr[v + 1]; }
};

Adjacency build(int64_t n, const std::vector<int32_t>& from, const std::vector<int32_t>& to) {
  Adjacency a;
  a.ptr.assign(static_cast<size_t>(n + 1), 0);
  for (int32_t f : from) ++a.ptr[f + 1];
  for (int64_t i = 0; i < n; ++i) a.ptr[i + 1] += a.ptr[i];
  a.idx.resize(from.size());
  std::vector<int64_t> next(a.ptr.begin(), a.ptr.end() - 1);
  for (size_t e = 0; e < from.size(); ++e) a.idx[next[from[e]]++] = to[e];
  return a;
}

// Longest-path layers over a topological order; edges that would close a
// cycle (found when Kahn's algorithm stalls) are left out of the layering.
std::vector<int32_t> assign_layers(int64_t n, const Adjacency& out, const Adjacency& in, int64_t* back_edges) {
  std::vector<int32_t> indeg(static_cast<size_t>(n));
  for (int32_t v = 0; v < n; ++v) indeg[v] = static_cast<int32_t>(in.end(v) - in.begin(v));
  std::vector<int32_t> layer(static_cast<size_t>(n), 0), queue;
  std::vector<char> done(static_cast<size_t>(n), 0);
  queue.reserve(static_cast<size_t>(n));
  for (int32_t v = 0; v < n; ++v)
    if (indeg[v] == 0) queue.push_back(v);
  size_t head = 0;
  int32_t next_unseen = 0;
  while (true) {
    while (head < queue.size()) {
      const int32_t v = queue[head++];
      done[v] = 1;
      for (int64_t k = out.begin(v); k < out.end(v); ++k) {
        const int32_t u = out.idx[k];
        if (done[u]) continue;
        layer[u] = std::max(layer[u], layer[v] + 1);
        if (--indeg[u] == 0) queue.push_back(u);
      }
    }
    if (static_cast<int64_t>(queue.size()) == n) break;
    // A cycle: release the lowest-id waiting node, dropping its open in-edges.
    while (next_unseen < n && (done[next_unseen] || indeg[next_unseen] == 0)) ++next_unseen;
    *back_edges += indeg[next_unseen];
    indeg[next_unseen] = 0;
    queue.push_back(next_unseen);
  }
  // Every node that is not on a longest path moves down to just above its
  // first user (reverse topological order, so users are final first): inputs,
  // constants and side branches then sit next to where they are used instead
  // of all at the top. Edges that close a cycle are left out.
  for (auto it = queue.rbegin(); it != queue.rend(); ++it) {
    const int32_t v = *it;
    int32_t lowest = INT32_MAX;
    for (int64_t k = out.begin(v); k < out.end(v); ++k)
      if (layer[out.idx[k]] > layer[v]) lowest = std::min(lowest, layer[out.idx[k]]);
    if (lowest != INT32_MAX && lowest - 1 > layer[v]) layer[v] = lowest - 1;
  }
  return layer;
}

// Shelf packing of the drawing's weakly connected pieces (DrawingOptions::
// pack_aspect): each piece moves by whole layers and a constant x, so its
// own order, gaps and edge directions stay; pieces in one row of shelves
// get disjoint x ranges, rows disjoint layers. Rebuilds the layer lists.
void pack_pieces(GraphDrawing& d, const std::vector<int32_t>& src, const std::vector<int32_t>& dst, const DrawingOptions& o) {
  const int32_t n = static_cast<int32_t>(d.layer.size());
  std::vector<int32_t> parent(static_cast<size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  for (size_t e = 0; e < src.size(); ++e) {
    const int32_t a = find(src[e]), b = find(dst[e]);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);  // the root is a piece's first node
  }
  struct Piece {
    float min_x = INFINITY, max_x = -INFINITY;
    int32_t min_layer = INT32_MAX, max_layer = -1;
    float dx = 0;
    int32_t dl = 0;
  };
  std::vector<int32_t> piece_of(static_cast<size_t>(n));
  std::vector<Piece> pieces;
  std::vector<int32_t> index(static_cast<size_t>(n), -1);
  for (int32_t v = 0; v < n; ++v) {
    const int32_t r = find(v);
    if (index[r] < 0) {
      index[r] = static_cast<int32_t>(pieces.size());
      pieces.emplace_back();
    }
    Piece& p = pieces[index[r]];
    piece_of[v] = index[r];
    p.min_x = std::min(p.min_x, d.x[v]), p.max_x = std::max(p.max_x, d.x[v]);
    p.min_layer = std::min(p.min_layer, d.layer[v]), p.max_layer = std::max(p.max_layer, d.layer[v]);
  }
  if (pieces.size() < 2) return;
  double area = 0;
  float widest = 0;
  for (const Piece& p : pieces) {
    const float w = p.max_x - p.min_x + 2 * o.node_gap;
    area += static_cast<double>(w) * (p.max_layer - p.min_layer + 1) * o.layer_gap;
    widest = std::max(widest, w);
  }
  const float row_width = std::max(widest, static_cast<float>(std::sqrt(area * o.pack_aspect)));
  float cursor = 0;
  int32_t row_top = 0, row_layers = 0;
  for (Piece& p : pieces) {  // in order of their first node: the program's order
    const float w = p.max_x - p.min_x + 2 * o.node_gap;
    if (cursor > 0 && cursor + w > row_width) {
      row_top += row_layers;  // no empty layer between rows: every layer holds a node
      cursor = 0;
      row_layers = 0;
    }
    p.dx = cursor - p.min_x;
    p.dl = row_top - p.min_layer;
    cursor += w;
    row_layers = std::max(row_layers, p.max_layer - p.min_layer + 1);
  }
  for (int32_t v = 0; v < n; ++v) {
    d.x[v] += pieces[piece_of[v]].dx;
    d.layer[v] += pieces[piece_of[v]].dl;
  }
  group_by_layer(d, true);
}

}  // namespace

void group_by_layer(GraphDrawing& d, bool by_x) {
  const int32_t n = static_cast<int32_t>(d.layer.size());
  const int32_t layers = n ? *std::max_element(d.layer.begin(), d.layer.end()) + 1 : 0;
  d.layer_start.assign(static_cast<size_t>(layers) + 1, 0);
  for (int32_t l : d.layer) ++d.layer_start[l + 1];
  for (int32_t l = 0; l < layers; ++l) d.layer_start[l + 1] += d.layer_start[l];
  d.layer_nodes.resize(static_cast<size_t>(n));
  std::vector<int32_t> fill(d.layer_start.begin(), d.layer_start.end() - 1);
  for (int32_t v = 0; v < n; ++v) d.layer_nodes[fill[d.layer[v]]++] = v;
  if (by_x)
    for (int32_t l = 0; l < layers; ++l)
      std::stable_sort(d.layer_nodes.begin() + d.layer_start[l], d.layer_nodes.begin() + d.layer_start[l + 1],
                       [&](int32_t a, int32_t b) { return d.x[a] < d.x[b]; });
}

void place_layers(GraphDrawing& d, float layer_gap) {
  d.y.resize(d.layer.size());
  d.min_x = d.max_x = 0;
  for (size_t v = 0; v < d.layer.size(); ++v) {
    d.y[v] = static_cast<float>(d.layer[v]) * layer_gap;
    d.min_x = std::min(d.min_x, d.x[v]);
    d.max_x = std::max(d.max_x, d.x[v]);
  }
  d.max_y = d.num_layers() > 0 ? static_cast<float>(d.num_layers() - 1) * layer_gap : 0.0f;
}

GraphDrawing draw_layered(int64_t n, const std::vector<int64_t>& edge_index, const DrawingOptions& o) {
  GraphDrawing d;
  if (n < 0 || n > INT32_MAX) throw Error("graph drawing: node count " + std::to_string(n) + " out of range");
  if (edge_index.size() % 2 != 0) throw Error("graph drawing: edge_index must hold [u, v] pairs");
  const size_t m = edge_index.size() / 2;
  std::vector<int32_t> src, dst;  // v -> u
  src.reserve(m);
  dst.reserve(m);
  for (size_t e = 0; e < m; ++e) {
    const int64_t u = edge_index[2 * e], v = edge_index[2 * e + 1];
    if (u < 0 || u >= n || v < 0 || v >= n)
      throw Error("", "edge_index", "row " + std::to_string(e) + " [" + std::to_string(u) + ", " + std::to_string(v) +
                                        "] refers to a node outside 0.." + std::to_string(n - 1));
    if (u == v) continue;  // a self-loop says nothing about placement
    src.push_back(static_cast<int32_t>(v));
    dst.push_back(static_cast<int32_t>(u));
  }
  const Adjacency out = build(n, src, dst), in = build(n, dst, src);
  d.layer = assign_layers(n, out, in, &d.back_edges);

  // Nodes grouped by layer, first in id order (ids follow the program order).
  group_by_layer(d, false);
  const int32_t layers = d.num_layers();

  // Relative position in [0, 1] of each node within its layer: barycentres
  // compare across layers of different widths.
  std::vector<float> pos(static_cast<size_t>(n));
  auto update_positions = [&](int32_t l) {
    const int32_t a = d.layer_start[l], b = d.layer_start[l + 1];
    const float w = static_cast<float>(b - a);
    for (int32_t i = a; i < b; ++i) pos[d.layer_nodes[i]] = (static_cast<float>(i - a) + 0.5f) / w;
  };
  for (int32_t l = 0; l < layers; ++l) update_positions(l);

  std::vector<std::pair<float, int32_t>> keyed;
  auto sort_layer = [&](int32_t l, const Adjacency& adj) {
    const int32_t a = d.layer_start[l], b = d.layer_start[l + 1];
    keyed.clear();
    for (int32_t i = a; i < b; ++i) {
      const int32_t v = d.layer_nodes[i];
      // Neighbours in the adjacent layer decide (their edges are the ones
      // that can cross here); farther ones only when there are none.
      float sum = 0, near_sum = 0;
      int64_t cnt = 0, near = 0;
      for (int64_t k = adj.begin(v); k < adj.end(v); ++k) {
        const int32_t w = adj.idx[k];
        sum += pos[w];
        ++cnt;
        if (d.layer[w] == l - 1 || d.layer[w] == l + 1) {
          near_sum += pos[w];
          ++near;
        }
      }
      keyed.emplace_back(near ? near_sum / static_cast<float>(near) : cnt ? sum / static_cast<float>(cnt) : pos[v], v);
    }
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto& p, const auto& q) { return p.first < q.first; });
    for (int32_t i = a; i < b; ++i) d.layer_nodes[i] = keyed[i - a].second;
    update_positions(l);
  };
  // A sweep can make things worse: keep the best order seen.
  int64_t best = count_adjacent_crossings(d, edge_index);
  std::vector<int32_t> best_nodes = d.layer_nodes;
  for (int s = 0; s < o.sweeps && best > 0; ++s) {
    for (int32_t l = 1; l < layers; ++l) sort_layer(l, in);        // by producers above
    for (int32_t l = layers - 2; l >= 0; --l) sort_layer(l, out);  // by users below
    const int64_t now = count_adjacent_crossings(d, edge_index);
    if (now < best) {
      best = now;
      best_nodes = d.layer_nodes;
    }
  }
  d.layer_nodes = std::move(best_nodes);

  // x: start evenly spaced and centred, then pull each node toward the mean x
  // of its neighbours, keeping the order and at least node_gap between
  // neighbours (a forward pass, a backward pass, then averaging the two).
  d.x.assign(static_cast<size_t>(n), 0.0f);
  d.y.assign(static_cast<size_t>(n), 0.0f);
  for (int32_t l = 0; l < layers; ++l) {
    const int32_t a = d.layer_start[l], b = d.layer_start[l + 1];
    for (int32_t i = a; i < b; ++i)
      d.x[d.layer_nodes[i]] = (static_cast<float>(i - a) - 0.5f * static_cast<float>(b - a - 1)) * o.node_gap;
  }
  std::vector<float> want, fwd, bwd;
  for (int r = 0; r < o.straighten; ++r) {
    for (int32_t l = 0; l < layers; ++l) {
      const int32_t a = d.layer_start[l], b = d.layer_start[l + 1], w = b - a;
      want.assign(static_cast<size_t>(w), 0.0f);
      for (int32_t i = 0; i < w; ++i) {
        const int32_t v = d.layer_nodes[a + i];
        float sum = 0;
        int64_t cnt = 0;
        for (const Adjacency* adj : {&in, &out})
          for (int64_t k = adj->begin(v); k < adj->end(v); ++k) {
            sum += d.x[adj->idx[k]];
            ++cnt;
          }
        want[i] = cnt ? sum / static_cast<float>(cnt) : d.x[v];
      }
      fwd = want;
      for (int32_t i = 1; i < w; ++i) fwd[i] = std::max(fwd[i], fwd[i - 1] + o.node_gap);
      bwd = want;
      for (int32_t i = w - 2; i >= 0; --i) bwd[i] = std::min(bwd[i], bwd[i + 1] - o.node_gap);
      // The average of two order-keeping placements with gaps >= node_gap
      // keeps both properties.
      for (int32_t i = 0; i < w; ++i) d.x[d.layer_nodes[a + i]] = 0.5f * (fwd[i] + bwd[i]);
    }
  }
  if (o.pack_aspect > 0) pack_pieces(d, src, dst, o);
  place_layers(d, o.layer_gap);  // after packing, which adds layers
  return d;
}

int64_t count_adjacent_crossings(const GraphDrawing& d, const std::vector<int64_t>& edge_index) {
  const int32_t layers = d.num_layers();
  std::vector<int32_t> order(d.layer.size());
  for (int32_t l = 0; l < layers; ++l)
    for (int32_t i = d.layer_start[l]; i < d.layer_start[l + 1]; ++i) order[d.layer_nodes[i]] = i - d.layer_start[l];
  // Per upper layer: edges as (upper order, lower order); crossings are the
  // inversions of the lower order after sorting by the upper one.
  std::vector<std::vector<std::pair<int32_t, int32_t>>> by_layer(static_cast<size_t>(std::max(layers, 1)));
  for (size_t e = 0; e + 1 < edge_index.size(); e += 2) {
    const auto u = static_cast<int32_t>(edge_index[e]), v = static_cast<int32_t>(edge_index[e + 1]);
    if (d.layer[u] == d.layer[v] + 1) by_layer[d.layer[v]].emplace_back(order[v], order[u]);
  }
  int64_t crossings = 0;
  std::vector<double> lower;
  for (auto& edges : by_layer) {
    std::sort(edges.begin(), edges.end());
    lower.clear();
    for (const auto& e : edges) lower.push_back(e.second);
    crossings += sort_counting_inversions(lower);
  }
  return crossings;
}

}  // namespace fastslow
