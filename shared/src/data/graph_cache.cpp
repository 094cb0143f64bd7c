#include "fastslow/data/graph_cache.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <nlohmann/json.hpp>

#include "fastslow/error.h"
#include "fastslow/numeric.h"
#include "fastslow/io/memory_budget.h"
#include "fastslow/io/npz_writer.h"
#include "fastslow/graph/validate.h"
#include "fastslow/io/json_text.h"

namespace fastslow {
namespace {

// Bumped whenever what the cache holds changes, so old files are rebuilt.
// 2: caches built before the gather fix may hold permuted rows.
// 3: integral layout rows are stored as int8 (a quarter of the disk and reads).
// 4: a group's best runtime skips copies never measured (0).
constexpr int kCacheFormat = 4;

struct SourceStamp {
  std::string path;
  int64_t size = 0;
  int64_t mtime_ns = 0;
  // Over every array's CRC-32: a rewrite of the same size within the file
  // system's mtime resolution (seconds on some, and in the browser's) still
  // invalidates the cache.
  uint64_t contents = 0;
};

SourceStamp stamp_of(const std::string& source) {
  struct stat st {};
  if (::stat(source.c_str(), &st) != 0) throw Error(source, "", std::string("cannot open: ") + std::strerror(errno));
  SourceStamp s;
  // Links resolved: one file reached through two dataset folders shares a
  // cache entry (a full-scale one is hundreds of MB).
  std::error_code ec;
  const auto real = std::filesystem::canonical(source, ec);
  s.path = ec ? source : real.string();
  s.size = static_cast<int64_t>(st.st_size);
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return s;
}

uint64_t contents_of(const std::string& source) {
  const NpzReader npz = NpzReader::open(source);
  std::string all;
  for (const std::string& name : npz.names()) all += name + ":" + std::to_string(npz.crc32(name)) + ";";
  return fnv1a(all);
}

std::string cache_file(const GraphCacheOptions& o, const SourceStamp& s) {
  std::string stem = std::filesystem::path(s.path).stem().string();
  char tail[64];
  std::snprintf(tail, sizeof tail, "-%016llx.k%d.npz", static_cast<unsigned long long>(fnv1a(s.path)), o.khop);
  return o.dir + "/" + stem + tail;
}

nlohmann::json meta_of(const GraphCacheOptions& o, const SourceStamp& s) {
  return {{"format", kCacheFormat}, {"source", s.path},      {"size", s.size},
          {"mtime_ns", s.mtime_ns},  {"contents", s.contents}, {"khop", o.khop}};
}

bool cache_matches(const std::string& path, const nlohmann::json& want) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  try {
    const NpzReader npz = NpzReader::open(path);
    const NpyArray m = npz.read("meta");
    const std::string text(reinterpret_cast<const char*>(m.data()), m.nbytes());
    const nlohmann::json have = parse_json_text(text, path, "malformed cache metadata");
    for (const auto& [k, v] : want.items())
      if (!have.contains(k) || have[k] != v) return false;
    return true;
  } catch (const std::exception&) {
    return false;  // unreadable or from an older build: rebuild
  }
}

// What both kinds share once the configs are grouped: the pruned graph and
// the answer arrays.
void write_common(NpzWriter& w, const GraphNodes& g, const PrunedGraph& p, const ConfigGroups& groups,
                  const std::vector<double>& runtime, bool has_runtime) {
  w.add("node_feat", gather_rows(g.node_feat, g.node_feat_width, p.kept), {p.num_nodes(), g.node_feat_width});
  w.add("node_opcode", gather_rows(g.node_opcode, 1, p.kept), {p.num_nodes()});
  w.add("edge_index", p.edge_index, {p.num_edges(), 2});
  w.add("kept", p.kept, {p.num_nodes()});
  w.add("config_positions", p.config_positions, {static_cast<int64_t>(p.config_positions.size())});
  w.add("group_of", groups.group_of, {groups.num_configs()});
  w.add("representative", groups.representative, {groups.num_groups()});
  w.add("best_runtime", groups.best_runtime, {groups.num_groups()});
  w.add("group_size", groups.group_size, {groups.num_groups()});
  if (has_runtime) w.add("runtime", runtime, {static_cast<int64_t>(runtime.size())});
}

bool any_measured(const std::vector<double>& runtime) {
  for (double r : runtime)
    if (r != 0.0) return true;
  return false;
}

// What building keeps per config beside the graph: the groups, the target and
// the pruned copy's answer arrays.
constexpr uint64_t kBuildBytesPerConfig = ConfigDeduplicator::kBytesPerConfig + 3 * sizeof(int64_t);

void build_tile(const NpzReader& npz, NpzWriter& w, nlohmann::json& meta, const GraphContents* known) {
  LoadOptions opt;
  opt.bytes_per_config = kBuildBytesPerConfig;
  const TileGraph g = load_tile_graph(npz, opt);
  require_valid(Graph{g});
  const std::vector<double> runtime = g.target();
  const bool measured = any_measured(runtime);
  if (known && known->groups.num_configs() != g.num_configs)
    throw Error(npz.file(), "", "the config groups handed over are another file's");
  const ConfigGroups groups = known ? known->groups : dedup_configs(g.config_feat, g.config_feat_width, runtime);
  const PrunedGraph p = prune_graph(g, {}, 0);
  write_common(w, g, p, groups, runtime, measured);
  w.add("config_rows", gather_rows(g.config_feat, g.config_feat_width, groups.representative),
        {groups.num_groups(), g.config_feat_width});
  meta["kind"] = "tile";
  meta["original_nodes"] = g.num_nodes;
  meta["original_edges"] = g.num_edges();
  meta["config_feat_width"] = g.config_feat_width;
}

// The representative row of every group, in group order, as T: gathered as
// the array streams by, so that memory holds the output and one chunk, never
// the representatives in the file's dtype (a 1 GB float32 array's unique
// rows are several times the int8 output; the page's heap has to hold them).
// T = int8 only for rows LayoutConfigCheck found to be layout values, which
// float32 carries exactly.
template <class T>
std::vector<T> representative_rows(const NpzReader& npz, const ConfigGroups& groups, int64_t row) {
  const uint64_t bytes = saturating_mul(saturating_mul(static_cast<uint64_t>(groups.num_groups()), static_cast<uint64_t>(row)), sizeof(T));
  check_memory_budget(bytes, npz.file(), "node_config_feat",
                      "its " + std::to_string(groups.num_groups()) + " distinct configs take " + format_bytes(bytes));
  std::vector<int64_t> group_of_representative(static_cast<size_t>(groups.num_configs()), -1);
  for (int64_t k = 0; k < groups.num_groups(); ++k) group_of_representative[groups.representative[k]] = k;
  std::vector<T> out(static_cast<size_t>(groups.num_groups() * row));
  npz.for_each_chunk("node_config_feat", 1024, [&](int64_t first, const NpyArray& chunk) {
    const std::vector<float> v = chunk.to_float("node_config_feat");
    for (int64_t r = 0; r < chunk.dim(0); ++r) {
      const int64_t k = group_of_representative[first + r];
      if (k >= 0)
        std::transform(v.begin() + r * row, v.begin() + (r + 1) * row, out.begin() + k * row,
                       [](float x) { return static_cast<T>(x); });
    }
  });
  return out;
}

void build_layout(const NpzReader& npz, int khop, NpzWriter& w, nlohmann::json& meta, const GraphContents* known) {
  LoadOptions opt;
  opt.config_features = false;  // streamed below
  opt.bytes_per_config = kBuildBytesPerConfig;
  const LayoutGraph g = load_layout_graph(npz, opt);
  require_valid(Graph{g});
  const std::vector<double> runtime = g.target();
  const bool measured = any_measured(runtime);

  // One streamed pass groups the configs and checks their values, so a
  // 1 GB array is never held whole until the unique rows are gathered; a
  // caller that has read the file already (the page's document) hands over
  // what that pass found.
  const int64_t row = g.num_configurable() * g.config_feat_width;
  ConfigGroups groups;
  bool layout_values_only = true;
  if (known) {
    if (known->groups.num_configs() != g.num_configs)
      throw Error(npz.file(), "", "the config groups handed over are another file's");
    groups = known->groups;
    layout_values_only = known->layout_values_only;
  } else {
    ConfigDeduplicator dedup(row);
    LayoutConfigCheck check(row);
    npz.for_each_chunk("node_config_feat", 1024, [&](int64_t, const NpyArray& chunk) {
      const std::vector<float> v = chunk.to_float("node_config_feat");
      dedup.add_rows(v.data(), chunk.dim(0));
      check.add(v.data(), static_cast<int64_t>(v.size()));
    });
    std::vector<Problem> problems;
    check.report(&problems);
    for (const Problem& p : problems)
      if (p.severity == Severity::Error) throw Error(npz.file(), p.array, p.message);
    groups = dedup.finish(runtime);
    layout_values_only = check.all_layout_values();
  }

  const PrunedGraph p = prune_graph(g, g.node_config_ids, khop);
  write_common(w, g, p, groups, runtime, measured);
  // Layout values are dimension indices, -1..5, so int8 keeps them exactly;
  // files with other values (a validation warning) keep float32.
  const std::vector<int64_t> shape = {groups.num_groups(), g.num_configurable(), g.config_feat_width};
  if (layout_values_only)
    w.add("config_rows", representative_rows<int8_t>(npz, groups, row), shape);
  else
    w.add("config_rows", representative_rows<float>(npz, groups, row), shape);
  meta["kind"] = "layout";
  meta["original_nodes"] = g.num_nodes;
  meta["original_edges"] = g.num_edges();
  meta["config_feat_width"] = g.config_feat_width;
}

// The cache's arrays into `w` (a file or memory), `meta` with them.
void build(const NpzReader& npz, int khop, NpzWriter& w, nlohmann::json meta, const GraphContents* known = nullptr) {
  if (detect_graph_kind(npz) == GraphKind::Tile)
    build_tile(npz, w, meta, known);
  else
    build_layout(npz, khop, w, meta, known);
  const std::string text = meta.dump();
  w.add("meta", std::vector<uint8_t>(text.begin(), text.end()), {static_cast<int64_t>(text.size())});
}

void check_khop(const std::string& source, int khop) {
  if (khop < 0) throw Error(source, "", "khop must be >= 0, got " + std::to_string(khop));
}

template <class T>
std::vector<T> read_vec(const NpzReader& npz, const char* name) {
  const NpyArray a = npz.read(name);
  const T* p = a.as<T>();
  return std::vector<T>(p, p + a.count());
}

}  // namespace

CachedGraph CachedGraph::open(const std::string& source, const GraphCacheOptions& options) {
  check_khop(source, options.khop);
  if (options.dir.empty()) throw Error(source, "", "no cache directory given");
  SourceStamp stamp = stamp_of(source);
  stamp.contents = contents_of(source);
  std::error_code ec;
  std::filesystem::create_directories(options.dir, ec);
  if (ec) throw Error(options.dir, "", "cannot create cache directory: " + ec.message());
  const std::string path = cache_file(options, stamp);
  const nlohmann::json want = meta_of(options, stamp);
  if (!cache_matches(path, want)) {
    NpzWriter w(path, Compression::Stored);
    build(NpzReader::open(source), options.khop, w, want);
    w.close();
  }
  CachedGraph c;
  c.source = source;
  c.path = path;
  c.load(std::make_shared<NpzReader>(NpzReader::open(path)));
  return c;
}

CachedGraph CachedGraph::in_memory(const NpzReader& source, int khop, const GraphContents* known) {
  check_khop(source.file(), khop);
  NpzWriter w(Compression::Stored);
  build(source, khop, w, {{"format", kCacheFormat}, {"source", source.file()}, {"khop", khop}}, known);
  CachedGraph c;
  c.source = source.file();
  c.load(std::make_shared<NpzReader>(NpzReader::from_memory(source.file() + " (prepared)", w.close_to_memory())));
  return c;
}

void CachedGraph::load(std::shared_ptr<NpzReader> reader) {
  CachedGraph& c = *this;
  c.reader_ = std::move(reader);
  const NpzReader& npz = *c.reader_;
  const NpyArray m = npz.read("meta");
  const nlohmann::json meta = parse_json_text(std::string(reinterpret_cast<const char*>(m.data()), m.nbytes()),
                                              npz.file(), "malformed cache metadata");
  c.kind = meta.at("kind") == "tile" ? GraphKind::Tile : GraphKind::Layout;
  c.original_nodes = meta.at("original_nodes");
  c.original_edges = meta.at("original_edges");
  c.config_feat_width = meta.at("config_feat_width");

  c.pruned.kept = read_vec<int64_t>(npz, "kept");
  c.pruned.edge_index = read_vec<int64_t>(npz, "edge_index");
  c.pruned.config_positions = read_vec<int64_t>(npz, "config_positions");
  c.node_feat = read_vec<float>(npz, "node_feat");
  c.node_feat_width = npz.header("node_feat").shape.at(1);
  c.node_opcode = read_vec<int32_t>(npz, "node_opcode");
  c.groups.group_of = read_vec<int64_t>(npz, "group_of");
  c.groups.representative = read_vec<int64_t>(npz, "representative");
  c.groups.best_runtime = read_vec<double>(npz, "best_runtime");
  c.groups.group_size = read_vec<int64_t>(npz, "group_size");
  if (npz.contains("runtime")) c.runtime = read_vec<double>(npz, "runtime");
  c.num_configs = c.groups.num_configs();
  const auto& shape = npz.header("config_rows").shape;
  c.config_row_elems = 1;
  for (size_t i = 1; i < shape.size(); ++i) c.config_row_elems *= shape[i];
}

std::vector<int64_t> CachedGraph::all_groups() const {
  std::vector<int64_t> all(static_cast<size_t>(groups.num_groups()));
  std::iota(all.begin(), all.end(), int64_t{0});
  return all;
}

std::vector<float> CachedGraph::config_rows(const std::vector<int64_t>& group_ids) const {
  for (int64_t g : group_ids)
    if (g < 0 || g >= groups.num_groups())
      throw Error(reader_->file(), "config_rows", "group " + std::to_string(g) + " out of range [0, " +
                                           std::to_string(groups.num_groups()) + ")");
  const NpyArray a = reader_->read_rows("config_rows", group_ids);
  if (a.dtype() != DType::F32) return a.to_float("config_rows");
  const float* p = a.as<float>();
  return std::vector<float>(p, p + a.count());
}

}  // namespace fastslow
