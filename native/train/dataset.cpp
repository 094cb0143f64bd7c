#include "train/dataset.h"

#include <cmath>

#include "fastslow/error.h"
#include "fastslow/features/layout_context.h"
#include "fastslow/rank/rank_inputs.h"
#include "fastslow/features/tile_features.h"

namespace fastslow::train {

nlohmann::json Normalizer::to_json() const {
  nlohmann::json j;
  j["node"] = node.to_json();
  if (config.width() > 0) j["config"] = config.to_json();
  if (tile_features) j["tile_features"] = true;
  if (layout_context > 0) j["layout_context"] = layout_context;
  return j;
}

Normalizer Normalizer::from_json(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object() || !j.contains("node")) throw Error(what, "", "no node feature statistics");
  Normalizer n;
  n.node = FeatureStats::from_json(j["node"], what);
  if (j.contains("config")) n.config = FeatureStats::from_json(j["config"], what);
  n.tile_features = j.value("tile_features", false);
  if (j.contains("layout_context")) {
    if (!j["layout_context"].is_number_integer() || j["layout_context"].get<int64_t>() < 1)
      throw Error(what, "", "\"layout_context\" must be an integer >= 1, got " + j["layout_context"].dump());
    n.layout_context = j["layout_context"].get<int64_t>();
  }
  return n;
}

Normalizer fit_normalizer(GraphKind kind, const std::vector<const CachedGraph*>& train, bool tile_features) {
  if (train.empty()) throw Error("no training graphs to fit normalisation statistics on");
  Normalizer n;
  if (kind == GraphKind::Layout) n.layout_context = LayoutContext::kVersion;
  // The tiling features read the 24 published columns; files of another
  // width (hand-made ones) train on their own columns alone.
  n.tile_features = kind == GraphKind::Tile && tile_features && train.front()->config_row_elems == kTileConfigColumns;
  FeatureStatsBuilder node(train.front()->node_feat_width);
  for (const CachedGraph* g : train) {
    if (g->node_feat_width != node.width())
      throw Error(g->source, "node_feat",
                  "has " + std::to_string(g->node_feat_width) + " feature columns, other training graphs have " +
                      std::to_string(node.width()));
    node.add(g->node_feat.data(), g->pruned.num_nodes());
  }
  n.node = node.finish();
  if (kind == GraphKind::Tile) {
    FeatureStatsBuilder cfg(train.front()->config_row_elems + (n.tile_features ? kTileDerived : 0));
    for (const CachedGraph* g : train) {
      if (g->config_row_elems != train.front()->config_row_elems)
        throw Error(g->source, "config_feat",
                    "has " + std::to_string(g->config_row_elems) + " columns, other training graphs have " +
                        std::to_string(train.front()->config_row_elems));
      std::vector<int64_t> all(static_cast<size_t>(g->groups.num_groups()));
      for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
      const std::vector<float> rows = tile_config_rows(*g, all, n.tile_features);
      cfg.add(rows.data(), g->groups.num_groups());
    }
    n.config = cfg.finish();
  }
  return n;
}

GraphEntry make_entry(CachedGraph cache, const Normalizer& norm, const torch::Device& device) {
  if (cache.node_feat_width != norm.node.width())
    throw Error(cache.source, "node_feat",
                "has " + std::to_string(cache.node_feat_width) + " feature columns; the model was trained on " +
                    std::to_string(norm.node.width()));
  const int64_t derived = norm.tile_features ? kTileDerived : 0;
  if (cache.kind == GraphKind::Tile && cache.config_row_elems + derived != norm.config.width())
    throw Error(cache.source, "config_feat",
                "has " + std::to_string(cache.config_row_elems) + " columns; the model was trained on " +
                    std::to_string(norm.config.width() - derived));
  GraphEntry e;
  const std::vector<float> feat = norm.node.applied(cache.node_feat);
  models::GraphTensors t = models::make_graph_tensors(cache.pruned.num_nodes(), cache.node_feat_width, feat, cache.node_opcode,
                                      cache.pruned.edge_index, cache.pruned.config_positions);
  if (cache.kind == GraphKind::Layout)
    models::set_config_context(t, layout_context(cache.pruned.num_nodes(), cache.node_feat_width, cache.node_feat,
                                         cache.node_opcode, cache.pruned.edge_index, cache.pruned.config_positions)
                              .values,
                       LayoutContext::kWidth);
  e.tensors = t.to(device);
  const int64_t groups = cache.groups.num_groups();
  e.train_groups.resize(static_cast<size_t>(groups));
  for (int64_t g = 0; g < groups; ++g) e.train_groups[g] = g;
  e.eval_groups = e.train_groups;
  e.cache = std::move(cache);
  return e;
}

void set_targets(GraphEntry* e) {
  e->group_target.clear();
  if (!e->cache.has_runtime() || e->train_groups.empty()) return;
  const auto& best = e->cache.groups.best_runtime;
  double sum = 0, sq = 0;
  for (int64_t g : e->train_groups) {
    const double v = std::log(std::max(best[g], 1e-9));
    sum += v;
    sq += v * v;
  }
  const double n = static_cast<double>(e->train_groups.size());
  const double mean = sum / n;
  const double sd = std::sqrt(std::max(sq / n - mean * mean, 0.0));
  const double scale = sd > 1e-9 ? 1.0 / sd : 1.0;
  e->group_target.resize(best.size());
  for (size_t g = 0; g < best.size(); ++g)
    e->group_target[g] = static_cast<float>((std::log(std::max(best[g], 1e-9)) - mean) * scale);
}

torch::Tensor config_input(const CachedGraph& g, const Normalizer& norm, const float* rows, int64_t count) {
  const int64_t elems = g.config_row_elems;
  if (g.kind == GraphKind::Tile) {
    std::vector<float> part = tile_model_rows(g, std::vector<float>(rows, rows + count * elems), count,
                                              norm.tile_features, norm.config);
    return torch::from_blob(part.data(), {count, norm.config.width()}, torch::kFloat32).clone();
  }
  const int64_t nc = static_cast<int64_t>(g.pruned.config_positions.size());
  return torch::from_blob(const_cast<float*>(rows), {count, nc, g.config_feat_width}, torch::kFloat32).clone();
}

Batch make_host_batch(const GraphEntry& e, const std::vector<int64_t>& groups, const Normalizer& norm, bool pinned) {
  Batch b;
  b.groups = groups;
  const int64_t B = static_cast<int64_t>(groups.size());
  const std::vector<float> rows = e.cache.config_rows(groups);
  const torch::Tensor feat = config_input(e.cache, norm, rows.data(), B);
  std::vector<float> target(static_cast<size_t>(B), 0.0f);
  if (!e.group_target.empty())
    for (int64_t i = 0; i < B; ++i) target[i] = e.group_target[groups[i]];
  b.target = torch::from_blob(target.data(), {B}, torch::kFloat32);
  b.target = pinned ? b.target.pin_memory() : b.target.clone();
  b.config_feat = pinned ? feat.pin_memory() : feat;
  return b;
}

Batch upload(const Batch& host, const torch::Device& device) {
  if (device.is_cpu()) return host;
  Batch b;
  b.groups = host.groups;
  b.config_feat = host.config_feat.to(device, /*non_blocking=*/host.config_feat.is_pinned());
  b.target = host.target.to(device, /*non_blocking=*/host.target.is_pinned());
  if (host.teacher.defined()) b.teacher = host.teacher.to(device, /*non_blocking=*/host.teacher.is_pinned());
  return b;
}

Batch make_batch(const GraphEntry& e, const std::vector<int64_t>& groups, const Normalizer& norm,
                 const torch::Device& device) {
  return upload(make_host_batch(e, groups, norm, /*pinned=*/device.is_cuda()), device);
}

}  // namespace fastslow::train
