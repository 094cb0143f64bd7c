// What a trained model costs, for a study's objectives beside its score:
// ranking latency with LibTorch on a fixed graph, parameter count, and the
// size of its ONNX export (what the page downloads).
#pragma once

#include <torch/torch.h>

#include <cstdint>

#include "models/model.h"
#include "train/dataset.h"

namespace fastslow::search {

struct LatencyProbe {
  int64_t configs = 1000;  // scored per measurement (the graph's groups, cycled)
  int repeats = 5;         // the median of these, after one warm-up
};

// Milliseconds to score `probe.configs` configs of `graph` (in the model's
// ranking chunks), per 1,000 configs: the median of probe.repeats runs.
double ranking_latency_ms(models::RankModelImpl& model, const train::GraphEntry& graph, const train::Normalizer& norm,
                          int64_t chunk, const torch::Device& device, const LatencyProbe& probe);

int64_t parameter_count(const models::RankModelImpl& model);

// Bytes of the serialised ONNX model.
int64_t onnx_bytes(models::RankModelImpl& model, const models::ModelOptions& options);

}  // namespace fastslow::search
