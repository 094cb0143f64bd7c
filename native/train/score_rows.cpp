#include "train/score_rows.h"

#include <algorithm>

#include "fastslow/error.h"

namespace fastslow::train {

std::vector<double> score_config_rows(models::RankModelImpl& model, const GraphEntry& e, const Normalizer& norm,
                                      const std::vector<float>& rows, int64_t chunk, const torch::Device& device) {
  const int64_t elems = e.cache.config_row_elems;
  if (elems <= 0 || rows.size() % static_cast<size_t>(elems) != 0)
    throw Error(e.cache.source, "", std::to_string(rows.size()) + " config values are not whole rows of " +
                                        std::to_string(elems));
  torch::NoGradGuard no_grad;
  model.eval();
  const int64_t count = static_cast<int64_t>(rows.size()) / elems;
  chunk = std::max<int64_t>(1, chunk);
  std::vector<double> out;
  out.reserve(static_cast<size_t>(count));
  for (int64_t at = 0; at < count; at += chunk) {
    const int64_t n = std::min(chunk, count - at);
    const torch::Tensor s =
        model.forward(e.tensors, config_input(e.cache, norm, rows.data() + at * elems, n).to(device))
            .to(torch::kCPU, torch::kFloat64)
            .contiguous();
    out.insert(out.end(), s.data_ptr<double>(), s.data_ptr<double>() + s.numel());
  }
  return out;
}

}  // namespace fastslow::train
