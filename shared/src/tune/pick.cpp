#include "fastslow/tune/pick.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "fastslow/error.h"

namespace fastslow {

PickStrategy parse_pick_strategy(const std::string& name) {
  for (PickStrategy s : {PickStrategy::Greedy, PickStrategy::Epsilon, PickStrategy::Disagree, PickStrategy::Random})
    if (name == pick_strategy_name(s)) return s;
  throw Error("--strategy '" + name + "': one of greedy, epsilon, disagree, random");
}

const char* pick_strategy_name(PickStrategy s) {
  switch (s) {
    case PickStrategy::Greedy: return "greedy";
    case PickStrategy::Epsilon: return "epsilon";
    case PickStrategy::Disagree: return "disagree";
    case PickStrategy::Random: return "random";
  }
  return "?";
}

std::vector<int64_t> pick_batch(const std::vector<double>& score, const std::vector<double>& spread,
                                const std::vector<char>& measured, int64_t batch, const PickSettings& settings,
                                Rng& rng) {
  const size_t n = measured.size();
  if (batch < 1) throw Error("pick: the batch must hold at least 1 config, got " + std::to_string(batch));
  if (settings.strategy != PickStrategy::Random && score.size() != n)
    throw Error("pick: " + std::to_string(score.size()) + " scores for " + std::to_string(n) + " candidates");
  if (!spread.empty() && spread.size() != n)
    throw Error("pick: " + std::to_string(spread.size()) + " spreads for " + std::to_string(n) + " candidates");
  if (!(settings.epsilon >= 0 && settings.epsilon <= 1))
    throw Error("pick: epsilon must lie in [0, 1], got " + std::to_string(settings.epsilon));

  std::vector<int64_t> open;
  for (size_t i = 0; i < n; ++i)
    if (!measured[i]) open.push_back(static_cast<int64_t>(i));
  const auto take = static_cast<size_t>(std::min<int64_t>(batch, static_cast<int64_t>(open.size())));
  std::vector<int64_t> out;
  out.reserve(take);
  auto draw_random = [&](std::vector<int64_t>& pool) {
    const int64_t k = rng.uniform_int(0, static_cast<int64_t>(pool.size()) - 1);
    const int64_t c = pool[static_cast<size_t>(k)];
    pool.erase(pool.begin() + k);
    return c;
  };
  if (settings.strategy == PickStrategy::Random) {
    while (out.size() < take) out.push_back(draw_random(open));
    return out;
  }
  const bool lcb = settings.strategy == PickStrategy::Disagree && !spread.empty();
  auto key = [&](int64_t i) {
    const double s = score[static_cast<size_t>(i)];
    const double v = lcb ? s - settings.kappa * spread[static_cast<size_t>(i)] : s;
    return std::isfinite(v) ? v : HUGE_VAL;
  };
  // Best first; ties by index, so a pick is the same on every platform.
  std::stable_sort(open.begin(), open.end(), [&](int64_t a, int64_t b) { return key(a) < key(b); });
  const bool eps = settings.strategy == PickStrategy::Epsilon;
  while (out.size() < take) {
    if (eps && settings.epsilon > 0 && rng.uniform() < settings.epsilon) {
      out.push_back(draw_random(open));
    } else {
      out.push_back(open.front());
      open.erase(open.begin());
    }
  }
  return out;
}

}  // namespace fastslow
