// The per-program layout model: one program's wide table (layout_wide.h)
// plus a gated deep model over the graph (focus by default):
//   score = wide(config) + scale * gate * deep(graph, config).
// The table is fitted in closed form before training (the trainer's
// wide_init) and stays fixed; the gate starts at 0, so training starts from
// the ridge fit and the deep part learns what is left, the interactions
// between nodes, as a correction. `scale` is the spread of the table's
// residuals on the training configs: on real graphs they are a few
// thousandths of the runtimes' spread, and a deep part at unit scale moved
// by the optimizer's steps would drown them.
#pragma once

#include "models/layout_wide.h"
#include "models/model.h"

namespace fastslow::models {

class ProgramModelImpl : public RankModelImpl, public SegmentableModel {
 public:
  ProgramModelImpl(const ModelOptions& options, RankModel deep);
  torch::Tensor forward(const GraphTensors& g, const torch::Tensor& config_feat) override;
  // Trained by segments when its deep model is: the deep model's states and
  // shares, the readouts adding the wide table.
  SegmentableModel* segmentable() override { return deep->segmentable() ? this : nullptr; }
  torch::Tensor node_states(const GraphTensors& g, const torch::Tensor& config_feat) override {
    return deep->segmentable()->node_states(g, config_feat);
  }
  torch::Tensor readout(const GraphTensors& g, const torch::Tensor& states, const torch::Tensor& config_feat) override {
    return wide(config_feat) + scale * gate * deep->segmentable()->readout(g, states, config_feat);
  }
  torch::Tensor segment_summary(const GraphTensors& segment, const torch::Tensor& states,
                                const torch::Tensor& config_feat) override {
    return deep->segmentable()->segment_summary(segment, states, config_feat);
  }
  torch::Tensor summary_readout(const GraphTensors& g, const torch::Tensor& summaries, const torch::Tensor& weights,
                                const torch::Tensor& config_feat) override {
    return wide(config_feat) + scale * gate * deep->segmentable()->summary_readout(g, summaries, weights, config_feat);
  }
  // What training updates: the deep model and the gate, not the table.
  std::vector<torch::Tensor> trained_parameters() override;

  LayoutWide wide{nullptr};
  RankModel deep;
  torch::Tensor gate;   // [1]
  torch::Tensor scale;  // [1] buffer
};
TORCH_MODULE(ProgramModel);

}  // namespace fastslow::models
