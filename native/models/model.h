// What every ranking model offers the trainer: scores for a batch of configs
// of one graph, lower = predicted faster. Concrete models are XxxImpl +
// TORCH_MODULE(Xxx), one file each, listed in registry.h; make_model builds
// one by name.
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "models/graph_tensors.h"

namespace fastslow::models {

struct ModelOptions {
  std::string kind = "layout";  // "tile" | "layout"
  std::string name;             // a name of the kind in registry.h
  std::string join = "early";   // tile sage/gcn: config features at the input ("early") or after pooling ("late")
  int64_t node_feat_width = 140;
  int64_t config_feat_width = 18;
  int64_t opcode_vocab = 121;  // ids 0..120
  int64_t hidden = 64;
  int64_t layers = 3;
  // Per-program layout models: the one graph's configurable nodes, for a
  // wide table beside the named model (models/program_model.h); 0 = none.
  int64_t wide_nodes = 0;
};

class RankModelImpl : public torch::nn::Module {
 public:
  // tile:   config_feat [B, Fc] float32, normalised        -> [B]
  // layout: config_feat [B, nc, Fc] float32, raw layout values (-1..5)
  //         for the configurable nodes in g.config_nodes order -> [B]
  virtual torch::Tensor forward(const GraphTensors& g, const torch::Tensor& config_feat) = 0;
  // What training updates (the optimizer's parameters): all of them, unless
  // a model keeps some fixed.
  virtual std::vector<torch::Tensor> trained_parameters() { return parameters(); }

  // Graph segment training (train/segment_step.h) splits a layout model in
  // two: per-node states after the graph layers (nodes on dim 0: [n, B, H],
  // or [n, H] for a model whose graph stage is config-free), and the
  // readout of those states to scores [B];
  // forward(g, c) == readout(g, node_states(g, c), c).
  // Models without that split say so and throw.
  virtual bool has_node_states() const { return false; }
  virtual torch::Tensor node_states(const GraphTensors& g, const torch::Tensor& config_feat);
  virtual torch::Tensor readout(const GraphTensors& g, const torch::Tensor& states, const torch::Tensor& config_feat);

  // GST's table of stale segment outputs (train/segment_history.h) needs a
  // readout that adds up what each segment holds. segment_summary: one
  // segment's share [B, P] from its subgraph, its node states and its
  // configurable nodes' columns of config_feat. summary_readout: scores [B]
  // of the whole graph g from the shares of its segments [S, B, P], share
  // (s, b) counted weights[s, b] times. When the segments cut g's nodes,
  // summary_readout(g, their shares, ones, c) == readout(g, states, c).
  virtual bool has_segment_summaries() const { return false; }
  virtual torch::Tensor segment_summary(const GraphTensors& segment, const torch::Tensor& states,
                                        const torch::Tensor& config_feat);
  virtual torch::Tensor summary_readout(const GraphTensors& g, const torch::Tensor& summaries,
                                        const torch::Tensor& weights, const torch::Tensor& config_feat);
};
using RankModel = std::shared_ptr<RankModelImpl>;

// Throws fastslow::Error on an unknown kind/name/join or bad sizes, listing
// the valid names. wide_nodes > 0 wraps the named model in a per-program
// model (program_model.h).
RankModel make_model(const ModelOptions& options);

// Keeps freed CPU memory in the process (glibc: no mmap for big blocks, no
// trimming) so a training loop reuses its tensors' pages instead of asking
// the kernel for fresh zeroed pages on every step: ~15-25% of a layout step
// goes to page faults otherwise. Process-wide; call once before training.
void keep_freed_cpu_memory();

}  // namespace fastslow::models
