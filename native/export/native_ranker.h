// Ranking one file's configs with an exported model in LibTorch, prepared
// and batched by the core's rank_inputs.h exactly as the page prepares them
// for ONNX Runtime Web: what `fastslow rank` prints and the parity test
// compares against.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "export/model_card_json.h"
#include "fastslow/data/graph_cache.h"
#include "fastslow/rank/metrics.h"

namespace fastslow::exporter {

struct FileRanking {
  CachedGraph graph;
  std::vector<double> group_scores;  // per duplicate group, lower = faster
  std::vector<int64_t> ranking;      // every config of the file, best first
  GraphMetrics metrics;              // NaN fields without runtimes
  double score_seconds = 0;          // model calls only (inputs prepared, no file reading)
};

// LibTorch's intra-op threads (the CLI files stay free of torch headers).
void set_threads(int threads);

// Throws Error naming the file when the model's card does not fit it.
FileRanking rank_file(const ExportedModel& model, const std::string& file, const std::string& cache_dir,
                      const std::function<void(int64_t, int64_t)>& progress = {});

}  // namespace fastslow::exporter
