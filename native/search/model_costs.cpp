#include "search/model_costs.h"

#include <algorithm>
#include <chrono>

#include "export/export_onnx.h"
#include "train/evaluate.h"

namespace fastslow::search {

double ranking_latency_ms(models::RankModelImpl& model, const train::GraphEntry& graph, const train::Normalizer& norm,
                          int64_t chunk, const torch::Device& device, const LatencyProbe& probe) {
  std::vector<int64_t> groups;
  const int64_t n = graph.cache.groups.num_groups();
  for (int64_t i = 0; i < probe.configs; ++i) groups.push_back(i % n);
  auto once = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    train::score_groups(model, graph, groups, norm, chunk, device);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  once();  // first calls allocate
  std::vector<double> ms;
  for (int r = 0; r < probe.repeats; ++r) ms.push_back(once());
  std::nth_element(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(ms.size() / 2), ms.end());
  return ms[ms.size() / 2] * 1000.0 / static_cast<double>(probe.configs);
}

int64_t parameter_count(const models::RankModelImpl& model) {
  int64_t n = 0;
  for (const auto& p : model.parameters()) n += p.numel();
  return n;
}

int64_t onnx_bytes(models::RankModelImpl& model, const models::ModelOptions& options) {
  return static_cast<int64_t>(exporter::export_onnx(model, options).ByteSizeLong());
}

}  // namespace fastslow::search
