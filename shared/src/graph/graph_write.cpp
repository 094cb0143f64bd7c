#include "fastslow/graph/graph_write.h"

#include "fastslow/error.h"
#include "fastslow/io/npz_writer.h"

namespace fastslow {
namespace {

void check_nodes(const std::string& path, const GraphNodes& g) {
  if (static_cast<int64_t>(g.node_feat.size()) != g.num_nodes * g.node_feat_width)
    throw Error(path, "node_feat", "the graph was loaded without its node features");
}

// The HLO graph both kinds share, as the published files hold it.
void add_nodes(NpzWriter& out, const GraphNodes& g) {
  out.add("node_feat", g.node_feat, {g.num_nodes, g.node_feat_width});
  const std::vector<uint8_t> ops(g.node_opcode.begin(), g.node_opcode.end());
  out.add("node_opcode", ops, {g.num_nodes});
  out.add("edge_index", g.edge_index, {g.num_edges(), 2});
}

}  // namespace

void write_layout_graph(const std::string& path, const LayoutGraph& g, const std::vector<float>& config_feat,
                        const std::vector<int64_t>& runtimes) {
  const int64_t nc = g.num_configurable(), w = g.config_feat_width;
  const auto count = static_cast<int64_t>(runtimes.size());
  if (nc <= 0 || w <= 0) throw Error(path, "node_config_feat", "the graph has no configurable nodes to write configs of");
  if (static_cast<int64_t>(config_feat.size()) != count * nc * w)
    throw Error(path, "node_config_feat",
                std::to_string(config_feat.size()) + " values for " + std::to_string(count) + " configs of " +
                    std::to_string(nc) + " nodes x " + std::to_string(w) + " features");
  check_nodes(path, g);
  NpzWriter out(path, Compression::Deflate);
  add_nodes(out, g);
  out.add("node_config_ids", g.node_config_ids, {nc});
  out.add("node_config_feat", config_feat, {count, nc, w});
  out.add("config_runtime", runtimes, {count});
  if (!g.node_splits.empty())
    out.add("node_splits", g.node_splits, {1, static_cast<int64_t>(g.node_splits.size())});
  out.close();
}

void write_tile_graph(const std::string& path, const TileGraph& g, const std::vector<float>& config_feat,
                      const std::vector<int64_t>& runtimes, const std::vector<int64_t>& normalizers) {
  const int64_t w = g.config_feat_width;
  const auto count = static_cast<int64_t>(runtimes.size());
  if (w <= 0) throw Error(path, "config_feat", "the graph has no tile config features to write");
  if (static_cast<int64_t>(config_feat.size()) != count * w)
    throw Error(path, "config_feat",
                std::to_string(config_feat.size()) + " values for " + std::to_string(count) + " configs of " +
                    std::to_string(w) + " features");
  if (normalizers.size() != runtimes.size())
    throw Error(path, "config_runtime_normalizers",
                std::to_string(normalizers.size()) + " normalizers for " + std::to_string(count) + " runtimes");
  check_nodes(path, g);
  NpzWriter out(path, Compression::Deflate);
  add_nodes(out, g);
  out.add("config_feat", config_feat, {count, w});
  out.add("config_runtime", runtimes, {count});
  out.add("config_runtime_normalizers", normalizers, {count});
  out.close();
}

}  // namespace fastslow
