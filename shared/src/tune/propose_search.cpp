#include "fastslow/tune/propose_search.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fastslow/error.h"

namespace fastslow {

double ScoreCalibration::runtime(double score) const { return std::exp(intercept + slope * score); }
double ScoreCalibration::speedup(double from, double to) const { return std::exp(slope * (from - to)); }

ScoreCalibration calibrate_scores(const std::vector<double>& score, const std::vector<double>& runtime) {
  if (score.empty() || score.size() != runtime.size())
    throw Error("calibration: " + std::to_string(score.size()) + " scores for " + std::to_string(runtime.size()) + " runtimes");
  const auto n = static_cast<double>(score.size());
  double ms = 0, my = 0;
  for (size_t i = 0; i < score.size(); ++i) {
    if (!(runtime[i] > 0)) throw Error("calibration: runtime " + std::to_string(runtime[i]) + " is not positive");
    ms += score[i], my += std::log(runtime[i]);
  }
  ms /= n;
  my /= n;
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < score.size(); ++i) {
    sxy += (score[i] - ms) * (std::log(runtime[i]) - my);
    sxx += (score[i] - ms) * (score[i] - ms);
  }
  ScoreCalibration c;
  c.slope = sxx > 0 && sxy > 0 ? sxy / sxx : 0.0;
  c.intercept = my - c.slope * ms;
  return c;
}

ProposeSearch::ProposeSearch(const ConfigSpace& space, const ProposeSettings& settings, std::vector<float> known,
                             std::vector<int64_t> anchors)
    : space_(space), s_(settings), known_(std::move(known)), rng_(mix_seed(settings.seed, 0x70726f70ull)),  // "prop"
      anchors_(std::move(anchors)) {
  const int64_t row = space.row_elems();
  if (known_.size() % static_cast<size_t>(row) != 0)
    throw Error("propose: " + std::to_string(known_.size()) + " values are not whole configs of " + std::to_string(row));
  if (s_.population < 1 || s_.generation < 1 || s_.budget < 0 || s_.keep < 1)
    throw Error("propose: population, generation and keep must be at least 1, the budget at least 0");
  if (!(s_.mutation >= 0 && s_.mutation <= 1) || !(s_.random_share >= 0 && s_.random_share <= 1) ||
      !(s_.anchor_share >= 0 && s_.anchor_share <= 1))
    throw Error("propose: the mutation chance and the random and anchor shares lie in [0, 1]");
  known_count_ = static_cast<int64_t>(known_.size()) / row;
  for (int64_t a : anchors_)
    if (a < 0 || a >= known_count_)
      throw Error("propose: anchor " + std::to_string(a) + " is not one of the " + std::to_string(known_count_) + " configs");
  for (int64_t c = 0; c < known_count_; ++c) seen_.insert(hash_config(known_.data() + c * row, row));
  known_scores_.assign(static_cast<size_t>(known_count_), std::nan(""));
  best_known_.score = std::numeric_limits<double>::infinity();
}

const std::vector<float>& ProposeSearch::ask() {
  const int64_t row = space_.row_elems();
  asked_.clear();
  asked_known_.clear();
  asked_near_.clear();
  if (known_next_ < known_count_) {
    const int64_t n = std::min(s_.generation, known_count_ - known_next_);
    asked_.assign(known_.begin() + known_next_ * row, known_.begin() + (known_next_ + n) * row);
    for (int64_t i = 0; i < n; ++i) asked_known_.push_back(known_next_ + i), asked_near_.push_back(0);
    known_next_ += n;
    return asked_;
  }
  if (!done_ && scored_new_ < s_.budget) children(std::min(s_.generation, s_.budget - scored_new_));
  if (asked_.empty()) done_ = true;
  return asked_;
}

void ProposeSearch::children(int64_t count) {
  const int64_t row = space_.row_elems();
  std::vector<float> child(static_cast<size_t>(row));
  const auto parent = [&]() -> const float* {
    // Biased to the best: the square of a uniform draw picks low ranks.
    const double u = rng_.uniform();
    const auto i = static_cast<size_t>(static_cast<double>(population_.size()) * u * u);
    return population_[std::min(i, population_.size() - 1)].config.data();
  };
  // A space this small runs out of new configs: stop trying after a while.
  for (int64_t tries = 0, made = 0; made < count && tries < count * 20 + 100; ++tries) {
    const double r = rng_.uniform();
    bool near = false;
    if (!anchors_.empty() && rng_.chance(s_.anchor_share)) {
      space_.mutate(known_.data() + rng_.pick(anchors_) * row, rng_, child.data());
      near = true;
    } else if (population_.empty() || r < s_.random_share) {
      space_.random_config(rng_, child.data());
    } else if (r < s_.random_share + (1 - s_.random_share) * s_.mutation) {
      space_.mutate(parent(), rng_, child.data());
    } else {
      space_.crossover(parent(), parent(), rng_, child.data());
    }
    if (!seen_.insert(hash_config(child.data(), row)).second) continue;
    asked_.insert(asked_.end(), child.begin(), child.end());
    asked_known_.push_back(-1);
    asked_near_.push_back(near ? 1 : 0);
    ++made;
  }
}

void ProposeSearch::merge(std::vector<ScoredConfig>& into, std::vector<ScoredConfig>&& add, int64_t cap) {
  for (ScoredConfig& c : add) into.push_back(std::move(c));
  std::stable_sort(into.begin(), into.end(), [](const ScoredConfig& a, const ScoredConfig& b) { return a.score < b.score; });
  if (static_cast<int64_t>(into.size()) > cap) into.resize(static_cast<size_t>(cap));
}

void ProposeSearch::tell(const std::vector<double>& scores) {
  const int64_t row = space_.row_elems();
  if (scores.size() != asked_known_.size())
    throw Error("propose: " + std::to_string(scores.size()) + " scores for " + std::to_string(asked_known_.size()) +
                " candidates");
  std::vector<ScoredConfig> fresh, fresh_new, fresh_near;
  for (size_t i = 0; i < scores.size(); ++i) {
    const int64_t k = asked_known_[i];
    if (k < 0) ++scored_new_;
    else known_scores_[static_cast<size_t>(k)] = scores[i];
    if (!std::isfinite(scores[i])) continue;
    ScoredConfig c{std::vector<float>(asked_.begin() + static_cast<int64_t>(i) * row,
                                      asked_.begin() + static_cast<int64_t>(i + 1) * row),
                   scores[i], k};
    if (k >= 0 && c.score < best_known_.score) best_known_ = c;
    if (k < 0) fresh_new.push_back(c);
    if (asked_near_[i]) fresh_near.push_back(c);
    fresh.push_back(std::move(c));
  }
  merge(population_, std::move(fresh), s_.population);
  merge(archive_, std::move(fresh_new), s_.keep);
  merge(near_, std::move(fresh_near), s_.keep);
  asked_known_.clear();
  asked_near_.clear();
  asked_.clear();
}

std::vector<ScoredConfig> ProposeSearch::best_new(int64_t k) const {
  const int64_t row = space_.row_elems();
  std::vector<ScoredConfig> out;
  std::unordered_set<ConfigHash, ConfigHashOf> taken;
  auto take = [&](const std::vector<ScoredConfig>& from, int64_t upto) {
    for (const ScoredConfig& c : from) {
      if (static_cast<int64_t>(out.size()) >= upto) break;
      if (taken.insert(hash_config(c.config.data(), row)).second) out.push_back(c);
    }
  };
  take(near_, k / 2);
  take(archive_, k);
  take(near_, k);  // too few elsewhere
  std::stable_sort(out.begin(), out.end(), [](const ScoredConfig& a, const ScoredConfig& b) { return a.score < b.score; });
  return out;
}

ScoredConfig ProposeSearch::best_known() const { return best_known_; }

}  // namespace fastslow
