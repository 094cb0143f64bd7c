#include "fastslow/view/open_in_place.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "fastslow/error.h"

namespace fastslow {

GraphDrawing open_in_place(const GraphDrawing& outer, int32_t box, const GraphDrawing& inside,
                           const std::vector<int32_t>& outer_to_new, const std::vector<int32_t>& inside_to_new,
                           float layer_gap) {
  const int64_t on = static_cast<int64_t>(outer.layer.size()), in = static_cast<int64_t>(inside.layer.size());
  if (box < 0 || box >= on) throw Error("open_in_place: box " + std::to_string(box) + " outside 0.." + std::to_string(on - 1));
  if (static_cast<int64_t>(outer_to_new.size()) != on || static_cast<int64_t>(inside_to_new.size()) != in)
    throw Error("open_in_place: the node maps do not match the drawings' sizes");
  const int64_t n = on - 1 + in;
  std::vector<char> taken(static_cast<size_t>(n), 0);
  auto claim = [&](int32_t t) {
    if (t < 0 || t >= n || taken[t]) throw Error("open_in_place: the node maps are not a permutation of 0.." + std::to_string(n - 1));
    taken[t] = 1;
  };
  for (int64_t v = 0; v < on; ++v)
    if (v != box) claim(outer_to_new[v]);
  for (int32_t t : inside_to_new) claim(t);

  const int32_t L = outer.layer[box], depth = std::max(inside.num_layers(), 1);
  const float bx = outer.x[box];
  // The members' widest extent either side of the box's centre.
  const float mid = 0.5f * (inside.min_x + inside.max_x);
  float half = 0;
  for (int64_t i = 0; i < in; ++i) half = std::max(half, std::abs(inside.x[i] - mid));

  GraphDrawing d;
  d.layer.assign(static_cast<size_t>(n), 0);
  d.x.assign(static_cast<size_t>(n), 0);
  d.back_edges = outer.back_edges + inside.back_edges;
  for (int64_t v = 0; v < on; ++v) {
    if (v == box) continue;
    const int32_t t = outer_to_new[v];
    const int32_t l = outer.layer[v];
    d.layer[t] = l > L ? l + depth - 1 : l;
    float x = outer.x[v];
    // Only the box's own layer holds both old nodes and members.
    if (l == L) x += x < bx || (x == bx && v < box) ? -half : half;
    d.x[t] = x;
  }
  for (int64_t i = 0; i < in; ++i) {
    const int32_t t = inside_to_new[i];
    d.layer[t] = L + inside.layer[i];
    d.x[t] = bx + inside.x[i] - mid;
  }
  group_by_layer(d, true);
  place_layers(d, layer_gap);
  return d;
}

}  // namespace fastslow
