#include "train/distill_step.h"

#include <cmath>
#include <numeric>

#include "fastslow/error.h"
#include "fastslow/rng.h"
#include "train/sampler.h"

namespace fastslow::train {

DistillStep::DistillStep(LossSpec loss, const PreparedData& data, std::shared_ptr<const TeachingMaterials> materials,
                         int64_t per_step, double weight, double temperature, uint64_t seed)
    : loss_(std::move(loss)), materials_(std::move(materials)), per_step_(per_step), weight_(weight),
      temperature_(temperature), seed_(seed) {
  if (materials_->graphs.size() != data.train.size())
    throw Error(materials_->dir, "", "teaching materials for " + std::to_string(materials_->graphs.size()) +
                                         " graphs; the run trains on " + std::to_string(data.train.size()));
  for (size_t g = 0; g < data.train.size(); ++g) {
    const GraphEntry& e = data.train[g];
    const GraphTeaching& t = materials_->graphs[g];
    if (static_cast<int64_t>(t.group_score.size()) != e.cache.groups.num_groups())
      throw Error(e.cache.source, "", "the teaching materials in " + materials_->dir + " score " +
                                          std::to_string(t.group_score.size()) + " configs; the graph has " +
                                          std::to_string(e.cache.groups.num_groups()));
    // Mean and spread over what the steps see: the training groups and the samples.
    double s = 0, sq = 0, n = 0;
    auto add = [&](double v) { s += v, sq += v * v, n += 1; };
    for (int64_t grp : e.train_groups) add(t.group_score[grp]);
    for (double v : t.row_score) add(v);
    const double mean = n > 0 ? s / n : 0;
    const double sd = n > 1 ? std::sqrt(std::max(0.0, sq / n - mean * mean)) : 0;
    const double scale = sd > 1e-12 ? 1 / sd : 1;
    Standardised z;
    for (double v : t.group_score) z.group.push_back(static_cast<float>((v - mean) * scale));
    for (double v : t.row_score) z.row.push_back(static_cast<float>((v - mean) * scale));
    scores_.push_back(std::move(z));
  }
}

Batch DistillStep::prepare(const PreparedData& data, const Pick& pick, bool pinned) const {
  const GraphEntry& e = data.train.at(pick.graph);
  const GraphTeaching& t = materials_->graphs.at(pick.graph);
  const Standardised& z = scores_.at(pick.graph);
  Batch b = make_host_batch(e, pick.groups, data.norm, /*pinned=*/false);
  uint64_t h = mix_seed(seed_, pick.graph);
  for (int64_t g : pick.groups) h = mix_seed(h, static_cast<uint64_t>(g));
  std::vector<int64_t> all(static_cast<size_t>(t.samples()));
  std::iota(all.begin(), all.end(), int64_t{0});
  const std::vector<int64_t> chosen = sample_groups(all, per_step_, h);
  std::vector<float> teacher;
  for (int64_t g : pick.groups) teacher.push_back(z.group[g]);
  if (!chosen.empty()) {
    const int64_t elems = e.cache.config_row_elems;
    std::vector<float> rows;
    rows.reserve(chosen.size() * static_cast<size_t>(elems));
    for (int64_t r : chosen) {
      rows.insert(rows.end(), t.rows.begin() + r * elems, t.rows.begin() + (r + 1) * elems);
      teacher.push_back(z.row[r]);
    }
    const torch::Tensor sampled = config_input(e.cache, data.norm, rows.data(), static_cast<int64_t>(chosen.size()));
    b.config_feat = torch::cat({b.config_feat, sampled}, 0);
  }
  b.teacher = torch::from_blob(teacher.data(), {static_cast<int64_t>(teacher.size())}, torch::kFloat32).clone();
  if (pinned) {
    b.config_feat = b.config_feat.pin_memory();
    b.target = b.target.pin_memory();
    b.teacher = b.teacher.pin_memory();
  }
  return b;
}

torch::Tensor DistillStep::forward_backward(models::RankModelImpl& model, const PreparedData& data, const Pick& pick,
                                            const Batch& batch) {
  const GraphEntry& e = data.train.at(pick.graph);
  const torch::Tensor scores = model.forward(e.tensors, batch.config_feat);
  const int64_t measured = batch.target.size(0);
  torch::Tensor loss = loss_(scores.narrow(0, 0, measured), batch.target);
  if (weight_ > 0) loss = loss + weight_ * listwise_distill_loss(scores, batch.teacher, temperature_);
  loss.backward();
  return loss;
}

}  // namespace fastslow::train
