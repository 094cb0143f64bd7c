#include "train/segment_history.h"

#include <string>

#include "fastslow/error.h"

namespace fastslow::train {

std::vector<int64_t> SegmentHistory::missing(size_t graph, size_t segment, const std::vector<int64_t>& groups,
                                             int64_t oldest) const {
  std::vector<int64_t> out;
  for (size_t b = 0; b < groups.size(); ++b) {
    const auto it = rows_.find({graph, groups[b]});
    if (it == rows_.end() || !it->second.filled.at(segment) || it->second.made.at(segment) < oldest)
      out.push_back(static_cast<int64_t>(b));
  }
  return out;
}

void SegmentHistory::put(size_t graph, size_t segments, size_t segment, const std::vector<int64_t>& groups,
                         const torch::Tensor& shares, int64_t step) {
  torch::NoGradGuard no_grad;
  if (shares.dim() != 2 || shares.size(0) != static_cast<int64_t>(groups.size()))
    throw Error("segment history: " + std::to_string(groups.size()) + " groups but shares of shape " +
                std::to_string(shares.dim()) + "-d, first size " + std::to_string(shares.dim() ? shares.size(0) : 0));
  for (size_t b = 0; b < groups.size(); ++b) {
    Row& row = rows_[{graph, groups[b]}];
    if (!row.shares.defined()) {
      row.shares = torch::zeros({static_cast<int64_t>(segments), shares.size(1)}, shares.options());
      row.filled.assign(segments, false);
      row.made.assign(segments, 0);
    }
    row.shares[static_cast<int64_t>(segment)].copy_(shares[static_cast<int64_t>(b)]);
    row.filled.at(segment) = true;
    row.made.at(segment) = step;
  }
}

torch::Tensor SegmentHistory::get(size_t graph, const std::vector<int64_t>& groups) const {
  std::vector<torch::Tensor> rows;
  for (int64_t g : groups) {
    const auto it = rows_.find({graph, g});
    bool complete = it != rows_.end();
    if (complete)
      for (bool f : it->second.filled) complete = complete && f;
    if (!complete)
      throw Error("segment history: graph " + std::to_string(graph) + " group " + std::to_string(g) +
                  " lacks a stored segment share");
    rows.push_back(it->second.shares);
  }
  return torch::stack(rows, 1);  // [segments, B, P]
}

int64_t SegmentHistory::bytes() const {
  int64_t total = 0;
  for (const auto& [key, row] : rows_) total += row.shares.numel() * static_cast<int64_t>(row.shares.element_size());
  return total;
}

}  // namespace fastslow::train
