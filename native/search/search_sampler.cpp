#include "search/search_sampler.h"

#include <algorithm>
#include <map>
#include <type_traits>

#include "fastslow/error.h"

namespace fastslow::search {

uint64_t trial_seed(uint64_t seed, int64_t number, uint64_t salt) {
  // splitmix64 over the three: neighbouring numbers get unrelated streams.
  uint64_t z = seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(number) * 0xBF58476D1CE4E5B9ull + salt * 0x94D049BB133111EBull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

namespace {

// A settings object's key, or the default; any key not in `keys` is refused.
void only_keys(const nlohmann::json& j, const std::vector<std::string>& keys, const std::string& sampler,
               const std::string& what) {
  if (!j.is_object()) throw Error(what, "", sampler + " settings must be a table");
  for (const auto& [k, v] : j.items())
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
      const std::string owner = sampler_owning(k);
      throw Error(what, "", "'" + k + "' is not a setting of sampler " + sampler +
                                (owner.empty() ? "" : " (it is " + owner + "'s)"));
    }
}

template <class T>
T number(const nlohmann::json& j, const char* key, T fallback, const std::string& what) {
  if (!j.contains(key)) return fallback;
  const nlohmann::json& v = j.at(key);
  if (!v.is_number()) throw Error(what, "", std::string(key) + " must be a number");
  if (std::is_integral_v<T> && !v.is_number_integer()) throw Error(what, "", std::string(key) + " must be an integer");
  return v.get<T>();
}

const std::map<std::string, std::vector<std::string>>& setting_keys() {
  static const std::map<std::string, std::vector<std::string>> keys = {
      {"grid", {"grid_points"}},
      {"random", {}},
      {"qmc", {}},
      {"tpe", {"startup", "candidates", "prior_weight"}},
      {"nsga2", {"population", "crossover", "mutation"}}};
  return keys;
}

}  // namespace

GridSettings GridSettings::from_json(const nlohmann::json& j, const std::string& what) {
  only_keys(j, sampler_setting_keys("grid"), "grid", what);
  GridSettings s;
  s.points = number<int>(j, "grid_points", s.points, what);
  if (s.points < 1) throw Error(what, "", "grid_points must be at least 1, got " + std::to_string(s.points));
  return s;
}
nlohmann::json GridSettings::to_json() const { return {{"grid_points", points}}; }

TpeSettings TpeSettings::from_json(const nlohmann::json& j, const std::string& what) {
  only_keys(j, sampler_setting_keys("tpe"), "tpe", what);
  TpeSettings s;
  s.startup = number<int>(j, "startup", s.startup, what);
  s.candidates = number<int>(j, "candidates", s.candidates, what);
  s.prior_weight = number<double>(j, "prior_weight", s.prior_weight, what);
  return s;
}
nlohmann::json TpeSettings::to_json() const {
  return {{"startup", startup}, {"candidates", candidates}, {"prior_weight", prior_weight}};
}

Nsga2Settings Nsga2Settings::from_json(const nlohmann::json& j, const std::string& what) {
  only_keys(j, sampler_setting_keys("nsga2"), "nsga2", what);
  Nsga2Settings s;
  s.population = number<int>(j, "population", s.population, what);
  s.crossover = number<double>(j, "crossover", s.crossover, what);
  s.mutation = number<double>(j, "mutation", s.mutation, what);
  return s;
}
nlohmann::json Nsga2Settings::to_json() const {
  return {{"population", population}, {"crossover", crossover}, {"mutation", mutation}};
}

const std::vector<std::string>& sampler_setting_keys(const std::string& name) {
  const auto it = setting_keys().find(name);
  if (it == setting_keys().end())
    throw Error("search: sampler must be grid, random, qmc, tpe or nsga2, got \"" + name + "\"");
  return it->second;
}

std::string sampler_owning(const std::string& key) {
  for (const auto& [name, keys] : setting_keys())
    if (std::find(keys.begin(), keys.end(), key) != keys.end()) return name;
  return "";
}

std::unique_ptr<SearchSampler> make_sampler(const SamplerChoice& c, const Space& space,
                                            const std::vector<Objective>& objectives) {
  if (space.params.empty()) throw Error("search: the [space] table names no parameter to vary");
  const std::string what = "search: sampler " + c.name;
  sampler_setting_keys(c.name);  // an unknown name fails here
  if (c.name == "random") return make_random_sampler(space, c.seed);
  if (c.name == "grid") return make_grid_sampler(space, c.seed, GridSettings::from_json(c.settings, what));
  if (c.name == "qmc") return make_qmc_sampler(space, c.seed);
  if (c.name == "tpe") return make_tpe_sampler(space, objectives, c.seed, TpeSettings::from_json(c.settings, what));
  return make_nsga2_sampler(space, objectives, c.seed, Nsga2Settings::from_json(c.settings, what));
}

}  // namespace fastslow::search
