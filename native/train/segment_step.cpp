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

SegmentStep::SegmentStep(LossSpec loss, torch::Device device, int64_t max_nodes, uint64_t seed, HistoryOptions history)
    : loss_(std::move(loss)), device_(device), max_nodes_(max_nodes), seed_(seed), history_options_(history) {
  if (max_nodes < 1) throw Error("--segment-nodes must be >= 1, got " + std::to_string(max_nodes));
  if (!(history.keep > 0 && history.keep <= 1))
    throw Error("--segment-keep must be in (0, 1], got " + std::to_string(history.keep));
}

namespace {

uint64_t pick_hash(uint64_t seed, const Pick& pick) {
  uint64_t h = mix(seed ^ mix(pick.graph));
  for (int64_t g : pick.groups) h = mix(h ^ static_cast<uint64_t>(g));
  return h;
}

}  // namespace

size_t SegmentStep::segment_of(const Pick& pick, size_t segments) const {
  return static_cast<size_t>(pick_hash(seed_, pick) % segments);
}

bool SegmentStep::keeps(const Pick& pick, size_t segment) const {
  const uint64_t h = mix(pick_hash(seed_ ^ 0x5e6d, pick) ^ segment);
  return static_cast<double>(h >> 11) * 0x1.0p-53 < history_options_.keep;
}

const std::vector<GraphSegment>& SegmentStep::segments(const PreparedData& data, size_t graph) {
  auto it = cut_.find(graph);
  if (it == cut_.end()) it = cut_.emplace(graph, make_segments(data.train.at(graph).tensors, max_nodes_)).first;
  return it->second;
}

torch::Tensor SegmentStep::forward_backward(models::RankModelImpl& model, const PreparedData& data, const Pick& pick,
                                            const Batch& b) {
  const GraphEntry& e = data.train.at(pick.graph);
  models::SegmentableModel* split = model.segmentable();
  if (!split) throw Error("graph segment training: this model has no per-node states to train by segments");
  models::SegmentableModel& m = *split;
  const std::vector<GraphSegment>& segs = segments(data, pick.graph);
  if (history_options_.on && segs.size() > 1) {
    torch::Tensor loss = loss_(history_scores(m, e, segs, pick, b), b.target);
    loss.backward();
    return loss;
  }
  torch::Tensor states;
  if (segs.size() == 1) {
    states = m.node_states(e.tensors, b.config_feat);
  } else {
    const GraphSegment& s = segs[segment_of(pick, segs.size())];
    torch::Tensor stale;
    {
      torch::NoGradGuard no_grad;
      stale = m.node_states(e.tensors, b.config_feat);
    }
    const torch::Tensor fresh = m.node_states(s.graph, b.config_feat.index_select(1, s.config_columns));
    states = stale.index_copy(0, s.nodes, fresh);
  }
  torch::Tensor loss = loss_(m.readout(e.tensors, states, b.config_feat), b.target);
  loss.backward();
  return loss;
}

torch::Tensor SegmentStep::history_scores(models::SegmentableModel& model, const GraphEntry& e,
                                          const std::vector<GraphSegment>& segs, const Pick& pick, const Batch& b) {
  const size_t n = segs.size(), fresh_at = segment_of(pick, n);
  const int64_t now = calls_++, oldest = history_options_.max_age > 0 ? now - history_options_.max_age : INT64_MIN;
  const auto share = [&model](const GraphSegment& s, const torch::Tensor& config_feat) {
    const torch::Tensor c = config_feat.index_select(1, s.config_columns);
    return model.segment_summary(s.graph, model.node_states(s.graph, c), c);
  };
  const torch::Tensor fresh = share(segs[fresh_at], b.config_feat);  // [B, P], with gradient
  {
    torch::NoGradGuard no_grad;
    for (size_t k = 0; k < n; ++k) {
      if (k == fresh_at) continue;
      const std::vector<int64_t> rows = history_.missing(pick.graph, k, pick.groups, oldest);
      if (rows.empty()) continue;
      std::vector<int64_t> groups;
      for (int64_t r : rows) groups.push_back(pick.groups[static_cast<size_t>(r)]);
      const torch::Tensor at = torch::tensor(rows, torch::kInt64).to(b.config_feat.device());
      history_.put(pick.graph, n, k, groups, share(segs[k], b.config_feat.index_select(0, at)), now);
    }
  }
  history_.put(pick.graph, n, fresh_at, pick.groups, fresh.detach(), now);
  std::vector<float> w(n, 1.0f);  // one draw per segment, for every row of the batch
  for (size_t k = 0; k < n; ++k)
    if (k != fresh_at) w[k] = keeps(pick, k) ? static_cast<float>(1.0 / history_options_.keep) : 0.0f;
  const torch::Tensor weights = torch::tensor(w, fresh.options().requires_grad(false))
                                    .unsqueeze(1)
                                    .expand({static_cast<int64_t>(n), fresh.size(0)});
  const torch::Tensor index = torch::tensor({static_cast<int64_t>(fresh_at)}, torch::kInt64).to(fresh.device());
  const torch::Tensor shares = history_.get(pick.graph, pick.groups).index_copy(0, index, fresh.unsqueeze(0));
  return model.summary_readout(e.tensors, shares, weights, b.config_feat);
}

}  // namespace fastslow::train
