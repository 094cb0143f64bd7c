// A model's scores of configs given as rows, the way caches and config
// spaces hold them (count x config_row_elems): configs in a file and configs
// nobody measured alike. Tuning's fitted runs, the teacher of a distilled
// run and its student's steps all turn rows into model inputs here.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "models/model.h"
#include "train/dataset.h"

namespace fastslow::train {

// The model's scores (lower = faster) of every row, `chunk` rows per
// forward, without gradient and in eval mode.
std::vector<double> score_config_rows(models::RankModelImpl& model, const GraphEntry& e, const Normalizer& norm,
                                      const std::vector<float>& rows, int64_t chunk, const torch::Device& device);

}  // namespace fastslow::train
