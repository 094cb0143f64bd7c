#include "train/segment_step.h"

#include "fastslow/error.h"

namespace fastslow::train {

namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

SegmentStep::SegmentStep(LossSpec loss, torch::Device device, int64_t max_nodes, uint64_t seed)
    : loss_(std::move(loss)), device_(device), max_nodes_(max_nodes), seed_(seed) {
  if (max_nodes < 1) throw Error("--segment-nodes must be >= 1, got " + std::to_string(max_nodes));
}

size_t SegmentStep::segment_of(const Pick& pick, size_t segments) const {
  uint64_t h = mix(seed_ ^ mix(pick.graph));
  for (int64_t g : pick.groups) h = mix(h ^ static_cast<uint64_t>(g));
  return static_cast<size_t>(h % segments);
}

const std::vector<GraphSegment>& SegmentStep::segments(const PreparedData& data, size_t graph) {
  auto it = cut_.find(graph);
  if (it == cut_.end()) it = cut_.emplace(graph, make_segments(data.train.at(graph).tensors, max_nodes_)).first;
  return it->second;
}

torch::Tensor SegmentStep::forward_backward(models::RankModelImpl& model, const PreparedData& data, const Pick& pick) {
  const GraphEntry& e = data.train.at(pick.graph);
  const Batch b = make_batch(e, pick.groups, data.norm, device_);
  const std::vector<GraphSegment>& segs = segments(data, pick.graph);
  torch::Tensor states;
  if (segs.size() == 1) {
    states = model.node_states(e.tensors, b.config_feat);
  } else {
    const GraphSegment& s = segs[segment_of(pick, segs.size())];
    torch::Tensor stale;
    {
      torch::NoGradGuard no_grad;
      stale = model.node_states(e.tensors, b.config_feat);
    }
    const torch::Tensor fresh = model.node_states(s.graph, b.config_feat.index_select(1, s.config_columns));
    states = stale.index_copy(0, s.nodes, fresh);
  }
  torch::Tensor loss = loss_(model.readout(e.tensors, states, b.config_feat), b.target);
  loss.backward();
  return loss;
}

}  // namespace fastslow::train
