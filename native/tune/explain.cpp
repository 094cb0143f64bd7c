#include "tune/explain.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/rank/occlusion.h"
#include "models/program_model.h"
#include "train/prepared_data.h"

namespace fastslow::tune {
namespace {

torch::Tensor rows_tensor(const std::vector<float>& rows, int64_t count, int64_t nc, int64_t w, const torch::Device& d) {
  return torch::from_blob(const_cast<float*>(rows.data()), {count, nc, w}, torch::kFloat32).clone().to(d);
}

}  // namespace

Explanation explain_config(const train::LoadedRun& run, const std::string& file, int64_t config, int64_t against,
                           const std::string& method, const std::string& cache_dir) {
  if (run.kind() != GraphKind::Layout) throw Error(file, "", "explain: the run ranks tile configs; it explains layout ones");
  CachedGraph cache = CachedGraph::open(file, {cache_dir, static_cast<int>(run.options.khop)});
  if (cache.kind != GraphKind::Layout) throw Error(file, "", "explain: not a layout graph");
  if (cache.config_feat_width != run.model_options.config_feat_width)
    throw Error(file, "node_config_feat",
                "holds " + std::to_string(cache.config_feat_width) + " config features per node; the run was trained on " +
                    std::to_string(run.model_options.config_feat_width));
  if (cache.node_feat_width != run.model_options.node_feat_width)
    throw Error(file, "node_feat",
                "holds " + std::to_string(cache.node_feat_width) + " features per node; the run was trained on " +
                    std::to_string(run.model_options.node_feat_width));
  const int64_t n = cache.num_configs;
  auto out_of_range = [&](int64_t c) {
    return Error(file, "", "explain: config " + std::to_string(c) + " is out of range (the file has " +
                               std::to_string(n) + " configs, 0 to " + std::to_string(n - 1) + ")");
  };
  if (config < 0 || config >= n) throw out_of_range(config);
  if (against < -1 || against >= n) throw out_of_range(against);  // -1: no second config
  auto* program = dynamic_cast<models::ProgramModelImpl*>(run.model.get());
  const std::string how = method == "auto" ? (program ? "table" : "occlusion") : method;
  if (how != "table" && how != "occlusion") throw Error("--method '" + method + "': auto, table or occlusion");
  if (how == "table" && !program)
    throw Error(file, "", "explain --method table: the run's model has no wide table (a per-program run has); use occlusion");

  const int64_t nc = static_cast<int64_t>(cache.pruned.config_positions.size()), w = cache.config_feat_width;
  std::vector<int64_t> kept_ids;
  for (int64_t p : cache.pruned.config_positions) kept_ids.push_back(cache.pruned.kept[static_cast<size_t>(p)]);
  const std::vector<int64_t> groups = {cache.groups.group_of[static_cast<size_t>(config)],
                                       against >= 0 ? cache.groups.group_of[static_cast<size_t>(against)] : 0};
  const std::vector<float> rows = cache.config_rows(groups);
  std::vector<int32_t> opcodes;
  for (int64_t p : cache.pruned.config_positions) opcodes.push_back(cache.node_opcode[static_cast<size_t>(p)]);
  std::vector<train::GraphEntry> entries = train::make_entries({std::move(cache)}, run.norm, run.device);
  const train::GraphEntry& e = entries.front();

  torch::NoGradGuard no_grad;
  const torch::Tensor feat = rows_tensor(rows, 2, nc, w, run.device);
  const torch::Tensor scores = run.model->forward(e.tensors, feat).to(torch::kFloat64).cpu();
  Explanation x;
  x.method = how;
  x.config = config;
  x.against = against;
  x.score = scores[0].item<double>();
  x.against_score = against >= 0 ? scores[1].item<double>() : 0.0;
  std::vector<double> contribution(static_cast<size_t>(nc), 0.0);
  if (how == "table") {
    const torch::Tensor per = program->wide->per_node(feat).cpu();  // [2, nc]
    const torch::Tensor table = program->wide->forward(feat).to(torch::kFloat64).cpu();
    for (int64_t j = 0; j < nc; ++j)
      contribution[static_cast<size_t>(j)] =
          per[0][j].item<double>() - (against >= 0 ? per[1][j].item<double>() : 0.0);
    const double table_part = table[0].item<double>() - (against >= 0 ? table[1].item<double>() : 0.0);
    x.rest = (x.score - (against >= 0 ? x.against_score : 0.0)) - table_part;
  } else {
    // One definition of occlusion, the page's too (rank/occlusion.h).
    const OcclusionRows o = occlusion_rows(e.cache, config, against);
    const torch::Tensor v =
        run.model->forward(e.tensors, rows_tensor(o.rows, o.count(), nc, w, run.device)).to(torch::kFloat64).cpu();
    const OcclusionShares shares =
        occlusion_shares(o, std::vector<double>(v.data_ptr<double>(), v.data_ptr<double>() + v.numel()));
    contribution = shares.share;
  }
  for (int64_t j = 0; j < nc; ++j) {
    NodeShare s;
    s.node = kept_ids[static_cast<size_t>(j)];
    s.opcode = opcode_name(opcodes[static_cast<size_t>(j)]);
    s.contribution = contribution[static_cast<size_t>(j)];
    s.layout.assign(rows.begin() + j * w, rows.begin() + (j + 1) * w);
    if (against >= 0) s.other.assign(rows.begin() + (nc + j) * w, rows.begin() + (nc + j + 1) * w);
    x.explained += s.contribution;
    x.nodes.push_back(std::move(s));
  }
  std::stable_sort(x.nodes.begin(), x.nodes.end(),
                   [](const NodeShare& a, const NodeShare& b) { return std::abs(a.contribution) > std::abs(b.contribution); });
  return x;
}

nlohmann::json explanation_json(const Explanation& e) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeShare& s : e.nodes) {
    nlohmann::json j = {{"node", s.node}, {"opcode", s.opcode}, {"contribution", s.contribution}, {"layout", s.layout}};
    if (e.against >= 0) j["against_layout"] = s.other;
    nodes.push_back(j);
  }
  nlohmann::json j = {{"method", e.method}, {"config", e.config}, {"score", e.score}, {"explained", e.explained},
                      {"nodes", nodes}};
  if (e.against >= 0) j["against"] = e.against, j["against_score"] = e.against_score;
  if (e.method == "table") j["graph_model_part"] = e.rest;
  return j;
}

}  // namespace fastslow::tune
