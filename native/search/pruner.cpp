#include "search/pruner.h"

#include <algorithm>
#include <cmath>

#include "fastslow/error.h"

namespace fastslow::search {
namespace {

std::optional<double> value_at(const Trial& t, int64_t checkpoint) {
  for (const auto& [c, v] : t.intermediate)
    if (c == checkpoint && std::isfinite(v)) return v;
  return std::nullopt;
}

bool better(double a, double b, Direction d) { return d == Direction::Maximize ? a > b : a < b; }

// Optuna's MedianPruner: worse than the median of the complete trials'
// values at the same checkpoint, once `startup` trials are complete.
class MedianPruner : public Pruner {
 public:
  explicit MedianPruner(PrunerSettings s) : s_(std::move(s)) {}
  bool prune(const Trial& running, const std::vector<Trial>& finished, Direction d, int64_t last) const override {
    if (running.intermediate.empty()) return false;
    const auto [checkpoint, value] = running.intermediate.back();
    if (checkpoint >= last || checkpoint <= s_.warmup) return false;
    std::vector<double> others;
    int complete = 0;
    for (const Trial& t : finished) {
      if (t.state != TrialState::Complete) continue;
      ++complete;
      if (auto v = value_at(t, checkpoint)) others.push_back(*v);
    }
    if (complete < s_.startup || others.empty()) return false;
    if (!std::isfinite(value)) return true;
    std::sort(others.begin(), others.end());
    const size_t n = others.size();
    const double median = n % 2 ? others[n / 2] : 0.5 * (others[n / 2 - 1] + others[n / 2]);
    return better(median, value, d);
  }
  std::string why(const Trial& running) const override {
    return "below the median of complete trials at checkpoint " + std::to_string(running.intermediate.back().first);
  }

 private:
  PrunerSettings s_;
};

// Asynchronous successive halving as Optuna's SuccessiveHalvingPruner:
// rungs at checkpoints 1, r, r^2, ...; at a rung the trial goes on only if
// its value is among the best max(1, n / r) of the n trials (itself
// included) that reached the rung.
class HalvingPruner : public Pruner {
 public:
  explicit HalvingPruner(PrunerSettings s) : s_(std::move(s)) {}
  bool prune(const Trial& running, const std::vector<Trial>& finished, Direction d, int64_t last) const override {
    if (running.intermediate.empty()) return false;
    const auto [checkpoint, value] = running.intermediate.back();
    if (checkpoint >= last || !is_rung(checkpoint)) return false;
    if (!std::isfinite(value)) return true;
    std::vector<double> at_rung = {value};
    for (const Trial& t : finished)
      if (auto v = value_at(t, checkpoint)) at_rung.push_back(*v);
    std::sort(at_rung.begin(), at_rung.end(), [&](double a, double b) { return better(a, b, d); });
    const size_t keep = std::max<size_t>(1, at_rung.size() / static_cast<size_t>(s_.reduction));
    return better(at_rung[keep - 1], value, d);
  }
  std::string why(const Trial& running) const override {
    return "not in the best 1/" + std::to_string(s_.reduction) + " at rung checkpoint " +
           std::to_string(running.intermediate.back().first);
  }

 private:
  bool is_rung(int64_t checkpoint) const {
    for (int64_t r = 1; r <= checkpoint; r *= s_.reduction)
      if (r == checkpoint) return true;
    return false;
  }
  PrunerSettings s_;
};

}  // namespace

std::unique_ptr<Pruner> make_pruner(const PrunerSettings& s) {
  if (s.name == "none") return nullptr;
  if (s.name == "median") {
    if (s.startup < 0 || s.warmup < 0) throw Error("search: the median pruner's startup and warmup must be >= 0");
    return std::make_unique<MedianPruner>(s);
  }
  if (s.name == "halving") {
    if (s.reduction < 2) throw Error("search: the halving pruner's reduction must be at least 2, got " + std::to_string(s.reduction));
    return std::make_unique<HalvingPruner>(s);
  }
  throw Error("search: pruner must be none, median or halving, got \"" + s.name + "\"");
}

}  // namespace fastslow::search
