#include "train/init_run.h"

#include <torch/torch.h>

#include <filesystem>

#include "fastslow/error.h"
#include "train/loaded_run.h"
#include "train/run_dir.h"
#include "train/run_files.h"

namespace fastslow::train {

namespace {

void check_prior(const TrainOptions& prior, const TrainOptions& o) {
  auto differs = [&](const std::string& what, const std::string& theirs, const std::string& ours) {
    throw Error(o.init, "config.json",
                "--init: the prior's " + what + " is " + theirs + ", this run's " + ours +
                    " (leave the option out to take the prior's)");
  };
  if (prior.kind != o.kind) differs("kind", prior.kind, o.kind);
  if (prior.model != o.model) differs("model", prior.model, o.model);
  if (*prior.hidden != *o.hidden) differs("--hidden", std::to_string(*prior.hidden), std::to_string(*o.hidden));
  if (*prior.layers != *o.layers) differs("--layers", std::to_string(*prior.layers), std::to_string(*o.layers));
  if (prior.tile_features.value_or(0) != o.tile_features.value_or(0))
    differs("--tile-features", std::to_string(prior.tile_features.value_or(0)),
            std::to_string(o.tile_features.value_or(0)));
}

bool per_program_only(const std::string& name) {
  return name.rfind("wide.", 0) == 0 || name == "gate" || name == "scale";
}

}  // namespace

Normalizer init_normaliser(const TrainOptions& o) {
  const RunDir run(o.init);
  if (!std::filesystem::is_directory(o.init)) throw Error(o.init, "", "--init: no such run folder");
  if (!run.has("best.pt")) throw Error(o.init, "best.pt", "--init: the run holds no trained model yet");
  const TrainOptions prior = load_run_options(o.init);
  check_prior(prior, o);
  Normalizer norm = read_stats(run);
  check_layout_context(o.init, prior, norm);
  return norm;
}

InitCopy copy_init_weights(models::RankModelImpl& model, const TrainOptions& o) {
  const LoadedRun prior = load_run(o.init, "cpu");
  torch::NoGradGuard no_grad;
  auto ours = model.named_parameters(true);
  auto our_buffers = model.named_buffers(true);
  InitCopy c;
  auto copy_all = [&](const torch::OrderedDict<std::string, torch::Tensor>& theirs) {
    for (const auto& item : theirs) {
      if (per_program_only(item.key())) {
        ++c.skipped;
        continue;
      }
      torch::Tensor* to = nullptr;
      for (const std::string& name : {item.key(), "deep." + item.key()}) {
        if (!to) to = ours.find(name);
        if (!to) to = our_buffers.find(name);
      }
      if (!to || to->sizes() != item.value().sizes())
        throw Error(o.init, "best.pt",
                    "--init: the prior's tensor '" + item.key() + "' has no counterpart of its shape in this run's "
                    "model (a different model, width, or number of node or config features)");
      to->copy_(item.value().to(to->device()));
      ++c.tensors;
    }
  };
  copy_all(prior.model->named_parameters(true));
  copy_all(prior.model->named_buffers(true));
  return c;
}

}  // namespace fastslow::train
