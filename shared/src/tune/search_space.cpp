#include "fastslow/tune/search_space.h"

#include <cstring>

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
