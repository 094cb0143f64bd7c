#include "train/step_engine.h"

#include <limits>

namespace fastslow::train {

StepEngine::StepEngine(models::RankModelImpl& model, const std::vector<torch::Tensor>& trained, TrainStep& step,
                       GradientSync& sync, const torch::Device& device, const StepEngineOptions& options,
                       const Say& say)
    : model_(model), trained_(trained), step_(step), sync_(sync), device_(device), options_(options) {
  opt_ = std::make_unique<FlatAdamW>(trained_, torch::optim::AdamWOptions(options.lr).weight_decay(options.weight_decay));
  // A sync between processes reads the loss back in the middle of the
  // step; a step that is not replayable does different work each time.
  replay_ = options.cuda_graphs && device.is_cuda() && sync.world_size() == 1 && step.replayable();
  graphs_ = make_step_graphs(device, replay_, say);
  const auto scalar = torch::TensorOptions(torch::kFloat64).device(device);
  step_loss_ = torch::zeros({}, scalar);
  last_loss_ = torch::zeros({}, scalar);
  loss_sum_ = torch::zeros({}, scalar);
  skipped_ = torch::zeros({}, scalar);
  in_a_row_ = torch::zeros({}, scalar);
}

void StepEngine::start_epoch(double loss_sum, int64_t skipped) {
  loss_sum_.fill_(loss_sum);
  skipped_.fill_(static_cast<double>(skipped));
  in_a_row_.zero_();
}

Batch& StepEngine::fixed_batch(const std::string& key, const Batch& like) {
  auto it = fixed_.find(key);
  if (it == fixed_.end()) {
    Batch b;
    b.config_feat = torch::empty(like.config_feat.sizes(), like.config_feat.options().device(device_).pinned_memory(false));
    b.target = torch::empty(like.target.sizes(), like.target.options().device(device_).pinned_memory(false));
    it = fixed_.emplace(key, std::move(b)).first;
  }
  return it->second;
}

void StepEngine::run(const std::vector<Pick>& picks, const PreparedData& data, double lr) {
  opt_->set_lr(lr);
  for (size_t m = 0; m < picks.size(); ++m) {
    const Pick& pick = picks[m];
    const Batch host = step_.prepare(data, pick, device_.is_cuda());
    if (m + 1 == picks.size()) sync_.expect_gradients(trained_);
    if (!graphs_->replaying()) {
      const Batch batch = upload(host, device_);
      step_loss_.add_(step_.forward_backward(model_, data, pick, batch).detach());
      continue;
    }
    // A piece per graph and batch size: its inputs copied into its buffers.
    const std::string key =
        "fb/" + std::to_string(pick.graph) + "/" + std::to_string(host.config_feat.size(0));
    Batch& fixed = fixed_batch(key, host);
    fixed.groups = host.groups;
    fixed.config_feat.copy_(host.config_feat, /*non_blocking=*/true);
    fixed.target.copy_(host.target, /*non_blocking=*/true);
    graphs_->run(key, [&] { step_loss_.add_(step_.forward_backward(model_, data, pick, fixed).detach()); });
  }
  const auto micro = static_cast<int64_t>(picks.size());
  graphs_->run("update/" + std::to_string(micro), [&] { update(micro); });
}

// Everything after the backward passes, on the device: averaged gradients,
// agreement on finiteness, clipping, the masked update, the counters, and
// zeroed gradients and loss for the next step.
void StepEngine::update(int64_t micro) {
  torch::NoGradGuard no_grad;
  torch::Tensor ok = sync_.reduce(trained_, torch::isfinite(step_loss_));
  if (micro > 1) {
    opt_->flat_grad().div_(static_cast<double>(micro));
    step_loss_.div_(static_cast<double>(micro));
  }
  const torch::Tensor norm = opt_->clip_grad_norm(options_.clip > 0 ? options_.clip : 0.0);
  ok = ok.to(torch::kBool).logical_and(torch::isfinite(norm));
  opt_->step_if(ok);
  const torch::Tensor skip = ok.logical_not().to(torch::kFloat64);
  loss_sum_.add_(torch::where(ok, step_loss_, torch::zeros_like(step_loss_)));
  skipped_.add_(skip);
  in_a_row_.add_(1.0).mul_(skip);
  last_loss_.copy_(step_loss_);
  step_loss_.zero_();
  opt_->zero_grads();
}

StepTotals StepEngine::read() const {
  const torch::Tensor all = torch::stack({loss_sum_, skipped_, in_a_row_, last_loss_}).cpu();
  const double* v = all.data_ptr<double>();
  StepTotals t;
  t.loss_sum = v[0];
  t.skipped = static_cast<int64_t>(v[1]);
  t.skipped_in_a_row = static_cast<int64_t>(v[2]);
  t.last_loss = v[3];
  return t;
}

}  // namespace fastslow::train
