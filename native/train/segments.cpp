#include "train/segments.h"

#include <algorithm>
#include <cmath>
#include <queue>

#include "fastslow/error.h"
#include "fastslow/features/layout_context.h"

namespace fastslow::train {

namespace {

template <class T>
std::vector<T> to_vector(const torch::Tensor& t) {
  const torch::Tensor c = t.to(torch::kCPU).contiguous();
  return std::vector<T>(c.data_ptr<T>(), c.data_ptr<T>() + c.numel());
}

}  // namespace

std::vector<int64_t> topological_order(const models::GraphTensors& g) {
  const int64_t n = g.num_nodes;
  const std::vector<int64_t> src = to_vector<int64_t>(g.edge_src), dst = to_vector<int64_t>(g.edge_dst);
  std::vector<int64_t> indegree(static_cast<size_t>(n), 0);
  std::vector<std::vector<int64_t>> users(static_cast<size_t>(n));
  for (size_t i = 0; i < src.size(); ++i) {
    users[static_cast<size_t>(src[i])].push_back(dst[i]);
    ++indegree[static_cast<size_t>(dst[i])];
  }
  std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>> ready;
  for (int64_t v = 0; v < n; ++v)
    if (indegree[static_cast<size_t>(v)] == 0) ready.push(v);
  std::vector<int64_t> order;
  std::vector<char> placed(static_cast<size_t>(n), 0);
  order.reserve(static_cast<size_t>(n));
  while (!ready.empty()) {
    const int64_t v = ready.top();
    ready.pop();
    order.push_back(v);
    placed[static_cast<size_t>(v)] = 1;
    for (int64_t u : users[static_cast<size_t>(v)])
      if (--indegree[static_cast<size_t>(u)] == 0) ready.push(u);
  }
  for (int64_t v = 0; v < n; ++v)
    if (!placed[static_cast<size_t>(v)]) order.push_back(v);
  return order;
}

std::vector<GraphSegment> make_segments(const models::GraphTensors& g, int64_t max_nodes) {
  if (max_nodes < 1) throw Error("--segment-nodes must be >= 1, got " + std::to_string(max_nodes));
  const int64_t n = g.num_nodes;
  const torch::Device device = g.node_feat.device();
  const std::vector<int64_t> order = topological_order(g);
  const std::vector<int64_t> src = to_vector<int64_t>(g.edge_src), dst = to_vector<int64_t>(g.edge_dst);
  const std::vector<int64_t> config_nodes = to_vector<int64_t>(g.config_nodes);
  const torch::Tensor feat = g.node_feat.to(torch::kCPU).contiguous();
  const torch::Tensor opcode = g.opcode.to(torch::kCPU).contiguous();
  const torch::Tensor context = g.config_context.defined() ? g.config_context.to(torch::kCPU).contiguous() : torch::Tensor();
  const int64_t width = feat.size(1);

  // Segment of each node, its place there, and the configurable nodes' places.
  std::vector<int64_t> segment_of(static_cast<size_t>(n)), local(static_cast<size_t>(n));
  const int64_t count = std::max<int64_t>(1, (n + max_nodes - 1) / max_nodes);
  std::vector<std::vector<int64_t>> members(static_cast<size_t>(count));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = order[static_cast<size_t>(i)], s = i / max_nodes;
    segment_of[static_cast<size_t>(v)] = s;
    local[static_cast<size_t>(v)] = static_cast<int64_t>(members[static_cast<size_t>(s)].size());
    members[static_cast<size_t>(s)].push_back(v);
  }
  std::vector<std::vector<int64_t>> edges(static_cast<size_t>(count));  // [u, v] rows, local ids
  for (size_t i = 0; i < src.size(); ++i) {
    const int64_t s = segment_of[static_cast<size_t>(src[i])];
    if (s != segment_of[static_cast<size_t>(dst[i])]) continue;
    edges[static_cast<size_t>(s)].push_back(local[static_cast<size_t>(dst[i])]);
    edges[static_cast<size_t>(s)].push_back(local[static_cast<size_t>(src[i])]);
  }
  std::vector<std::vector<int64_t>> config_positions(static_cast<size_t>(count)), columns(static_cast<size_t>(count));
  for (size_t j = 0; j < config_nodes.size(); ++j) {
    const int64_t v = config_nodes[j], s = segment_of[static_cast<size_t>(v)];
    config_positions[static_cast<size_t>(s)].push_back(local[static_cast<size_t>(v)]);
    columns[static_cast<size_t>(s)].push_back(static_cast<int64_t>(j));
  }

  std::vector<GraphSegment> out;
  for (int64_t s = 0; s < count; ++s) {
    const std::vector<int64_t>& m = members[static_cast<size_t>(s)];
    const torch::Tensor ids = torch::tensor(m, torch::kInt64);
    const torch::Tensor f = feat.index_select(0, ids).contiguous();
    const torch::Tensor op = opcode.index_select(0, ids).to(torch::kInt32).contiguous();
    GraphSegment seg;
    seg.graph = models::make_graph_tensors(
        static_cast<int64_t>(m.size()), width, std::vector<float>(f.data_ptr<float>(), f.data_ptr<float>() + f.numel()),
        std::vector<int32_t>(op.data_ptr<int32_t>(), op.data_ptr<int32_t>() + op.numel()), edges[static_cast<size_t>(s)],
        config_positions[static_cast<size_t>(s)]);
    const torch::Tensor cols = torch::tensor(columns[static_cast<size_t>(s)], torch::kInt64);
    if (context.defined()) {
      // Producer columns name the whole graph's configurable nodes: they
      // become this segment's columns, or -1 (the producer's layout as
      // built) where the producer lies in another segment.
      const torch::Tensor c = context.index_select(0, cols).contiguous();
      auto rows = c.accessor<float, 2>();
      const std::vector<int64_t>& mine = columns[static_cast<size_t>(s)];  // ascending
      for (int64_t r = 0; r < rows.size(0); ++r)
        for (int p : {LayoutContext::kInProducer, LayoutContext::kKernelProducer}) {
          const int64_t whole = std::lround(rows[r][p]);
          const auto at = std::lower_bound(mine.begin(), mine.end(), whole);
          rows[r][p] = whole >= 0 && at != mine.end() && *at == whole ? static_cast<float>(at - mine.begin()) : -1.0f;
        }
      models::set_config_context(seg.graph, std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel()),
                                 context.size(1));
    }
    seg.graph = seg.graph.to(device);
    seg.nodes = ids.to(device);
    seg.config_columns = cols.to(device);
    out.push_back(std::move(seg));
  }
  return out;
}

}  // namespace fastslow::train
