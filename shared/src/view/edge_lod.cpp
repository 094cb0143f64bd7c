#include "fastslow/view/edge_lod.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

#include "fastslow/error.h"

namespace fastslow {

namespace {

void check_edges(int64_t n, const std::vector<int64_t>& edge_index) {
  for (int64_t id : edge_index)
    if (id < 0 || id >= n)
      throw Error("edge_index: node id " + std::to_string(id) + " out of range [0, " + std::to_string(n) + ")");
}

// Two cells (or a cell and a hub) packed in a key; cells are clamped to
// +-2^20, far beyond a drawing's extent at any level the view computes.
struct Key {
  int64_t a, b;
  bool operator==(const Key& o) const { return a == o.a && b == o.b; }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    const uint64_t h = static_cast<uint64_t>(k.a) * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(k.b) + 0x632BE59BD9B4E019ull);
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

int64_t cell_of(float x, float y, float cell) {
  const auto q = [&](float v) {
    return std::clamp<int64_t>(static_cast<int64_t>(std::floor(v / cell)), -(1 << 20), 1 << 20) + (1 << 20);
  };
  return q(x) << 22 | q(y);
}

}  // namespace

std::vector<char> find_hubs(int64_t num_nodes, const std::vector<int64_t>& edge_index, int64_t hub_degree) {
  check_edges(num_nodes, edge_index);
  std::vector<int64_t> in(static_cast<size_t>(num_nodes), 0), out(static_cast<size_t>(num_nodes), 0);
  for (size_t k = 0; k + 1 < edge_index.size(); k += 2) {
    ++in[edge_index[k]];       // u reads one more operand
    ++out[edge_index[k + 1]];  // v has one more user
  }
  std::vector<char> hub(static_cast<size_t>(num_nodes), 0);
  for (int64_t v = 0; v < num_nodes; ++v) hub[v] = in[v] > hub_degree || out[v] > hub_degree;
  return hub;
}

float edge_segment_alpha(int32_t weight, float length_px) {
  return std::min(0.9f, 0.45f + 0.15f * std::log2(static_cast<float>(std::max(weight, 1)))) *
         std::clamp(60.0f / std::max(length_px, 1.0f), 0.06f, 1.0f);
}

uint32_t edge_segment_rgb(char kind) { return kind == 1 ? 0xe0a040u : 0x8c99b3u; }

float edge_lod_level(float zoom) {
  if (!(zoom > 0) || !std::isfinite(zoom)) return 1;
  return std::exp2(std::floor(std::log2(zoom)));
}

EdgeSegments edge_segments(const GraphDrawing& d, const std::vector<int64_t>& edge_index, const std::vector<char>& hubs,
                           float zoom, const EdgeLodOptions& o) {
  const int64_t n = static_cast<int64_t>(d.x.size());
  check_edges(n, edge_index);
  if (static_cast<int64_t>(hubs.size()) != n)
    throw Error("edge_segments: " + std::to_string(hubs.size()) + " hub flags for " + std::to_string(n) + " nodes");
  if (!(zoom > 0) || !std::isfinite(zoom)) throw Error("edge_segments: zoom must be positive, got " + std::to_string(zoom));
  const float cell = std::max(o.cell_px, 1e-6f) / zoom, stub = o.stub_px / zoom, long_len = o.long_px / zoom;
  EdgeSegments s;
  std::unordered_map<Key, int32_t, KeyHash> seen;
  seen.reserve(edge_index.size() / 2);
  auto add = [&](const Key& key, float x0, float y0, float x1, float y1, char kind) {
    const auto [it, fresh] = seen.emplace(key, static_cast<int32_t>(s.weight.size()));
    if (!fresh) {
      ++s.weight[it->second];
      return;
    }
    s.xy.insert(s.xy.end(), {x0, y0, x1, y1});
    s.weight.push_back(1);
    s.stub.push_back(kind);
  };
  // A stub at `from` pointing toward `to`. Stubs leaving one cell in one of
  // 16 directions are one segment: ticks drawn over each other add nothing.
  auto add_stub = [&](int64_t from, int64_t to, int64_t flavour, char kind) {
    const float dx = d.x[to] - d.x[from], dy = d.y[to] - d.y[from];
    const float len = std::sqrt(dx * dx + dy * dy);
    if (len <= 0) return;
    const float t = std::min(1.0f, stub / len);
    const int64_t direction = static_cast<int64_t>(std::lround(std::atan2(dy, dx) * (8 / 3.14159265f))) & 15;
    add({cell_of(d.x[from], d.y[from], cell), -1 - (direction * 4 + flavour)}, d.x[from], d.y[from],
        d.x[from] + t * dx, d.y[from] + t * dy, kind);
  };
  for (size_t k = 0; k + 1 < edge_index.size(); k += 2) {
    const int64_t u = edge_index[k], v = edge_index[k + 1];  // v -> u
    if (u == v) continue;
    const bool hu = hubs[u] != 0, hv = hubs[v] != 0;
    if (hu && hv) continue;  // between two hubs: shown with either one when hovered
    if (hu) {
      add_stub(v, u, 0, 1);
      continue;
    }
    if (hv) {
      add_stub(u, v, 1, 1);
      continue;
    }
    if (std::hypot(d.x[u] - d.x[v], d.y[u] - d.y[v]) > long_len) {
      add_stub(v, u, 2, 2);
      add_stub(u, v, 3, 2);
      continue;
    }
    const int64_t cv = cell_of(d.x[v], d.y[v], cell), cu = cell_of(d.x[u], d.y[u], cell);
    if (cv == cu) {
      ++s.edges_hidden;
      continue;
    }
    add({cv, cu}, d.x[v], d.y[v], d.x[u], d.y[u], 0);
  }
  return s;
}

}  // namespace fastslow
