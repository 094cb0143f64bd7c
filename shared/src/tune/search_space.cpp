#include "fastslow/tune/search_space.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "fastslow/error.h"

namespace fastslow {

SpaceKind parse_space_kind(const std::string& name) {
  if (name == "menu") return SpaceKind::Menu;
  if (name == "orders") return SpaceKind::Orders;
  if (name == "sizes") return SpaceKind::Sizes;
  if (name == "shape") return SpaceKind::Shape;
  throw Error("unknown space '" + name + "' (menu, orders for layout graphs, or sizes or shape for tile graphs)");
}

const char* space_kind_name(SpaceKind kind) {
  switch (kind) {
    case SpaceKind::Menu: return "menu";
    case SpaceKind::Orders: return "orders";
    case SpaceKind::Sizes: return "sizes";
    case SpaceKind::Shape: return "shape";
  }
  return "?";
}

int64_t choices_from_nearest(const ConfigSpace& space, const float* config, const std::vector<float>& known,
                             const std::vector<int64_t>& among) {
  const int64_t row = space.row_elems(), unit = space.choice_elems();
  if (row <= 0 || unit <= 0 || row % unit != 0)
    throw Error("config space: choices of " + std::to_string(unit) + " values do not split configs of " +
                std::to_string(row));
  if (known.size() % static_cast<size_t>(row) != 0)
    throw Error("config space: " + std::to_string(known.size()) + " known values are not whole configs of " +
                std::to_string(row));
  const auto count = static_cast<int64_t>(known.size()) / row;
  const auto n = among.empty() ? count : static_cast<int64_t>(among.size());
  int64_t best = -1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = among.empty() ? i : among[static_cast<size_t>(i)];
    if (k < 0 || k >= count)
      throw Error("config space: config " + std::to_string(k) + " is not one of the " + std::to_string(count) + " known");
    const float* other = known.data() + k * row;
    int64_t diff = 0;
    // Stops once this config cannot beat the nearest so far.
    for (int64_t c = 0; c < row && (best < 0 || diff < best); c += unit)
      diff += !std::equal(config + c, config + c + unit, other + c);
    if (best < 0 || diff < best) best = diff;
    if (best == 0) break;
  }
  return best;
}

ConfigHash hash_config(const float* config, int64_t n) {
  ConfigHash h{0x243f6a8885a308d3ull, 0x13198a2e03707344ull};
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits = 0;
    const float v = config[i] == 0.0f ? 0.0f : config[i];  // -0 and 0 are one value
    std::memcpy(&bits, &v, sizeof bits);
    h.a = mix_seed(h.a, bits);
    h.b = mix_seed(h.b ^ 0xa4093822299f31d0ull, bits + static_cast<uint64_t>(i) * 0x100000001b3ull);
  }
  return h;
}

}  // namespace fastslow
