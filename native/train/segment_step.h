// Graph segment training (GST, the TpuGraphs authors' method for graphs too
// large to back-propagate through whole): each step runs the graph layers
// without gradient on the whole graph, then with gradient on one segment
// (segments.h) drawn from the step's pick, puts that segment's fresh node
// states in place of the no-gradient ones and reads the scores out of all
// of them. The backward pass holds one segment's activations, not the
// graph's. With one segment it is the whole-graph step exactly.
#pragma once

#include <map>

#include "train/segments.h"
#include "train/train_step.h"

namespace fastslow::train {

class SegmentStep : public TrainStep {
 public:
  // Throws Error when max_nodes < 1.
  SegmentStep(LossSpec loss, torch::Device device, int64_t max_nodes, uint64_t seed);
  torch::Tensor forward_backward(models::RankModelImpl& model, const PreparedData& data, const Pick& pick) override;

  // The segment a pick trains: a function of the pick and the seed, so a
  // resumed run draws what the uninterrupted one drew.
  size_t segment_of(const Pick& pick, size_t segments) const;
  const std::vector<GraphSegment>& segments(const PreparedData& data, size_t graph);

 private:
  LossSpec loss_;
  torch::Device device_;
  int64_t max_nodes_;
  uint64_t seed_;
  std::map<size_t, std::vector<GraphSegment>> cut_;  // per training graph, made on first use
};

}  // namespace fastslow::train
