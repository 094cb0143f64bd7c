#include "search/search_sampler.h"

#include "fastslow/error.h"

namespace fastslow::search {

uint64_t trial_seed(uint64_t seed, int64_t number, uint64_t salt) {
  // splitmix64 over the three: neighbouring numbers get unrelated streams.
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(number) * 0xBF58476D1CE4E5B9ull + salt * 0x94D049BB133111EBull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::unique_ptr<SearchSampler> make_sampler(const SamplerSettings& s, const Space& space,
                                            const std::vector<Objective>& objectives) {
  if (space.params.empty()) throw Error("search: the [space] table names no parameter to vary");
  if (s.name == "random") return make_random_sampler(space, s.seed);
  if (s.name == "grid") return make_grid_sampler(space, s.seed, s.grid_points);
  if (s.name == "qmc") return make_qmc_sampler(space, s.seed);
  if (s.name == "tpe") return make_tpe_sampler(space, objectives, s);
  if (s.name == "nsga2") return make_nsga2_sampler(space, objectives, s);
  throw Error("search: sampler must be grid, random, qmc, tpe or nsga2, got \"" + s.name + "\"");
}

}  // namespace fastslow::search
