#include "models/model.h"

#include <malloc.h>

#include <limits>

#include "fastslow/error.h"
#include "models/program_model.h"
#include "models/registry.h"

namespace fastslow::models {

void keep_freed_cpu_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
#endif
}

torch::Tensor RankModelImpl::node_states(const GraphTensors&, const torch::Tensor&) {
  throw Error("model '" + name() + "' has no per-node states to train by segments");
}

torch::Tensor RankModelImpl::readout(const GraphTensors&, const torch::Tensor&, const torch::Tensor&) {
  throw Error("model '" + name() + "' has no readout of per-node states to train by segments");
}

torch::Tensor RankModelImpl::segment_summary(const GraphTensors&, const torch::Tensor&, const torch::Tensor&) {
  throw Error("model '" + name() + "' has no readout that adds up segments (--segment-history)");
}

torch::Tensor RankModelImpl::summary_readout(const GraphTensors&, const torch::Tensor&, const torch::Tensor&,
                                             const torch::Tensor&) {
  throw Error("model '" + name() + "' has no readout that adds up segments (--segment-history)");
}

RankModel make_model(const ModelOptions& o) {
  const ModelEntry& entry = model_entry(o.kind, o.name);
  const std::string what = o.kind + " model '" + o.name + "'";
  if (o.join != "early" && o.join != "late")
    throw Error("unknown join '" + o.join + "' for " + what + " (valid: early, late)");
  if (o.hidden < 1) throw Error(what + ": hidden must be >= 1, got " + std::to_string(o.hidden));
  if (o.layers < 0) throw Error(what + ": layers must be >= 0, got " + std::to_string(o.layers));
  if (o.node_feat_width < 0 || o.config_feat_width < 0)
    throw Error(what + ": feature widths must be >= 0, got " + std::to_string(o.node_feat_width) + " and " +
                std::to_string(o.config_feat_width));
  if (o.opcode_vocab < 1) throw Error(what + ": opcode vocabulary must be >= 1");
  if (o.wide_nodes < 0) throw Error(what + ": wide_nodes must be >= 0");
  if (o.wide_nodes > 0) {
    if (o.kind != "layout") throw Error(what + ": a wide table is for layout graphs");
    ModelOptions deep = o;
    deep.wide_nodes = 0;
    return ProgramModel(o, make_model(deep)).ptr();
  }
  return entry.make(o);
}

}  // namespace fastslow::models
