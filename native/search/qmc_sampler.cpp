// Quasi-random: trial n takes the n-th point of a Sobol sequence (Boost's
// sobol_engine) with one dimension per parameter, shifted by a random
// vector of the seed modulo 1 (a Cranley-Patterson rotation): seeds differ,
// and the points keep their low discrepancy.
#include <boost/random/sobol.hpp>
#include <cmath>
#include <random>

#include "search/search_sampler.h"

namespace fastslow::search {
namespace {

class QmcSampler : public SearchSampler {
 public:
  QmcSampler(Space space, uint64_t seed) : space_(std::move(space)) {
    std::mt19937_64 rng(trial_seed(seed, -2));
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (size_t i = 0; i < space_.params.size(); ++i) shift_.push_back(unit(rng));
  }
  std::optional<nlohmann::json> ask(int64_t number, const std::vector<Trial>&) override {
    const size_t d = space_.params.size();
    // Boost's engine starts after the sequence's first point (the origin):
    // trial 0 takes the origin, so the first 2^m trials form a full net.
    boost::random::sobol engine(d);
    if (number > 0) engine.discard(static_cast<uintmax_t>(number - 1) * d);
    std::vector<double> u(d);
    for (size_t i = 0; i < d; ++i) {
      const double x =
          number == 0 ? 0.0 : static_cast<double>(engine()) / (static_cast<double>(boost::random::sobol::max()) + 1.0);
      u[i] = std::fmod(x + shift_[i], 1.0);
    }
    return space_.from_unit(u);
  }

 private:
  Space space_;
  std::vector<double> shift_;
};

}  // namespace

std::unique_ptr<SearchSampler> make_qmc_sampler(const Space& space, uint64_t seed) {
  return std::make_unique<QmcSampler>(space, seed);
}

}  // namespace fastslow::search
