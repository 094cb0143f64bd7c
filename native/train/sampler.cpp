#include "train/sampler.h"

#include <algorithm>
#include <unordered_set>

#include "fastslow/error.h"
#include "fastslow/rng.h"

namespace fastslow::train {

std::vector<int64_t> sample_groups(const std::vector<int64_t>& pool, int64_t count, uint64_t seed) {
  if (count >= static_cast<int64_t>(pool.size())) return pool;
  Rng rng(seed);
  std::vector<int64_t> out;
  std::unordered_set<int64_t> taken;
  const int64_t n = static_cast<int64_t>(pool.size());
  // Floyd's algorithm: `count` distinct picks without touching the whole pool.
  for (int64_t j = n - count; j < n; ++j) {
    const int64_t t = rng.uniform_int(0, j);
    const int64_t pick = taken.count(t) ? j : t;
    taken.insert(pick);
    out.push_back(pool[pick]);
  }
  return out;
}

namespace {

// Fisher-Yates, last place first: the order every plan has been drawn in.
template <typename It>
void shuffle(It first, It last, Rng& rng) {
  for (int64_t i = (last - first) - 1; i > 0; --i) std::swap(first[i], first[rng.uniform_int(0, i)]);
}

}  // namespace

void balance_steps(std::vector<size_t>* plan, int64_t graphs_per_step, const PreparedData& data, Rng& rng) {
  if (graphs_per_step <= 1) return;
  const size_t g = static_cast<size_t>(graphs_per_step), window = g * 8;
  for (size_t at = 0; at < plan->size(); at += window) {
    const auto first = plan->begin() + static_cast<std::ptrdiff_t>(at);
    const auto last = plan->begin() + static_cast<std::ptrdiff_t>(std::min(plan->size(), at + window));
    std::stable_sort(first, last, [&data](size_t a, size_t b) {
      return data.train[a].tensors.num_nodes < data.train[b].tensors.num_nodes;
    });
    std::vector<std::vector<size_t>> steps;
    for (auto it = first; it < last; it += std::min<std::ptrdiff_t>(g, last - it)) {
      steps.emplace_back(it, it + std::min<std::ptrdiff_t>(g, last - it));
      shuffle(steps.back().begin(), steps.back().end(), rng);
    }
    // A short last step (the window's end) stays last: it must not move a
    // full step across the window's step boundaries.
    const size_t full = (last - first) / static_cast<std::ptrdiff_t>(g);
    shuffle(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(full), rng);
    auto out = first;
    for (const auto& s : steps) out = std::copy(s.begin(), s.end(), out);
  }
}

namespace {

// The batch of a step: its graph's groups drawn with a seed of (epoch, step).
Pick pick_groups(const PreparedData& d, size_t graph, int64_t epoch, int64_t step, int64_t count, uint64_t seed) {
  Pick p;
  p.graph = graph;
  const uint64_t batch_seed = mix_seed(mix_seed(seed, static_cast<uint64_t>(epoch)), static_cast<uint64_t>(step));
  p.groups = sample_groups(d.train[graph].train_groups, count, batch_seed);
  return p;
}

}  // namespace

EpochSampler::EpochSampler(std::shared_ptr<const PreparedData> data, int64_t steps_per_epoch,
                           int64_t configs_per_graph, uint64_t seed, int64_t graphs_per_step)
    : data_(std::move(data)),
      trainable_(data_->trainable()),
      steps_(steps_per_epoch),
      configs_per_graph_(configs_per_graph),
      seed_(seed),
      graphs_per_step_(graphs_per_step) {
  if (trainable_.empty())
    throw Error(data_->source, "",
                "no training graph has two distinct configs to rank (" + std::to_string(data_->train.size()) +
                    " training graphs)");
  if (steps_ < 1) throw Error(data_->source, "", "a sampler needs at least one step per epoch");
}

Pick EpochSampler::pick(int64_t epoch, int64_t step) {
  if (epoch != plan_epoch_) {
    Rng rng(mix_seed(seed_, static_cast<uint64_t>(epoch) * 2 + 1));
    plan_.clear();
    while (static_cast<int64_t>(plan_.size()) < steps_) {
      std::vector<size_t> round = trainable_;
      shuffle(round.begin(), round.end(), rng);
      plan_.insert(plan_.end(), round.begin(), round.end());
    }
    plan_.resize(static_cast<size_t>(steps_));
    balance_steps(&plan_, graphs_per_step_, *data_, rng);
    plan_epoch_ = epoch;
  }
  return pick_groups(*data_, plan_.at(static_cast<size_t>(step)), epoch, step, configs_per_graph_, seed_);
}

MixSampler::MixSampler(std::shared_ptr<const PreparedData> data, int64_t steps_per_epoch, int64_t configs_per_graph,
                       uint64_t seed, int64_t graphs_per_step)
    : data_(std::move(data)),
      steps_(steps_per_epoch),
      configs_per_graph_(configs_per_graph),
      seed_(seed),
      graphs_per_step_(graphs_per_step) {
  by_source_.resize(data_->sources.size());
  for (size_t i : data_->trainable()) by_source_.at(static_cast<size_t>(data_->train_source.at(i))).push_back(i);
  double total = 0;
  for (size_t s = 0; s < by_source_.size(); ++s) {
    total += by_source_[s].empty() ? 0.0 : data_->source_weight.at(s);
    cumulative_.push_back(total);
  }
  if (!(total > 0))
    throw Error(data_->source, "", "no training graph of any collection has two distinct configs to rank");
  if (steps_ < 1) throw Error(data_->source, "", "a sampler needs at least one step per epoch");
}

Pick MixSampler::pick(int64_t epoch, int64_t step) {
  if (epoch != plan_epoch_) {
    Rng rng(mix_seed(seed_, static_cast<uint64_t>(epoch) * 2 + 1));
    std::vector<std::vector<size_t>> round(by_source_.size());
    std::vector<size_t> next(by_source_.size(), 0);
    plan_.clear();
    while (static_cast<int64_t>(plan_.size()) < steps_) {
      const double u = rng.uniform() * cumulative_.back();
      const size_t s = static_cast<size_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), u) - cumulative_.begin());
      if (next[s] == round[s].size()) {  // a fresh shuffled round of this source
        round[s] = by_source_[s];
        shuffle(round[s].begin(), round[s].end(), rng);
        next[s] = 0;
      }
      plan_.push_back(round[s][next[s]++]);
    }
    balance_steps(&plan_, graphs_per_step_, *data_, rng);
    plan_epoch_ = epoch;
  }
  return pick_groups(*data_, plan_.at(static_cast<size_t>(step)), epoch, step, configs_per_graph_, seed_);
}

int64_t default_steps_per_epoch(const TrainOptions& o, const PreparedData& d) {
  if (o.steps_per_epoch) return *o.steps_per_epoch;
  int64_t graphs = 0;
  if (d.per_program)
    graphs = std::max<int64_t>(10, static_cast<int64_t>(d.train.at(0).train_groups.size()) / *o.configs_per_graph);
  else
    graphs = std::max<int64_t>(d.kind == GraphKind::Layout ? 200 : 50, static_cast<int64_t>(d.trainable().size()));
  // A step of several graphs (processes, accumulation) covers that many visits.
  const int64_t per_step = o.graphs_per_step.value_or(1);
  return (graphs + per_step - 1) / per_step;
}

std::unique_ptr<Sampler> default_sampler(const TrainOptions& o, std::shared_ptr<const PreparedData> data) {
  // The sampler hands out picks; a step takes graphs_per_step of them.
  const int64_t per_step = o.graphs_per_step.value_or(1);
  const int64_t steps = default_steps_per_epoch(o, *data) * per_step;
  if (data->sources.size() > 1)
    return std::make_unique<MixSampler>(std::move(data), steps, *o.configs_per_graph, o.seed, per_step);
  return std::make_unique<EpochSampler>(std::move(data), steps, *o.configs_per_graph, o.seed, per_step);
}

}  // namespace fastslow::train
