// GST's table of stale segment outputs (--segment-history): per (training
// graph, config group, segment), the share the model's readout last got
// from that segment (models::RankModelImpl::segment_summary), so a step
// computes one segment afresh and reads the others from the table instead
// of running the whole graph. Kept in memory only: a resumed run fills it
// again as it goes.
#pragma once

#include <torch/torch.h>

#include <climits>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace fastslow::train {

class SegmentHistory {
 public:
  // The positions in `groups` with no share stored for `segment`, or one
  // stored before step `oldest`.
  std::vector<int64_t> missing(size_t graph, size_t segment, const std::vector<int64_t>& groups,
                               int64_t oldest = INT64_MIN) const;
  // shares [groups.size(), P] become the stored shares of `segment` of
  // those groups (of a graph cut into `segments`), made at `step`. Stored
  // detached.
  void put(size_t graph, size_t segments, size_t segment, const std::vector<int64_t>& groups,
           const torch::Tensor& shares, int64_t step = 0);
  // [segments, groups.size(), P]: every segment's stored share; throws Error
  // where one is missing (fill them with put first).
  torch::Tensor get(size_t graph, const std::vector<int64_t>& groups) const;
  int64_t bytes() const;

 private:
  struct Row {
    torch::Tensor shares;      // [segments, P]
    std::vector<bool> filled;  // per segment
    std::vector<int64_t> made;  // per segment: the step its share is from
  };
  std::map<std::pair<size_t, int64_t>, Row> rows_;  // (graph, group)
};

}  // namespace fastslow::train
