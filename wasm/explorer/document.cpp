#include "document.h"

#include <algorithm>
#include <chrono>
#include <variant>

#include "fastslow/error.h"
#include "fastslow/graph/computations.h"

namespace fastslow::explorer {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

const std::vector<float>& Document::config_row(int64_t c) const {
  constexpr int64_t kBlock = 128;
  const char* array = kind == GraphKind::Tile ? "config_feat" : "node_config_feat";
  if (c < 0 || c >= info.configs)
    throw Error(name, array, "config " + std::to_string(c) + " out of range [0, " + std::to_string(info.configs) + ")");
  auto it = row_cache_.find(c);
  if (it != row_cache_.end()) return it->second;
  if (row_cache_.size() > 8 * kBlock) row_cache_.clear();
  const int64_t lo = c / kBlock * kBlock, hi = std::min(info.configs, lo + kBlock);
  const std::vector<float> rows = npz->read_rows(array, lo, hi).to_float(array);
  const size_t width = rows.size() / static_cast<size_t>(hi - lo);
  for (int64_t r = lo; r < hi; ++r)
    row_cache_[r] = std::vector<float>(rows.begin() + (r - lo) * width, rows.begin() + (r - lo + 1) * width);
  return row_cache_[c];
}

std::unique_ptr<Document> open_document(std::string name, MallocBytes bytes, size_t size, bool for_view) {
  const auto t0 = std::chrono::steady_clock::now();
  auto d = std::make_unique<Document>();
  d->name = name;
  d->bytes = std::move(bytes);
  d->npz = std::make_shared<NpzReader>(memory_view_source(std::move(name), d->bytes.get(), size));
  GraphContents contents;  // graph_info reads and groups the file once for both
  d->info = graph_info(*d->npz, &contents);
  for (const Problem& p : d->info.problems)
    if (p.severity == Severity::Error) throw Error(d->name, p.array, p.message);
  d->kind = d->info.kind;
  d->groups = std::move(contents.groups);
  d->layout_values_only = contents.layout_values_only;
  if (const auto* t = std::get_if<TileGraph>(&contents.graph)) {
    d->graph = *t;
    d->runtime = t->target();
  } else {
    const auto& l = std::get<LayoutGraph>(contents.graph);
    d->graph = l;
    d->config_nodes = l.node_config_ids;
    d->node_splits = computation_starts(l.node_splits, l.num_nodes);
    d->runtime = l.target();
  }
  // Test files carry zero runtimes: nothing to measure against.
  if (std::all_of(d->runtime.begin(), d->runtime.end(), [](double r) { return r <= 0; })) d->runtime.clear();
  const int64_t n = d->graph.num_nodes;
  d->configurable.assign(static_cast<size_t>(n), 0);
  for (int64_t c : d->config_nodes) d->configurable[c] = 1;
  d->computation.assign(static_cast<size_t>(n), 0);
  for (size_t s = 0; s < d->node_splits.size(); ++s) {
    const int64_t from = std::clamp<int64_t>(d->node_splits[s], 0, n);
    for (int64_t v = from; v < n; ++v) d->computation[v] = static_cast<int32_t>(s);
  }
  if (for_view) {
    build_csr(n, d->graph.edge_index, true, d->in_ptr, d->in_idx);
    build_csr(n, d->graph.edge_index, false, d->out_ptr, d->out_idx);
  }
  d->load_ms = ms_since(t0);
  if (!for_view) return d;
  const auto t1 = std::chrono::steady_clock::now();
  DrawingOptions o;
  o.layer_gap = 1.6f;
  d->drawing = draw_layered(n, d->graph.edge_index, o);
  d->layout_ms = ms_since(t1);
  return d;
}

}  // namespace fastslow::explorer
