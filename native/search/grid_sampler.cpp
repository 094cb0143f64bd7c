// Brute force: every combination of the parameters' grid values, in an
// order shuffled by the seed (so a study stopped early has sampled the
// grid evenly), then nothing.
#include <algorithm>
#include <numeric>
#include <random>

#include "fastslow/error.h"
#include "search/search_sampler.h"

namespace fastslow::search {
namespace {

constexpr int64_t kMaxGrid = 1'000'000;

class GridSampler : public SearchSampler {
 public:
  GridSampler(const Space& space, uint64_t seed, int points) {
    int64_t total = 1;
    for (const Param& p : space.params) {
      values_.push_back(p.grid(points));
      names_.push_back(p.name);
      total *= static_cast<int64_t>(values_.back().size());
      if (total > kMaxGrid)
        throw Error("search: the grid has more than " + std::to_string(kMaxGrid) +
                    " points; narrow the space or lower grid_points");
    }
    order_.resize(static_cast<size_t>(total));
    std::iota(order_.begin(), order_.end(), 0);
    std::mt19937_64 rng(trial_seed(seed, -1));
    std::shuffle(order_.begin(), order_.end(), rng);
  }
  std::optional<nlohmann::json> ask(int64_t number, const std::vector<Trial>&) override {
    if (number < 0 || number >= static_cast<int64_t>(order_.size())) return std::nullopt;
    int64_t index = order_[static_cast<size_t>(number)];
    nlohmann::json j = nlohmann::json::object();
    // Mixed radix, the last parameter fastest.
    for (size_t i = values_.size(); i-- > 0;) {
      const int64_t n = static_cast<int64_t>(values_[i].size());
      j[names_[i]] = values_[i][static_cast<size_t>(index % n)];
      index /= n;
    }
    return j;
  }
  std::optional<int64_t> size() const override { return static_cast<int64_t>(order_.size()); }

 private:
  std::vector<std::vector<nlohmann::json>> values_;
  std::vector<std::string> names_;
  std::vector<int64_t> order_;
};

}  // namespace

std::unique_ptr<SearchSampler> make_grid_sampler(const Space& space, uint64_t seed, const GridSettings& s) {
  if (s.points < 1) throw Error("search: grid_points must be at least 1, got " + std::to_string(s.points));
  return std::make_unique<GridSampler>(space, seed, s.points);
}

}  // namespace fastslow::search
