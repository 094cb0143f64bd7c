// What each training step learns from: a graph and some of its duplicate
// groups. The trainer asks the sampler for step (epoch, step) and nothing
// else, so a data-parallel run can hand each rank its own share of the
// steps by replacing the sampler alone (wrapping the default one).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "train/options.h"
#include "fastslow/rng.h"
#include "train/prepared_data.h"

namespace fastslow::train {

struct Pick {
  size_t graph = 0;             // index into the prepared training graphs
  std::vector<int64_t> groups;  // duplicate groups of that graph, the batch's configs
};

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual int64_t steps_per_epoch() const = 0;
  // A function of (epoch, step) only: a resumed run gets the picks the
  // uninterrupted run got.
  virtual Pick pick(int64_t epoch, int64_t step) = 0;
};

// The default: each epoch visits the trainable graphs in a shuffled order
// (again and again until the epoch's steps are filled), each step takes
// `configs_per_graph` distinct groups of the graph's train_groups.
class EpochSampler : public Sampler {
 public:
  // Throws Error when no training graph has two groups to rank.
  EpochSampler(std::shared_ptr<const PreparedData> data, int64_t steps_per_epoch, int64_t configs_per_graph,
               uint64_t seed, int64_t graphs_per_step = 1);
  int64_t steps_per_epoch() const override { return steps_; }
  Pick pick(int64_t epoch, int64_t step) override;

 private:
  std::shared_ptr<const PreparedData> data_;
  std::vector<size_t> trainable_;
  int64_t steps_, configs_per_graph_;
  uint64_t seed_;
  int64_t graphs_per_step_;
  int64_t plan_epoch_ = -1;
  std::vector<size_t> plan_;  // the graph of each step of plan_epoch_
};

// Several sources (collections): each step first draws a source with
// probability proportional to its weight, then that source's next graph
// in a shuffled round of its trainable graphs (so a small collection is
// not drowned by a large one, as in MixSearch). Groups as EpochSampler.
class MixSampler : public Sampler {
 public:
  // Throws Error when no source has a trainable graph.
  MixSampler(std::shared_ptr<const PreparedData> data, int64_t steps_per_epoch, int64_t configs_per_graph,
             uint64_t seed, int64_t graphs_per_step = 1);
  int64_t steps_per_epoch() const override { return steps_; }
  Pick pick(int64_t epoch, int64_t step) override;

 private:
  std::shared_ptr<const PreparedData> data_;
  std::vector<std::vector<size_t>> by_source_;  // trainable graphs of each source
  // Running sums of the weights (0 for sources without trainable graphs):
  // a uniform draw below the total falls in the source it lands on.
  std::vector<double> cumulative_;
  int64_t steps_, configs_per_graph_;
  uint64_t seed_;
  int64_t graphs_per_step_;
  int64_t plan_epoch_ = -1;
  std::vector<size_t> plan_;
};

// Steps per epoch when --steps-per-epoch is left out: per-program, one pass
// over the training configs; collections, one visit per trainable graph
// (divided by --graphs-per-step, rounded up, as a step visits that many),
// and at least 200 steps for layout graphs (generated layout:xla:random
// small: 500 steps 0.48, 6,000 steps 0.83 valid Kendall) or 50 for tile.
int64_t default_steps_per_epoch(const TrainOptions& o, const PreparedData& data);
// The sampler a run gets unless another is set: EpochSampler (MixSampler
// for several sources) with the run's steps times its graphs per step
// (one pick per graph), configs per graph and seed.
std::unique_ptr<Sampler> default_sampler(const TrainOptions& o, std::shared_ptr<const PreparedData> data);

// A plan's picks regrouped so that each run of `graphs_per_step` picks (one
// step, whose graphs data-parallel processes train side by side and wait
// for the slowest of) holds graphs of similar size: within windows of
// 8 steps the picks are sorted by node count and cut into steps, and the
// steps and the picks within each are shuffled with `rng`. Each window keeps
// its picks, so an epoch visits what it visited before.
void balance_steps(std::vector<size_t>* plan, int64_t graphs_per_step, const PreparedData& data, Rng& rng);

// `count` distinct members of `pool` (all of it when count >= its size),
// drawn with `seed`.
std::vector<int64_t> sample_groups(const std::vector<int64_t>& pool, int64_t count, uint64_t seed);

}  // namespace fastslow::train
