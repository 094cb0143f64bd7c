// NSGA-II for several objectives, with pagmo's implementation doing the
// genetics (tournament selection on non-domination rank and crowding
// distance, simulated binary crossover, polynomial mutation, integer genes)
// and its select_best_N_mo doing the elitist survival.
//
// A study asks one trial at a time, while pagmo evolves whole populations,
// so the generations are replayed from the finished trials: trial n is
// member n % P of generation n / P. Generation 0 is random. For a later
// generation the parents are the survivors of every earlier generation
// (each generation's trials merged with the previous parents and cut back
// to P by select_best_N_mo); one generation of pagmo's nsga2 evolved from
// them, with a seed of the study's and the generation's, yields P children,
// captured as the problem is asked their fitness, which are the
// generation's trials. Failed, pruned or missing trials count as the worst
// possible point.
//
// Genes: float parameters first (their unit coordinate), then integer
// genes for integer parameters (the value) and categorical ones (the
// choice's index), as pagmo wants integer genes last.
#include <pagmo/algorithms/nsga2.hpp>
#include <pagmo/population.hpp>
#include <pagmo/problem.hpp>
#include <pagmo/utils/multi_objective.hpp>

#include <cmath>
#include <map>
#include <memory>
#include <random>

#include "fastslow/error.h"
#include "search/search_sampler.h"

namespace fastslow::search {
namespace {

constexpr double kWorst = 1e300;

// A problem whose fitness is never known in advance: it records what it is
// asked and answers the worst point.
struct Recorder {
  std::shared_ptr<std::vector<pagmo::vector_double>> asked = std::make_shared<std::vector<pagmo::vector_double>>();
  pagmo::vector_double lower, upper;
  pagmo::vector_double::size_type nobj = 2, nix = 0;

  pagmo::vector_double fitness(const pagmo::vector_double& x) const {
    asked->push_back(x);
    return pagmo::vector_double(nobj, kWorst);
  }
  std::pair<pagmo::vector_double, pagmo::vector_double> get_bounds() const { return {lower, upper}; }
  pagmo::vector_double::size_type get_nobj() const { return nobj; }
  pagmo::vector_double::size_type get_nix() const { return nix; }
};

class Nsga2Sampler : public SearchSampler {
 public:
  Nsga2Sampler(Space space, std::vector<Objective> objectives, uint64_t seed, Nsga2Settings s)
      : space_(std::move(space)), objectives_(std::move(objectives)), seed_(seed), s_(std::move(s)) {
    for (size_t i = 0; i < space_.params.size(); ++i)
      (space_.params[i].kind == ParamKind::Float ? floats_ : ints_).push_back(i);
    rec_.nobj = objectives_.size();
    rec_.nix = ints_.size();
    for (size_t i : floats_) {
      (void)i;
      rec_.lower.push_back(0.0);
      rec_.upper.push_back(1.0);
    }
    for (size_t i : ints_) {
      const Param& p = space_.params[i];
      rec_.lower.push_back(p.kind == ParamKind::Int ? p.low : 0.0);
      rec_.upper.push_back(p.kind == ParamKind::Int ? p.high : static_cast<double>(p.choices.size() - 1));
    }
  }

  std::optional<nlohmann::json> ask(int64_t number, const std::vector<Trial>& finished) override {
    const int64_t P = s_.population, gen = number / P, member = number % P;
    if (gen == 0) {
      std::mt19937_64 rng(trial_seed(seed_, number));
      std::uniform_real_distribution<double> unit(0.0, 1.0);
      std::vector<double> u(space_.params.size());
      for (double& x : u) x = unit(rng);
      return space_.from_unit(u);
    }
    std::map<int64_t, const Trial*> by_number;
    for (const Trial& t : finished) by_number[t.number] = &t;
    // The parents of `gen`: survivors of generations 0 .. gen-1.
    std::vector<Member> parents;
    for (int64_t g = 0; g < gen; ++g) {
      std::vector<Member> pool = parents;
      for (int64_t m = 0; m < P; ++m) {
        const int64_t n = g * P + m;
        auto it = by_number.find(n);
        pool.push_back({genes_of(n, it == by_number.end() ? nullptr : it->second, finished), fitness_of(it == by_number.end() ? nullptr : it->second)});
      }
      parents = survivors(pool);
    }
    const auto children = offspring(parents, gen);
    return decode(children.at(static_cast<size_t>(member)));
  }

 private:
  struct Member {
    pagmo::vector_double x, f;
  };

  // The genes a trial was given: its params encoded (a trial of a space
  // that changed is re-drawn as generation 0 would).
  pagmo::vector_double genes_of(int64_t number, const Trial* t, const std::vector<Trial>&) const {
    nlohmann::json params;
    if (t) params = t->params;
    pagmo::vector_double x;
    try {
      if (!t) throw Error("missing");
      for (size_t i : floats_) x.push_back(space_.params[i].to_unit(params.at(space_.params[i].name)));
      for (size_t i : ints_) {
        const Param& p = space_.params[i];
        const nlohmann::json& v = params.at(p.name);
        x.push_back(p.kind == ParamKind::Int ? v.get<double>() : static_cast<double>(std::max(0, p.choice_index(v))));
      }
    } catch (const std::exception&) {
      x.clear();
      std::mt19937_64 rng(trial_seed(seed_, number, 7));
      std::uniform_real_distribution<double> unit(0.0, 1.0);
      for (size_t k = 0; k < rec_.lower.size(); ++k) {
        const double v = rec_.lower[k] + unit(rng) * (rec_.upper[k] - rec_.lower[k]);
        x.push_back(k < floats_.size() ? v : std::round(v));
      }
    }
    return x;
  }

  pagmo::vector_double fitness_of(const Trial* t) const {
    pagmo::vector_double f(objectives_.size(), kWorst);
    if (!t) return f;
    const auto v = objective_values(*t, objectives_);
    if (!v) return f;
    for (size_t k = 0; k < f.size(); ++k) f[k] = objectives_[k].direction == Direction::Maximize ? -(*v)[k] : (*v)[k];
    return f;
  }

  std::vector<Member> survivors(const std::vector<Member>& pool) const {
    if (pool.size() <= static_cast<size_t>(s_.population)) return pool;
    std::vector<pagmo::vector_double> fs;
    for (const Member& m : pool) fs.push_back(m.f);
    std::vector<Member> out;
    for (auto i : pagmo::select_best_N_mo(fs, static_cast<pagmo::pop_size_t>(s_.population))) out.push_back(pool[i]);
    return out;
  }

  std::vector<pagmo::vector_double> offspring(const std::vector<Member>& parents, int64_t gen) const {
    Recorder rec = rec_;
    rec.asked = std::make_shared<std::vector<pagmo::vector_double>>();
    pagmo::problem prob(rec);
    const unsigned seed = static_cast<unsigned>(trial_seed(seed_, gen, 11));
    pagmo::population pop(prob, 0u, seed);
    for (const Member& m : parents) pop.push_back(m.x, m.f);
    const double mutation = s_.mutation > 0 ? s_.mutation : 1.0 / static_cast<double>(space_.params.size());
    pagmo::nsga2 algo(1u, s_.crossover, 10.0, mutation, 20.0, seed);
    algo.evolve(pop);
    // The copy inside `prob` shares `asked`.
    return *rec.asked;
  }

  nlohmann::json decode(const pagmo::vector_double& x) const {
    nlohmann::json j = nlohmann::json::object();
    for (size_t k = 0; k < floats_.size(); ++k) {
      const Param& p = space_.params[floats_[k]];
      j[p.name] = p.from_unit(x[k]);
    }
    for (size_t k = 0; k < ints_.size(); ++k) {
      const Param& p = space_.params[ints_[k]];
      const double v = x[floats_.size() + k];
      if (p.kind == ParamKind::Int) j[p.name] = static_cast<int64_t>(std::llround(std::clamp(v, p.low, p.high)));
      else j[p.name] = p.choices[static_cast<size_t>(std::clamp<long long>(std::llround(v), 0, static_cast<long long>(p.choices.size()) - 1))];
    }
    // In the space's order, as the other samplers give them.
    nlohmann::json ordered = nlohmann::json::object();
    for (const Param& p : space_.params) ordered[p.name] = j[p.name];
    return ordered;
  }

  Space space_;
  std::vector<Objective> objectives_;
  uint64_t seed_;
  Nsga2Settings s_;
  std::vector<size_t> floats_, ints_;
  Recorder rec_;
};

}  // namespace

std::unique_ptr<SearchSampler> make_nsga2_sampler(const Space& space, const std::vector<Objective>& objectives,
                                                  uint64_t seed, const Nsga2Settings& s) {
  if (objectives.size() < 2)
    throw Error("search: nsga2 is for several objectives; with one, use tpe (or random, qmc, grid)");
  if (s.population < 8 || s.population % 4 != 0)
    throw Error("search: nsga2's population must be at least 8 and a multiple of 4, got " +
                std::to_string(s.population));
  if (!(s.crossover >= 0 && s.crossover < 1)) throw Error("search: crossover must be in [0, 1)");
  if (!(s.mutation >= 0 && s.mutation <= 1)) throw Error("search: mutation must be in [0, 1]");
  return std::make_unique<Nsga2Sampler>(space, objectives, seed, s);
}

}  // namespace fastslow::search
