// Ranking one file's configs with an exported model in LibTorch, prepared
// and batched by the core's rank_inputs.h exactly as the page prepares them
// for ONNX Runtime Web: what `fastslow rank` prints and the parity test
// compares against. Two halves, so that a GPU's start-up (context, kernels,
// cuBLAS) can overlap the reading of the file: prepare_ranking() is host
// work only, score() runs the model.
#pragma once

#include <functional>
#include <memory>
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

// A file read and cut into the model's batches, in host memory.
struct PreparedRanking;
std::shared_ptr<PreparedRanking> prepare_ranking(const ModelCard& card, const std::string& file,
                                                 const std::string& cache_dir);
// Scores every batch; on a GPU the batches are queued without waiting and
// read back once.
FileRanking score(const ExportedModel& model, const std::shared_ptr<PreparedRanking>& prepared,
                  const std::function<void(int64_t, int64_t)>& progress = {});

// What the model is fed, as an npz a user (or the GPU check) can feed to
// any runtime: node_feat, node_opcode, edge_index, config_nodes and
// config_context (layout), config_feat of every group in order (float32),
// and `chunk`, the configs per model call.
void write_model_inputs(const ModelCard& card, const std::shared_ptr<PreparedRanking>& prepared,
                        const std::string& path);

// LibTorch's intra-op threads (the CLI files stay free of torch headers).
void set_threads(int threads);

// Throws Error naming the file when the model's card does not fit it.
FileRanking rank_file(const ExportedModel& model, const std::string& file, const std::string& cache_dir,
                      const std::function<void(int64_t, int64_t)>& progress = {});

// Runs the model once on a tiny graph of its card's widths, on its device:
// what a first call starts (a GPU's kernels, cuBLAS) is then done. Best
// effort: a model that refuses the tiny graph is left as it is.
void warm_up(const ExportedModel& model);

}  // namespace fastslow::exporter
