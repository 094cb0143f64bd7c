#include "fastslow/graph/graph.h"

#include <algorithm>

#include "fastslow/error.h"
#include "fastslow/io/memory_budget.h"

namespace fastslow {

namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

class Loader {
 public:
  explicit Loader(const NpzReader& npz) : npz_(npz) {}

  [[noreturn]] void fail(const std::string& array, const std::string& why) const {
    throw Error(npz_.file(), array, why);
  }

  const NpyHeader& require(const std::string& name, const char* kind) const {
    if (!npz_.contains(name)) {
      std::string have;
      for (const std::string& n : npz_.names()) have += (have.empty() ? "" : ", ") + n;
      fail(name, std::string("missing (required in a ") + kind + " graph; the file holds: " +
                     (have.empty() ? "no arrays" : have) + ")");
    }
    return npz_.header(name);
  }

  // Checks rank and any fixed dimensions (-1 = free).
  const NpyHeader& shaped(const std::string& name, const char* kind, std::vector<int64_t> want) const {
    const NpyHeader& h = require(name, kind);
    bool ok = h.shape.size() == want.size();
    for (size_t i = 0; ok && i < want.size(); ++i) ok = want[i] < 0 || want[i] == h.shape[i];
    if (!ok) {
      std::string w = "(";
      for (size_t i = 0; i < want.size(); ++i)
        w += (i ? ", " : "") + (want[i] < 0 ? std::string("*") : std::to_string(want[i]));
      fail(name, "shape " + shape_str(h.shape) + " does not match the expected " + w +
                     (want.size() == 1 ? ",)" : ")"));
    }
    return h;
  }

  std::vector<int64_t> ints(const std::string& name) const {
    const NpyArray a = npz_.read(name);
    try {
      return a.to_int64();
    } catch (const Error& e) {
      fail(name, e.problem());
    }
  }

  std::vector<float> floats(const std::string& name) const {
    const NpyArray a = npz_.read(name);
    if (a.dtype() == DType::F32) return std::vector<float>(a.as<float>(), a.as<float>() + a.count());
    if (!dtype_is_float(a.dtype()))
      fail(name, std::string("holds ") + dtype_name(a.dtype()) + ", expected a float type");
    return a.to_float();
  }

  // Checks the node arrays' shapes; sets the counts.
  void node_shapes(GraphNodes* g, const char* kind) const {
    g->file = npz_.file();
    const NpyHeader& feat = shaped("node_feat", kind, {-1, -1});
    g->num_nodes = feat.shape[0];
    g->node_feat_width = feat.shape[1];
    shaped("node_opcode", kind, {g->num_nodes});
    // An empty edge list saved from Python may lose its second axis.
    const NpyHeader& edges = require("edge_index", kind);
    const bool empty_1d = edges.shape.size() == 1 && edges.shape[0] == 0;
    if (!empty_1d) shaped("edge_index", kind, {-1, 2});
  }

  void read_nodes(GraphNodes* g) const {
    g->node_feat = floats("node_feat");
    const std::vector<int64_t> op = ints("node_opcode");
    g->node_opcode.resize(op.size());
    for (size_t i = 0; i < op.size(); ++i) {
      if (op[i] < INT32_MIN || op[i] > INT32_MAX) fail("node_opcode", "value out of int32 range");
      g->node_opcode[i] = static_cast<int32_t>(op[i]);
    }
    g->edge_index = ints("edge_index");
  }

  // An array loading keeps: its elements' size once converted, and whether
  // it passes through int64 on the way (node_opcode, kept as int32).
  struct Kept {
    const char* name;
    uint64_t elem_bytes;
    bool via_int64 = false;
  };

  // Checks, before anything is read, that what loading holds at its peak fits
  // the memory budget: every kept array converted, plus the largest one in its
  // file form (and int64 form) while it converts, plus `per_config` bytes for
  // each of `configs` (what the caller keeps per config). Throws Error naming
  // the array that weighs most.
  void check_budget(const std::vector<Kept>& kept, int64_t configs, uint64_t per_config) const {
    uint64_t held = 0, peak_transient = 0, worst = 0;
    const char* culprit = "";
    for (const Kept& k : kept) {
      if (!npz_.contains(k.name)) continue;
      const uint64_t count = static_cast<uint64_t>(npz_.header(k.name).count());
      const uint64_t mine = saturating_mul(count, k.elem_bytes);
      uint64_t transient = npz_.read_cost(k.name);
      if (k.via_int64) transient = saturating_add(transient, saturating_mul(count, 8));
      held = saturating_add(held, mine);
      peak_transient = std::max(peak_transient, transient);
      if (saturating_add(mine, transient) >= worst) {
        worst = saturating_add(mine, transient);
        culprit = k.name;
      }
    }
    const uint64_t need = saturating_add(saturating_add(held, peak_transient),
                                         saturating_mul(static_cast<uint64_t>(std::max<int64_t>(configs, 0)), per_config));
    if (need <= memory_budget() || !*culprit) return;
    const uint64_t data = npz_.header(culprit).data_bytes();
    check_memory_budget(need, npz_.file(), culprit,
                        "claims " + format_bytes(data) + " of data; loading the graph takes " + format_bytes(need));
  }

 private:
  const NpzReader& npz_;
};

}  // namespace

const char* graph_kind_name(GraphKind kind) { return kind == GraphKind::Tile ? "tile" : "layout"; }

GraphKind parse_graph_kind(const std::string& word, const std::string& what) {
  if (word == "tile") return GraphKind::Tile;
  if (word == "layout") return GraphKind::Layout;
  throw Error(what, "", "unknown kind '" + word + "' (tile or layout)");
}

GraphKind detect_graph_kind(const NpzReader& npz) {
  if (npz.contains("node_config_feat")) return GraphKind::Layout;
  if (npz.contains("config_feat")) return GraphKind::Tile;
  throw Error(npz.file(), "", "neither a tile graph (no config_feat) nor a layout graph (no node_config_feat)");
}

std::vector<double> TileGraph::target() const {
  std::vector<double> t(config_runtime.size());
  for (size_t i = 0; i < t.size(); ++i)
    t[i] = static_cast<double>(config_runtime[i]) / static_cast<double>(config_runtime_normalizers[i]);
  return t;
}

std::vector<double> LayoutGraph::target() const {
  return std::vector<double>(config_runtime.begin(), config_runtime.end());
}

TileGraph load_tile_graph(const NpzReader& npz, const LoadOptions& options) {
  const Loader L(npz);
  TileGraph g;
  L.node_shapes(&g, "tile");
  const NpyHeader& cf = L.shaped("config_feat", "tile", {-1, -1});
  g.num_configs = cf.shape[0];
  g.config_feat_width = cf.shape[1];
  L.shaped("config_runtime", "tile", {g.num_configs});
  L.shaped("config_runtime_normalizers", "tile", {g.num_configs});
  std::vector<Loader::Kept> kept = {{"node_feat", 4},      {"node_opcode", 4, true},
                                    {"edge_index", 8},     {"config_runtime", 8},
                                    {"config_runtime_normalizers", 8}};
  if (options.config_features) kept.push_back({"config_feat", 4});
  L.check_budget(kept, g.num_configs, options.bytes_per_config);
  L.read_nodes(&g);
  if (options.config_features) g.config_feat = L.floats("config_feat");
  g.config_runtime = L.ints("config_runtime");
  g.config_runtime_normalizers = L.ints("config_runtime_normalizers");
  return g;
}

LayoutGraph load_layout_graph(const NpzReader& npz, const LoadOptions& options) {
  const Loader L(npz);
  LayoutGraph g;
  L.node_shapes(&g, "layout");
  const NpyHeader& ids = L.shaped("node_config_ids", "layout", {-1});
  const NpyHeader& cf = L.shaped("node_config_feat", "layout", {-1, ids.shape[0], -1});
  g.num_configs = cf.shape[0];
  g.config_feat_width = cf.shape[2];
  // With no configs the array holds no bytes whatever its other dims, so the
  // header alone bounds them only when there are configs; every reader sizes
  // a config row (configurable nodes x width floats) by them.
  int64_t row = 0;
  if (__builtin_mul_overflow(ids.shape[0], g.config_feat_width, &row) || row > (int64_t(1) << 58))
    L.fail("node_config_feat", "shape " + shape_str(cf.shape) + ": a config row of " + std::to_string(ids.shape[0]) +
                                   " x " + std::to_string(g.config_feat_width) + " values is too large");
  L.shaped("config_runtime", "layout", {g.num_configs});
  std::vector<Loader::Kept> kept = {{"node_feat", 4},       {"node_opcode", 4, true}, {"edge_index", 8},
                                    {"node_config_ids", 8}, {"config_runtime", 8},    {"node_splits", 8}};
  // Not loaded, it is streamed by whoever needs it (graph_info), outside this count.
  if (options.config_features) kept.push_back({"node_config_feat", 4});
  L.check_budget(kept, g.num_configs, options.bytes_per_config);
  L.read_nodes(&g);
  g.node_config_ids = L.ints("node_config_ids");
  if (options.config_features) g.node_config_feat = L.floats("node_config_feat");
  g.config_runtime = L.ints("config_runtime");
  if (npz.contains("node_splits")) g.node_splits = L.ints("node_splits");
  return g;
}

Graph load_graph(const NpzReader& npz, const LoadOptions& options) {
  if (detect_graph_kind(npz) == GraphKind::Tile) return load_tile_graph(npz, options);
  return load_layout_graph(npz, options);
}

}  // namespace fastslow
