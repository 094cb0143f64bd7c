// The TrialRunner of a precision study (`[precision] run = RUN`): each trial
// a per-layer plan (fp32, fp16 or int8 for each weight tensor of the run's
// model that can be lowered), judged by the validation score of the model
// with its weights lowered in place (export_onnx.h's lower_weights: what
// ONNX Runtime computes with) and by the exported model's bytes. Nothing
// trains, so a trial takes seconds. Its folder gets plan.json, which
// `fastslow export --run RUN --per-layer trials/N/plan.json` takes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "export/weight_precision.h"
#include "search/search_config.h"
#include "search/study.h"
#include "train/dataset.h"

namespace fastslow::search {

// "tensor_<i>" (zero-padded) in ["fp32", "fp16", "int8"] for each lowerable weight
// tensor i of the run's model, i counting every weight tensor in the
// order of the card's precision.tensors. Error naming the run when it has
// none.
Space precision_space(const std::string& run);

class PrecisionTrialRunner : public TrialRunner {
 public:
  // Reads the run's validation graphs once, for every trial.
  explicit PrecisionTrialRunner(const SearchConfig& config);

  // The plan of a trial's parameters: fp32 for tensors it does not name.
  exporter::PrecisionPlan plan(const nlohmann::json& params) const;
  TrialOutcome run(TrialContext& trial) override;
  int64_t checkpoints() const override { return 1; }

 private:
  SearchConfig config_;
  size_t tensors_ = 0;
  std::vector<train::GraphEntry> valid_;
};

}  // namespace fastslow::search
