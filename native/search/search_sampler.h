// Samplers: what a study asks for its next trial's parameters and tells
// each result. Every sampler here rebuilds what it knows from the finished
// trials it is given (ask receives them), so a study resumed from
// trials.jsonl asks exactly what an uninterrupted one would; trial
// `number` and the seed fix each draw.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fastslow/search/trials.h"
#include "search/space.h"

namespace fastslow::search {

// Each sampler owns its settings, as Optuna's samplers take their own
// arguments: read from a study file's [search] table by the sampler named
// there (a key of another sampler is refused), checked by its own reader,
// written back to study.json.
struct GridSettings {
  int points = 5;  // values per int or float range
  static GridSettings from_json(const nlohmann::json& j, const std::string& what);
  nlohmann::json to_json() const;
};
struct TpeSettings {
  int startup = 10;           // random trials first
  int candidates = 24;        // draws from l(x), the best l(x)/g(x) kept
  double prior_weight = 1.0;  // weight of the prior in the Parzen estimators
  static TpeSettings from_json(const nlohmann::json& j, const std::string& what);
  nlohmann::json to_json() const;
};
struct Nsga2Settings {
  int population = 8;      // trials per generation (>= 8, a multiple of 4)
  double crossover = 0.9;  // crossover probability
  double mutation = 0.0;   // per-gene mutation probability; 0 = 1 / parameters
  static Nsga2Settings from_json(const nlohmann::json& j, const std::string& what);
  nlohmann::json to_json() const;
};

// A sampler as a study names it: grid | random | qmc | tpe | nsga2, its
// seed, and its own settings (only its keys; missing ones take its defaults).
struct SamplerChoice {
  std::string name = "tpe";
  uint64_t seed = 0;
  nlohmann::json settings = nlohmann::json::object();
};

// The setting keys of the sampler `name` (random and qmc have none);
// Error on an unknown name.
const std::vector<std::string>& sampler_setting_keys(const std::string& name);
// The sampler whose settings include `key`, or "" (for error messages).
std::string sampler_owning(const std::string& key);

class SearchSampler {
 public:
  virtual ~SearchSampler() = default;
  // Parameters for trial `number`, given every finished trial (complete,
  // pruned or failed, in number order). nullopt: nothing left to try (a
  // grid is exhausted).
  virtual std::optional<nlohmann::json> ask(int64_t number, const std::vector<Trial>& finished) = 0;
  // A trial's result; the samplers here keep nothing (ask sees the
  // history), but one that learns incrementally would learn here.
  virtual void tell(const Trial&) {}
  // Trials the sampler can still propose (grid), nullopt when unbounded.
  virtual std::optional<int64_t> size() const { return std::nullopt; }
};

// Throws Error on an unknown name or settings the sampler cannot use
// (nsga2 with one objective, a population that is not a multiple of 4).
std::unique_ptr<SearchSampler> make_sampler(const SamplerChoice& c, const Space& space,
                                            const std::vector<Objective>& objectives);

// Each sampler alone (make_sampler picks one).
std::unique_ptr<SearchSampler> make_random_sampler(const Space& space, uint64_t seed);
std::unique_ptr<SearchSampler> make_grid_sampler(const Space& space, uint64_t seed, const GridSettings& s = {});
std::unique_ptr<SearchSampler> make_qmc_sampler(const Space& space, uint64_t seed);
std::unique_ptr<SearchSampler> make_tpe_sampler(const Space& space, const std::vector<Objective>& objectives,
                                                uint64_t seed, const TpeSettings& s = {});
std::unique_ptr<SearchSampler> make_nsga2_sampler(const Space& space, const std::vector<Objective>& objectives,
                                                  uint64_t seed, const Nsga2Settings& s = {});

// A generator for trial `number` of a sampler seeded `seed`: draws that do
// not depend on how many trials ran before in this process.
uint64_t trial_seed(uint64_t seed, int64_t number, uint64_t salt = 0);

}  // namespace fastslow::search
