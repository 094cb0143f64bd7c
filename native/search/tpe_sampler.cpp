// Tree-structured Parzen estimator as Optuna defines it (TPESampler with
// its defaults, univariate): `startup` random trials first; then the
// finished trials are split into the best gamma(n) = min(ceil(0.1 n), 25)
// ("below") and the rest ("above"); per parameter, a Parzen mixture l(x)
// is fitted to the below values and g(x) to the above ones, each with a
// prior component; `candidates` draws from l(x) are scored by
// log l(x) - log g(x) and the best is kept.
//  - Numeric parameters (log ones in log space): truncated normals at the
//    observations and at the prior (mid-range, sigma = range); an
//    observation's sigma is the larger gap to its sorted neighbours (the
//    range's ends pad the list; the outermost use their inner gap), clipped
//    to [range / min(100, 1 + components), range] ("magic clip").
//    Integers live on [low - 0.5, high + 0.5] and are rounded.
//  - Categorical: each observation a distribution with mass 1 on its
//    choice plus prior_weight / (observations + 1) on every choice,
//    normalised; the prior a uniform one.
//  - Observation weights: 1 below 25 observations, else a ramp from 1/n to
//    1 over the oldest n - 25 (Optuna's default_weights); the prior weighs
//    prior_weight.
//  - Pruned trials rank after complete ones, deeper (later checkpoint)
//    first, then by their last value; failed ones are ignored.
//  - Several objectives: complete trials ordered by non-dominated front
//    (trial number within a front), a simplification of Optuna's MOTPE,
//    which breaks ties by hypervolume contribution.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "fastslow/error.h"
#include "fastslow/search/pareto.h"
#include "search/search_sampler.h"

namespace fastslow::search {
namespace {

constexpr double kEps = 1e-12;

double norm_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

std::vector<double> default_weights(size_t n) {
  std::vector<double> w(n, 1.0);
  if (n < 25) return w;
  const size_t ramp = n - 25;
  for (size_t i = 0; i < ramp; ++i)
    w[i] = ramp == 1 ? 1.0 / static_cast<double>(n)
                     : 1.0 / static_cast<double>(n) + (1.0 - 1.0 / static_cast<double>(n)) * static_cast<double>(i) /
                                                          static_cast<double>(ramp - 1);
  return w;
}

struct Numeric {  // a truncated-normal mixture on [lo, hi]
  std::vector<double> mu, sigma, weight;
  double lo = 0, hi = 1;

  Numeric(const std::vector<double>& obs, const std::vector<double>& obs_w, double lo_, double hi_, double prior_w)
      : lo(lo_), hi(hi_) {
    const double range = hi - lo;
    const double prior_mu = 0.5 * (lo + hi);
    std::vector<double> mus = obs;
    std::vector<double> ws = obs_w;
    mus.push_back(prior_mu);
    ws.push_back(prior_w);
    const size_t n = mus.size(), prior_at = n - 1;
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return mus[a] < mus[b]; });
    std::vector<double> padded(n + 2);
    padded[0] = lo;
    padded[n + 1] = hi;
    for (size_t i = 0; i < n; ++i) padded[i + 1] = mus[order[i]];
    std::vector<double> sorted_sigma(n);
    for (size_t i = 0; i < n; ++i) sorted_sigma[i] = std::max(padded[i + 1] - padded[i], padded[i + 2] - padded[i + 1]);
    if (n >= 2) {  // ends not considered: the outermost take their inner gap
      sorted_sigma[0] = padded[2] - padded[1];
      sorted_sigma[n - 1] = padded[n] - padded[n - 1];
    }
    const double min_sigma = range / std::min(100.0, 1.0 + static_cast<double>(n));
    sigma.assign(n, 0);
    for (size_t i = 0; i < n; ++i) sigma[order[i]] = std::clamp(sorted_sigma[i], min_sigma, range);
    sigma[prior_at] = range;
    mu = mus;
    const double total = std::accumulate(ws.begin(), ws.end(), 0.0);
    for (double& w : ws) w /= total;
    weight = ws;
  }

  double sample(std::mt19937_64& rng) const {
    std::discrete_distribution<size_t> pick(weight.begin(), weight.end());
    const size_t k = pick(rng);
    std::normal_distribution<double> normal(mu[k], sigma[k]);
    for (int tries = 0; tries < 1000; ++tries) {
      const double x = normal(rng);
      if (x >= lo && x <= hi) return x;
    }
    return std::clamp(mu[k], lo, hi);
  }

  double log_pdf(double x) const {
    double p = 0;
    for (size_t k = 0; k < mu.size(); ++k) {
      const double s = sigma[k];
      const double mass = norm_cdf((hi - mu[k]) / s) - norm_cdf((lo - mu[k]) / s);
      const double z = (x - mu[k]) / s;
      p += weight[k] * std::exp(-0.5 * z * z) / (s * std::sqrt(2 * M_PI) * std::max(mass, kEps));
    }
    return std::log(std::max(p, std::numeric_limits<double>::min()));
  }
};

std::vector<double> categorical_probs(const std::vector<int>& obs, const std::vector<double>& obs_w, size_t choices,
                                      double prior_w) {
  // Optuna's kernels: prior_w / kernels on every choice, plus 1 on the
  // observed one, each row normalised; the prior's row is uniform.
  const double kernels = static_cast<double>(obs.size()) + 1.0;
  const double spread = prior_w / kernels;
  const double row = 1.0 + spread * static_cast<double>(choices);
  std::vector<double> p(choices, 0.0);
  double total = prior_w;
  for (double w : obs_w) total += w;
  for (size_t i = 0; i < obs.size(); ++i)
    for (size_t c = 0; c < choices; ++c) p[c] += obs_w[i] / total * (spread + (static_cast<int>(c) == obs[i])) / row;
  for (size_t c = 0; c < choices; ++c) p[c] += prior_w / total / static_cast<double>(choices);
  return p;
}

class TpeSampler : public SearchSampler {
 public:
  TpeSampler(Space space, std::vector<Objective> objectives, uint64_t seed, TpeSettings s)
      : space_(std::move(space)), objectives_(std::move(objectives)), seed_(seed), s_(std::move(s)) {}

  std::optional<nlohmann::json> ask(int64_t number, const std::vector<Trial>& finished) override {
    std::mt19937_64 rng(trial_seed(seed_, number));
    std::vector<const Trial*> ranked = rank(finished);
    if (static_cast<int>(ranked.size()) < s_.startup) {
      std::uniform_real_distribution<double> unit(0.0, 1.0);
      std::vector<double> u(space_.params.size());
      for (double& x : u) x = unit(rng);
      return space_.from_unit(u);
    }
    const size_t n_below = std::min<size_t>(static_cast<size_t>(std::ceil(0.1 * static_cast<double>(ranked.size()))), 25);
    std::vector<const Trial*> below(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(n_below));
    std::vector<const Trial*> above(ranked.begin() + static_cast<std::ptrdiff_t>(n_below), ranked.end());
    // Optuna weighs observations by age: trial-number order.
    auto by_number = [](const Trial* a, const Trial* b) { return a->number < b->number; };
    std::sort(below.begin(), below.end(), by_number);
    std::sort(above.begin(), above.end(), by_number);

    nlohmann::json out = nlohmann::json::object();
    for (const Param& p : space_.params) out[p.name] = sample_param(p, below, above, rng);
    return out;
  }

 private:
  // Complete trials best first, then pruned ones; failed ones left out.
  std::vector<const Trial*> rank(const std::vector<Trial>& finished) const {
    std::vector<const Trial*> complete, pruned;
    for (const Trial& t : finished) {
      if (objective_values(t, objectives_)) complete.push_back(&t);
      else if (t.state == TrialState::Pruned) pruned.push_back(&t);
    }
    if (objectives_.size() == 1) {
      const bool max = objectives_[0].direction == Direction::Maximize;
      const std::string& name = objectives_[0].name;
      std::stable_sort(complete.begin(), complete.end(), [&](const Trial* a, const Trial* b) {
        const double x = a->objectives.at(name), y = b->objectives.at(name);
        return max ? x > y : x < y;
      });
    } else {
      complete = by_fronts(complete);
    }
    const bool max = objectives_[0].direction == Direction::Maximize;
    std::stable_sort(pruned.begin(), pruned.end(), [&](const Trial* a, const Trial* b) {
      const int64_t sa = a->intermediate.empty() ? 0 : a->intermediate.back().first;
      const int64_t sb = b->intermediate.empty() ? 0 : b->intermediate.back().first;
      if (sa != sb) return sa > sb;
      const double x = a->intermediate.empty() ? NAN : a->intermediate.back().second;
      const double y = b->intermediate.empty() ? NAN : b->intermediate.back().second;
      if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
      return max ? x > y : x < y;
    });
    complete.insert(complete.end(), pruned.begin(), pruned.end());
    return complete;
  }

  std::vector<const Trial*> by_fronts(std::vector<const Trial*> left) const {
    std::vector<Direction> dirs;
    for (const auto& o : objectives_) dirs.push_back(o.direction);
    std::vector<const Trial*> out;
    while (!left.empty()) {
      std::vector<std::vector<double>> pts;
      for (const Trial* t : left) pts.push_back(*objective_values(*t, objectives_));
      const std::vector<size_t> front = pareto_front(pts, dirs);
      std::vector<const Trial*> rest;
      size_t f = 0;
      for (size_t i = 0; i < left.size(); ++i) {
        if (f < front.size() && front[f] == i) {
          out.push_back(left[i]);
          ++f;
        } else {
          rest.push_back(left[i]);
        }
      }
      left = std::move(rest);
    }
    return out;
  }

  nlohmann::json sample_param(const Param& p, const std::vector<const Trial*>& below,
                              const std::vector<const Trial*>& above, std::mt19937_64& rng) const {
    if (p.kind == ParamKind::Categorical) {
      auto observe = [&](const std::vector<const Trial*>& ts, std::vector<int>& idx) {
        for (const Trial* t : ts)
          if (t->params.contains(p.name)) {
            const int i = p.choice_index(t->params.at(p.name));
            if (i >= 0) idx.push_back(i);
          }
      };
      std::vector<int> ob, oa;
      observe(below, ob);
      observe(above, oa);
      const auto pl = categorical_probs(ob, default_weights(ob.size()), p.choices.size(), s_.prior_weight);
      const auto pg = categorical_probs(oa, default_weights(oa.size()), p.choices.size(), s_.prior_weight);
      std::discrete_distribution<size_t> pick(pl.begin(), pl.end());
      size_t best = 0;
      double best_score = -std::numeric_limits<double>::infinity();
      for (int c = 0; c < s_.candidates; ++c) {
        const size_t i = pick(rng);
        const double score = std::log(pl[i]) - std::log(pg[i]);
        if (score > best_score) best_score = score, best = i;
      }
      return p.choices[best];
    }
    const bool is_int = p.kind == ParamKind::Int;
    auto tr = [&](double v) { return p.log ? std::log(v) : v; };
    auto inv = [&](double x) { return p.log ? std::exp(x) : x; };
    const double lo = tr(is_int ? p.low - 0.5 : p.low), hi = tr(is_int ? p.high + 0.5 : p.high);
    auto observe = [&](const std::vector<const Trial*>& ts) {
      std::vector<double> v;
      for (const Trial* t : ts)
        if (t->params.contains(p.name) && t->params.at(p.name).is_number()) v.push_back(tr(t->params.at(p.name).get<double>()));
      return v;
    };
    const std::vector<double> ob = observe(below), oa = observe(above);
    const Numeric l(ob, default_weights(ob.size()), lo, hi, s_.prior_weight);
    const Numeric g(oa, default_weights(oa.size()), lo, hi, s_.prior_weight);
    double best = 0, best_score = -std::numeric_limits<double>::infinity();
    for (int c = 0; c < s_.candidates; ++c) {
      double x = l.sample(rng);
      if (is_int) x = tr(std::clamp(std::round(inv(x)), p.low, p.high));
      const double score = l.log_pdf(x) - g.log_pdf(x);
      if (score > best_score) best_score = score, best = x;
    }
    const double v = std::clamp(inv(best), p.low, p.high);
    if (is_int) return static_cast<int64_t>(std::llround(v));
    return v;
  }

  Space space_;
  std::vector<Objective> objectives_;
  uint64_t seed_;
  TpeSettings s_;
};

}  // namespace

std::unique_ptr<SearchSampler> make_tpe_sampler(const Space& space, const std::vector<Objective>& objectives,
                                                uint64_t seed, const TpeSettings& s) {
  if (objectives.empty()) throw Error("search: tpe needs at least one objective");
  if (s.candidates < 1) throw Error("search: candidates must be at least 1, got " + std::to_string(s.candidates));
  if (s.startup < 0) throw Error("search: startup must be >= 0, got " + std::to_string(s.startup));
  if (!(s.prior_weight > 0)) throw Error("search: prior_weight must be > 0");
  return std::make_unique<TpeSampler>(space, objectives, seed, s);
}

}  // namespace fastslow::search
