// What every ranking model offers the trainer: scores for a batch of configs
// of one graph, lower = predicted faster. Concrete models are XxxImpl +
// TORCH_MODULE(Xxx), one file each, listed in registry.h, which builds one
// by name (make_model).
#pragma once

#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "models/graph_tensors.h"
#include "models/segmentable.h"

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

  // The model's view for graph segment training (segmentable.h), or null
  // when it cannot be trained by segments.
  virtual SegmentableModel* segmentable() { return nullptr; }
};
using RankModel = std::shared_ptr<RankModelImpl>;

// Keeps freed CPU memory in the process (glibc: no mmap for big blocks, no
// trimming) so a training loop reuses its tensors' pages instead of asking
// the kernel for fresh zeroed pages on every step: ~15-25% of a layout step
// goes to page faults otherwise. Process-wide; call once before training.
void keep_freed_cpu_memory();

}  // namespace fastslow::models
