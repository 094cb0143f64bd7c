// Independent uniform draws (log-uniform on log ranges).
#include <random>

#include "search/search_sampler.h"

namespace fastslow::search {
namespace {

class RandomSampler : public SearchSampler {
 public:
  RandomSampler(Space space, uint64_t seed) : space_(std::move(space)), seed_(seed) {}
  std::optional<nlohmann::json> ask(int64_t number, const std::vector<Trial>&) override {
    std::mt19937_64 rng(trial_seed(seed_, number));
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    std::vector<double> u(space_.params.size());
    for (double& x : u) x = unit(rng);
    return space_.from_unit(u);
  }

 private:
  Space space_;
  uint64_t seed_;
};

}  // namespace

std::unique_ptr<SearchSampler> make_random_sampler(const Space& space, uint64_t seed) {
  return std::make_unique<RandomSampler>(space, seed);
}

}  // namespace fastslow::search
