// What a search for configs nobody measured walks through, whatever the
// configs configure: a space of legal rows (one config each) with the
// operators an evolutionary search needs. Layout configs (config_space.h)
// and tile configs (tile_space.h) are two such spaces; the search
// (propose_search.h) sees only this.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fastslow/rng.h"

namespace fastslow {

// menu: every value the file holds, in combinations it did not measure
// (layout and tile); orders: any legal minor-to-major order (layout);
// sizes: tile sizes between the file's smallest and largest (tile);
// shape: the TPU's tile sizes of the kernel's output shape (tile).
enum class SpaceKind { Menu, Orders, Sizes, Shape };
// "menu" | "orders" | "sizes" | "shape"; Error naming the choices otherwise.
SpaceKind parse_space_kind(const std::string& name);
const char* space_kind_name(SpaceKind kind);

class ConfigSpace {
 public:
  virtual ~ConfigSpace() = default;
  // Values per config.
  virtual int64_t row_elems() const = 0;
  // Values per choice a config makes: a layout config's row per configurable
  // node, a tile config's single values.
  virtual int64_t choice_elems() const { return 1; }
  // "" when the config (row_elems values) is in the space; otherwise the
  // first problem, naming where it is.
  virtual std::string why_illegal(const float* config) const = 0;
  // Every choice at the file's most common value.
  virtual std::vector<float> most_common() const = 0;
  virtual void random_config(Rng& rng, float* out) const = 0;
  // child := parent with a small change that keeps it legal.
  virtual void mutate(const float* parent, Rng& rng, float* child) const = 0;
  // child := a mix of a and b, legal.
  virtual void crossover(const float* a, const float* b, Rng& rng, float* child) const = 0;
  // Every legal config in turn, when the space has at most `limit`
  // combinations to try: what a small space's search can score whole, and
  // the exact optimum a benchmark holds a search to. Returns how many were
  // visited, or -1 (nothing visited) for a space too big or one that cannot
  // be listed.
  virtual int64_t for_each_config(int64_t /*limit*/, const std::function<void(const float*)>& /*visit*/) const {
    return -1;
  }
};

// How far a config lies from what was measured: the fewest choices (a
// layout's configurable nodes, a tile's values) in which it differs from one
// of `known` (whole configs). A proposal many choices away is a model's
// extrapolation: on generated graphs those 6 to 325 nodes away ran more than
// 5 % slower than the file's best three times as often as those 1 or 2 away
// (30 against 10 of 175 each). `among`: the indices of the known configs
// to compare with (empty: all of them). -1 when nothing is compared.
int64_t choices_from_nearest(const ConfigSpace& space, const float* config, const std::vector<float>& known,
                             const std::vector<int64_t>& among = {});

// A 128-bit fingerprint of a config's values: de-duplication without
// keeping every row.
struct ConfigHash {
  uint64_t a = 0, b = 0;
  bool operator==(const ConfigHash& o) const { return a == o.a && b == o.b; }
};
ConfigHash hash_config(const float* config, int64_t n);
struct ConfigHashOf {
  size_t operator()(const ConfigHash& h) const { return static_cast<size_t>(h.a ^ (h.b * 0x9e3779b97f4a7c15ull)); }
};

}  // namespace fastslow
