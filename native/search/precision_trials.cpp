#include "search/precision_trials.h"

#include <torch/torch.h>

#include <cmath>
#include <filesystem>

#include "export/export_onnx.h"
#include "fastslow/error.h"
#include "fastslow/io/write_file.h"
#include "train/evaluate.h"
#include "train/loaded_run.h"

namespace fastslow::search {
namespace {

const char* kName = "tensor_";

// The run's weight tensors as an fp32 export lists them.
exporter::PrecisionReport tensors_of(const train::LoadedRun& run) {
  exporter::PrecisionReport report;
  exporter::export_onnx(*run.model, run.model_options, exporter::WeightPrecision::Fp32, &report);
  return report;
}

}  // namespace

Space precision_space(const std::string& run_dir) {
  const train::LoadedRun run = train::load_run(run_dir, "cpu");
  const exporter::PrecisionReport report = tensors_of(run);
  Space space;
  for (size_t i = 0; i < report.tensors.size(); ++i) {
    if (!exporter::lowerable(report.tensors[i].dims)) continue;
    Param p;
    // Zero-padded, so the tensors sort in order in tables and plots.
    const std::string index = std::to_string(i), width = std::to_string(report.tensors.size() - 1);
    p.name = kName + std::string(width.size() - index.size(), '0') + index;
    p.kind = ParamKind::Categorical;
    p.choices = {"fp32", "fp16", "int8"};
    space.params.push_back(p);
  }
  if (space.params.empty())
    throw Error(run_dir, "", "its model has no weight matrix of at least " + std::to_string(exporter::kMinLowered) +
                                 " values: no precision to search");
  return space;
}

PrecisionTrialRunner::PrecisionTrialRunner(const SearchConfig& config) : config_(config) {
  const train::LoadedRun run = train::load_run(config_.precision_run, "cpu");
  tensors_ = tensors_of(run).tensors.size();
  valid_ = train::load_split(run, "valid");
  if (valid_.empty()) throw Error(config_.precision_run, "", "has no validation graphs to judge a precision by");
}

exporter::PrecisionPlan PrecisionTrialRunner::plan(const nlohmann::json& params) const {
  exporter::PrecisionPlan p;
  p.source = "the trial's parameters";
  p.per_tensor.assign(tensors_, exporter::WeightPrecision::Fp32);
  for (const auto& [k, v] : params.items()) {
    const std::string digits = k.rfind(kName, 0) == 0 ? k.substr(std::string(kName).size()) : "";
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos || !v.is_string())
      throw Error("precision study: unknown parameter " + k + " = " + v.dump());
    const size_t i = std::stoul(digits);
    if (i >= tensors_) throw Error("precision study: " + k + ": the run's model has " + std::to_string(tensors_) + " weight tensors");
    p.per_tensor[i] = exporter::parse_precision(v.get<std::string>());
  }
  return p;
}

TrialOutcome PrecisionTrialRunner::run(TrialContext& t) {
  const exporter::PrecisionPlan p = plan(t.params);
  train::LoadedRun run = train::load_run(config_.precision_run, "auto");
  TrialOutcome out;
  // Its export on the way is the one a user would make of this plan.
  const auto bytes = static_cast<double>(exporter::lower_weights(*run.model, run.model_options, p).ByteSizeLong());
  const auto results = train::evaluate_entries(*run.model, valid_, run.norm, *run.options.eval_chunk, run.device,
                                               [&](size_t, size_t, const std::string&) { return !(t.stop && t.stop()); });
  if (!results) {
    out.interrupted = true;
    return out;
  }
  const double score = train::collection_score(run.kind(), *results);
  if (!std::isfinite(score)) {
    out.state = TrialState::Failed;
    out.message = "no finite validation score";
    return out;
  }
  nlohmann::json plan_json = nlohmann::json::array();
  for (exporter::WeightPrecision w : p.per_tensor) plan_json.push_back(exporter::precision_name(w));
  std::filesystem::create_directories(t.dir);
  write_file_atomically((std::filesystem::path(t.dir) / "plan.json").string(),
                        nlohmann::json{{"tensors", plan_json}}.dump() + "\n");
  out.objectives["score"] = score;
  for (const Objective& o : config_.objectives)
    if (o.name == "onnx_bytes") out.objectives["onnx_bytes"] = bytes;
  return out;
}

}  // namespace fastslow::search
