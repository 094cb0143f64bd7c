#include "train/flat_adamw.h"

#include <cmath>
#include <sstream>
#include <string>
#include <type_traits>

#include "fastslow/error.h"

namespace fastslow::train {

namespace {

// torch::optim keys its per-parameter state by the parameter's TensorImpl:
// as a string of the pointer in LibTorch 1.x, as the pointer itself later.
template <class Map>
typename Map::key_type state_key(const Map&, const torch::Tensor& p) {
  using Key = typename Map::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream s;
    s << p.unsafeGetTensorImpl();
    return s.str();
  } else {
    return static_cast<Key>(p.unsafeGetTensorImpl());
  }
}

}  // namespace

FlatAdamW::FlatAdamW(const std::vector<torch::Tensor>& params, torch::optim::AdamWOptions options)
    : torch::optim::AdamW(params, options),
      params_(params),
      beta1_(std::get<0>(options.betas())),
      beta2_(std::get<1>(options.betas())),
      eps_(options.eps()),
      weight_decay_(options.weight_decay()) {
  if (options.amsgrad()) throw Error("FlatAdamW: amsgrad is not supported");
  int64_t total = 0;
  for (const torch::Tensor& p : params_) {
    if (p.device() != params_.front().device() || p.scalar_type() != params_.front().scalar_type())
      throw Error("FlatAdamW: parameters on several devices or of several dtypes");
    offset_.push_back(total);
    total += p.numel();
  }
  const torch::TensorOptions to = params_.empty() ? torch::TensorOptions(torch::kFloat32)
                                                  : params_.front().options().requires_grad(false);
  param_ = torch::empty({total}, to);
  grad_ = torch::zeros({total}, to);
  exp_avg_ = torch::zeros({total}, to);
  exp_avg_sq_ = torch::zeros({total}, to);
  step_ = torch::zeros({}, to.dtype(torch::kFloat64));
  lr_ = torch::full({}, options.lr(), to.dtype(torch::kFloat64));
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < params_.size(); ++i) {
    torch::Tensor& p = params_[i];
    const torch::Tensor view = param_.narrow(0, offset_[i], p.numel()).view_as(p);
    view.copy_(p.detach());
    p.set_data(view);
    if (p.grad().defined()) grad_.narrow(0, offset_[i], p.numel()).view_as(p).copy_(p.grad());
    p.mutable_grad() = grad_.narrow(0, offset_[i], p.numel()).view_as(p);
  }
}

void FlatAdamW::rebind() {
  if (params_.empty()) return;
  torch::NoGradGuard no_grad;
  const auto elem = static_cast<int64_t>(param_.element_size());
  auto* base = static_cast<char*>(param_.data_ptr());
  auto* gbase = static_cast<char*>(grad_.data_ptr());
  for (size_t i = 0; i < params_.size(); ++i) {
    torch::Tensor& p = params_[i];
    if (p.data_ptr() != base + offset_[i] * elem || !p.is_contiguous()) {
      const torch::Tensor view = param_.narrow(0, offset_[i], p.numel()).view_as(p);
      view.copy_(p.detach());
      p.set_data(view);
    }
    const torch::Tensor& g = p.grad();
    if (!g.defined() || g.data_ptr() != gbase + offset_[i] * elem || !g.is_contiguous()) {
      torch::Tensor view = grad_.narrow(0, offset_[i], p.numel()).view_as(p);
      if (g.defined())
        view.copy_(g);
      else
        view.zero_();
      p.mutable_grad() = view;
    }
  }
}

void FlatAdamW::set_lr(double lr) {
  for (auto& g : param_groups()) static_cast<torch::optim::AdamWOptions&>(g.options()).lr(lr);
  lr_.fill_(lr);
}

void FlatAdamW::zero_grads() {
  rebind();
  grad_.zero_();
}

const torch::Tensor& FlatAdamW::flat_grad() {
  rebind();
  return grad_;
}

torch::Tensor FlatAdamW::clip_grad_norm(double max_norm) {
  torch::NoGradGuard no_grad;
  rebind();
  torch::Tensor total = grad_.norm();
  if (max_norm > 0 && std::isfinite(max_norm)) {
    // clip_grad_norm_'s rule: scale by max_norm / (norm + 1e-6) when that is below 1.
    grad_.mul_((max_norm / (total + 1e-6)).clamp_max(1.0));
  }
  return total;
}

void FlatAdamW::step_if(const torch::Tensor& ok) {
  if (params_.empty()) return;
  torch::NoGradGuard no_grad;
  rebind();
  const torch::Tensor okb = ok.to(param_.device(), torch::kBool);
  // The bias corrections from the step count on the device, in double as
  // AdamW computes them on the host; each scalar meets the float32 buffers
  // as AdamW's double arguments do, rounded to float32.
  step_.add_(okb.to(torch::kFloat64));
  const torch::Tensor t = step_.clamp_min(1.0);
  const torch::Tensor bc1 = 1.0 - torch::pow(beta1_, t);
  const torch::Tensor bc2 = 1.0 - torch::pow(beta2_, t);
  const auto f = [&](const torch::Tensor& x) { return x.to(param_.scalar_type()); };
  torch::Tensor p = weight_decay_ != 0 ? param_ * f(1.0 - lr_ * weight_decay_) : param_.clone();
  torch::Tensor m = exp_avg_.mul(beta1_).add_(grad_, 1 - beta1_);
  torch::Tensor v = exp_avg_sq_.mul(beta2_).addcmul_(grad_, grad_, 1 - beta2_);
  const torch::Tensor denom = (v.sqrt() / f(bc2.sqrt())).add_(eps_);
  // p.addcdiv_(m, denom, -step_size), with the step size a device scalar.
  p.sub_(m * f(lr_ / bc1) / denom);
  param_.copy_(torch::where(okb, p, param_));
  exp_avg_.copy_(torch::where(okb, m, exp_avg_));
  exp_avg_sq_.copy_(torch::where(okb, v, exp_avg_sq_));
}

torch::Tensor FlatAdamW::step(LossClosure closure) {
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  step_if(torch::ones({}, torch::TensorOptions(torch::kBool).device(param_.device())));
  return loss;
}

int64_t FlatAdamW::steps_taken() const { return static_cast<int64_t>(std::llround(step_.item<double>())); }

void FlatAdamW::write_param_states() const {
  auto& self = const_cast<FlatAdamW&>(*this);  // logically const: the state mirrors the flat buffers
  auto& states = self.state();
  const int64_t steps = steps_taken();
  for (size_t i = 0; i < params_.size(); ++i) {
    const torch::Tensor& p = params_[i];
    const auto key = state_key(states, p);
    if (steps == 0) {  // AdamW makes a parameter's state at its first step
      states.erase(key);
      continue;
    }
    auto s = std::make_unique<torch::optim::AdamWParamState>();
    s->step(steps);
    s->exp_avg(exp_avg_.narrow(0, offset_[i], p.numel()).view_as(p));
    s->exp_avg_sq(exp_avg_sq_.narrow(0, offset_[i], p.numel()).view_as(p));
    states[key] = std::move(s);
  }
}

void FlatAdamW::read_param_states() {
  torch::NoGradGuard no_grad;
  auto& states = state();
  int64_t steps = -1;
  exp_avg_.zero_();
  exp_avg_sq_.zero_();
  for (size_t i = 0; i < params_.size(); ++i) {
    const torch::Tensor& p = params_[i];
    const auto it = states.find(state_key(states, p));
    if (it == states.end()) continue;
    const auto& s = static_cast<const torch::optim::AdamWParamState&>(*it->second);
    // A checkpoint of torch::optim::AdamW may hold parameters that skipped
    // steps (no gradient): the flat optimizer keeps one count, the largest.
    steps = std::max(steps, s.step());
    exp_avg_.narrow(0, offset_[i], p.numel()).view_as(p).copy_(s.exp_avg());
    exp_avg_sq_.narrow(0, offset_[i], p.numel()).view_as(p).copy_(s.exp_avg_sq());
  }
  step_.fill_(static_cast<double>(std::max<int64_t>(steps, 0)));
  const auto& o = static_cast<const torch::optim::AdamWOptions&>(param_groups().front().options());
  lr_.fill_(o.lr());
  write_param_states();
}

void FlatAdamW::save(torch::serialize::OutputArchive& archive) const {
  write_param_states();
  torch::optim::AdamW::save(archive);
}

void FlatAdamW::load(torch::serialize::InputArchive& archive) {
  torch::optim::AdamW::load(archive);
  rebind();
  read_param_states();
}

}  // namespace fastslow::train
