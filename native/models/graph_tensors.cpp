#include "models/graph_tensors.h"

#include <string>

#include "fastslow/error.h"

namespace fastslow::models {

namespace {

// Counting sort of the edges by `row`: a stable CSR, so within a row the
// neighbours keep file order and every sum over them has one fixed order.
void build_csr(int64_t num_nodes, const std::vector<int64_t>& row, const std::vector<int64_t>& col,
               torch::Tensor& ptr_out, torch::Tensor& idx_out) {
  const auto m = static_cast<int64_t>(row.size());
  ptr_out = torch::zeros({num_nodes + 1}, torch::kInt64);
  idx_out = torch::empty({m}, torch::kInt64);
  auto* ptr = ptr_out.data_ptr<int64_t>();
  auto* idx = idx_out.data_ptr<int64_t>();
  for (int64_t e = 0; e < m; ++e) ++ptr[row[e] + 1];
  for (int64_t r = 0; r < num_nodes; ++r) ptr[r + 1] += ptr[r];
  std::vector<int64_t> next(ptr, ptr + num_nodes);
  for (int64_t e = 0; e < m; ++e) idx[next[row[e]]++] = col[e];
}

torch::Tensor to_tensor(const std::vector<int64_t>& v) {
  auto t = torch::empty({static_cast<int64_t>(v.size())}, torch::kInt64);
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t;
}

}  // namespace

GraphTensors GraphTensors::to(const torch::Device& device) const {
  GraphTensors g;
  g.num_nodes = num_nodes;
  auto move = [&](const torch::Tensor& t) { return t.defined() ? t.to(device) : t; };
  g.node_feat = move(node_feat);
  g.opcode = move(opcode);
  g.edge_src = move(edge_src);
  g.edge_dst = move(edge_dst);
  g.config_nodes = move(config_nodes);
  g.config_context = move(config_context);
  g.in_ptr = move(in_ptr);
  g.in_idx = move(in_idx);
  g.out_ptr = move(out_ptr);
  g.out_idx = move(out_idx);
  return g;
}

void set_config_context(GraphTensors& g, const std::vector<float>& values, int64_t width) {
  const int64_t nc = g.config_nodes.defined() ? g.config_nodes.numel() : 0;
  if (width < 1 || static_cast<int64_t>(values.size()) != nc * width)
    throw Error("graph tensors: config context of " + std::to_string(values.size()) + " values for " +
                std::to_string(nc) + " configurable nodes x " + std::to_string(width));
  g.config_context = torch::empty({nc, width}, torch::kFloat32);
  std::copy(values.begin(), values.end(), g.config_context.data_ptr<float>());
}

GraphTensors make_graph_tensors(int64_t num_nodes, int64_t node_feat_width, const std::vector<float>& node_feat,
                                const std::vector<int32_t>& opcode, const std::vector<int64_t>& edge_index,
                                const std::vector<int64_t>& config_positions) {
  if (num_nodes < 1) throw Error("graph tensors: a graph needs at least one node, got " + std::to_string(num_nodes));
  if (node_feat_width < 0) throw Error("graph tensors: negative node feature width");
  if (static_cast<int64_t>(node_feat.size()) != num_nodes * node_feat_width)
    throw Error("", "node_feat",
                "expected " + std::to_string(num_nodes) + " x " + std::to_string(node_feat_width) + " = " +
                    std::to_string(num_nodes * node_feat_width) + " values, got " + std::to_string(node_feat.size()));
  if (static_cast<int64_t>(opcode.size()) != num_nodes)
    throw Error("", "node_opcode",
                "expected " + std::to_string(num_nodes) + " opcodes, got " + std::to_string(opcode.size()));
  if (edge_index.size() % 2 != 0)
    throw Error("", "edge_index", "expected m x 2 values, got " + std::to_string(edge_index.size()));

  GraphTensors g;
  g.num_nodes = num_nodes;
  g.node_feat = torch::empty({num_nodes, node_feat_width}, torch::kFloat32);
  std::copy(node_feat.begin(), node_feat.end(), g.node_feat.data_ptr<float>());
  g.opcode = torch::empty({num_nodes}, torch::kInt64);
  std::copy(opcode.begin(), opcode.end(), g.opcode.data_ptr<int64_t>());

  const auto m = static_cast<int64_t>(edge_index.size() / 2);
  std::vector<int64_t> src(m), dst(m);
  for (int64_t e = 0; e < m; ++e) {
    const int64_t u = edge_index[2 * e], v = edge_index[2 * e + 1];
    if (u < 0 || u >= num_nodes || v < 0 || v >= num_nodes)
      throw Error("", "edge_index",
                  "row " + std::to_string(e) + " [" + std::to_string(u) + ", " + std::to_string(v) +
                      "] names a node outside 0.." + std::to_string(num_nodes - 1));
    dst[e] = u;
    src[e] = v;
  }
  g.edge_src = to_tensor(src);
  g.edge_dst = to_tensor(dst);
  build_csr(num_nodes, dst, src, g.in_ptr, g.in_idx);
  build_csr(num_nodes, src, dst, g.out_ptr, g.out_idx);

  for (size_t i = 0; i < config_positions.size(); ++i) {
    const int64_t p = config_positions[i];
    if (p < 0 || p >= num_nodes)
      throw Error("", "node_config_ids",
                  "entry " + std::to_string(i) + " = " + std::to_string(p) + " is outside 0.." +
                      std::to_string(num_nodes - 1));
  }
  g.config_nodes = to_tensor(config_positions);
  return g;
}

}  // namespace fastslow::models
