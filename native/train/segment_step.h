// Graph segment training (GST, the TpuGraphs authors' method for graphs too
// large to back-propagate through whole): each step runs the graph layers
// without gradient on the whole graph, then with gradient on one segment
// (segments.h) drawn from the step's pick, puts that segment's fresh node
// states in place of the no-gradient ones and reads the scores out of all
// of them. The backward pass holds one segment's activations, not the
// graph's. With one segment it is the whole-graph step exactly.
//
// With a history (GST's --segment-history) the no-gradient pass over the
// whole graph goes: the other segments' shares of the readout come from
// the table of stale outputs (segment_history.h), each segment's kept with
// probability `keep` and scaled by 1 / keep (stale-embedding dropout, which
// keeps the expected sum and makes the model lean less on stale values);
// shares never computed yet, or older than `max_age` steps, are computed
// without gradient first.
#pragma once

#include <map>

#include "train/segment_history.h"
#include "train/segments.h"
#include "train/train_step.h"

namespace fastslow::train {

struct HistoryOptions {
  bool on = false;
  double keep = 0.5;    // GST's stale-embedding dropout
  int64_t max_age = 0;  // steps; 0 = stored shares are used however old (GST)
};

class SegmentStep : public TrainStep {
 public:
  // Throws Error when max_nodes < 1 or keep is outside (0, 1].
  SegmentStep(LossSpec loss, torch::Device device, int64_t max_nodes, uint64_t seed, HistoryOptions history = {});
  torch::Tensor forward_backward(models::RankModelImpl& model, const PreparedData& data, const Pick& pick,
                                 const Batch& b) override;

  // The segment a pick trains: a function of the pick and the seed, so a
  // resumed run draws what the uninterrupted one drew.
  size_t segment_of(const Pick& pick, size_t segments) const;
  const std::vector<GraphSegment>& segments(const PreparedData& data, size_t graph);
  // Whether the stale shares of `segment` are kept this step: a function of
  // the pick, and one draw for all the batch's configs. A ranking loss
  // compares the configs of a batch with each other; had each config its
  // own draw, their scores would differ by which segments they kept.
  bool keeps(const Pick& pick, size_t segment) const;
  const SegmentHistory& history() const { return history_; }

 private:
  LossSpec loss_;
  torch::Device device_;
  int64_t max_nodes_;
  uint64_t seed_;
  HistoryOptions history_options_;
  int64_t calls_ = 0;  // steps taken with the history (a resumed run starts again, with an empty table)
  SegmentHistory history_;
  std::map<size_t, std::vector<GraphSegment>> cut_;  // per training graph, made on first use

  torch::Tensor history_scores(models::SegmentableModel& model, const GraphEntry& e,
                               const std::vector<GraphSegment>& segs, const Pick& pick, const Batch& b);
};

}  // namespace fastslow::train
