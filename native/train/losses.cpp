#include "train/losses.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "fastslow/error.h"

namespace fastslow::train {

namespace {

constexpr const char* kValidNames = "mse, hinge, listmle";

// Shape and device checks read tensor metadata only, so they cost no device sync.
torch::Tensor checked_target(const char* loss, const torch::Tensor& scores, const torch::Tensor& target) {
  auto fail = [&](const std::string& what) { throw Error(std::string(loss) + " loss: " + what); };
  if (!scores.defined() || !target.defined()) fail("undefined tensor");
  if (scores.dim() != 1 || target.dim() != 1)
    fail("scores and target must be 1-D, got " + std::to_string(scores.dim()) + "-D and " +
         std::to_string(target.dim()) + "-D");
  if (scores.size(0) != target.size(0))
    fail(std::to_string(scores.size(0)) + " scores for " + std::to_string(target.size(0)) + " targets");
  if (scores.size(0) == 0) fail("no configs");
  if (!scores.is_floating_point()) fail("scores must be floating point");
  if (scores.device() != target.device())
    fail("scores on " + scores.device().str() + " but target on " + target.device().str());
  return target.to(scores.scalar_type());
}

std::string format_weight(double w) {
  // The shortest text that parses back to the same double.
  for (int precision = 6; precision <= 17; ++precision) {
    std::ostringstream s;
    s.precision(precision);
    s << w;
    if (std::strtod(s.str().c_str(), nullptr) == w) return s.str();
  }
  std::ostringstream s;
  s.precision(17);
  s << w;
  return s.str();
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

}  // namespace

torch::Tensor mse_loss(const torch::Tensor& scores, const torch::Tensor& target) {
  const auto t = checked_target("mse", scores, target);
  return (scores - t).pow(2).mean();
}

torch::Tensor pairwise_hinge_loss(const torch::Tensor& scores, const torch::Tensor& target, double margin) {
  const auto t = checked_target("hinge", scores, target);
  if (!std::isfinite(margin)) throw Error("hinge loss: margin must be finite");
  // [i][j] = score_j - score_i, over pairs where i is truly faster than j.
  const auto gap = scores.unsqueeze(0) - scores.unsqueeze(1);
  const auto faster = (t.unsqueeze(1) < t.unsqueeze(0)).to(scores.scalar_type());
  const auto total = (torch::relu(margin - gap) * faster).sum();
  // No ordered pair: the numerator is 0 and stays 0 over a count clamped to 1.
  return total / faster.sum().clamp_min(1);
}

torch::Tensor listmle_loss(const torch::Tensor& scores, const torch::Tensor& target) {
  const auto t = checked_target("listmle", scores, target);
  // Stable, so tied targets keep index order, as documented.
  const auto order = std::get<1>(torch::sort(t, /*stable=*/true, /*dim=*/0, /*descending=*/false));
  const auto u = -scores.index_select(0, order);
  // logsumexp of u over positions i..B for every i, without overflow.
  const auto tail_lse = torch::flip(torch::logcumsumexp(torch::flip(u, {0}), 0), {0});
  return (tail_lse - u).sum() / static_cast<double>(scores.size(0));
}

torch::Tensor listwise_distill_loss(const torch::Tensor& scores, const torch::Tensor& teacher, double temperature) {
  const auto t = checked_target("distill", scores, teacher);
  if (!(temperature > 0) || !std::isfinite(temperature))
    throw Error("distill loss: temperature must be positive and finite, got " + std::to_string(temperature));
  const auto log_p = torch::log_softmax(-t / temperature, 0);
  const auto log_q = torch::log_softmax(-scores / temperature, 0);
  return (log_p.exp() * (log_p - log_q)).sum() * (temperature * temperature);
}

LossSpec LossSpec::parse(const std::string& text) {
  auto fail = [&](const std::string& what) {
    throw Error("loss spec '" + text + "': " + what + " (expected name[:weight],... with names " + kValidNames + ")");
  };
  LossSpec spec;
  if (trim(text).empty()) fail("empty");
  size_t start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    const std::string term = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (term.empty()) fail("empty term");
    const size_t colon = term.find(':');
    const std::string name = trim(term.substr(0, colon));
    if (name != "mse" && name != "hinge" && name != "listmle") fail("unknown loss '" + name + "'");
    double weight = 1.0;
    if (colon != std::string::npos) {
      const std::string w = trim(term.substr(colon + 1));
      char* end = nullptr;
      weight = w.empty() ? NAN : std::strtod(w.c_str(), &end);
      if (w.empty() || *end != '\0' || !std::isfinite(weight))
        fail("bad weight '" + w + "' for '" + name + "'");
      if (weight < 0) fail("negative weight " + w + " for '" + name + "'");
    }
    for (const auto& term_seen : spec.terms)
      if (term_seen.first == name) fail("'" + name + "' given twice");
    spec.terms.emplace_back(name, weight);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  bool any_positive = false;
  for (const auto& term : spec.terms) any_positive = any_positive || term.second > 0;
  if (!any_positive) fail("every weight is 0");
  return spec;
}

std::string LossSpec::str() const {
  std::string s;
  for (const auto& [name, weight] : terms) {
    if (!s.empty()) s += ",";
    s += name;
    if (weight != 1.0) s += ":" + format_weight(weight);
  }
  return s;
}

torch::Tensor LossSpec::operator()(const torch::Tensor& scores, const torch::Tensor& target) const {
  if (terms.empty()) throw Error("loss spec: no terms (expected names among " + std::string(kValidNames) + ")");
  torch::Tensor total;
  for (const auto& [name, weight] : terms) {
    torch::Tensor loss;
    if (name == "mse")
      loss = train::mse_loss(scores, target);  // qualified: ADL also finds at::mse_loss
    else if (name == "hinge")
      loss = pairwise_hinge_loss(scores, target);
    else if (name == "listmle")
      loss = listmle_loss(scores, target);
    else
      throw Error("loss spec: unknown loss '" + name + "' (valid: " + kValidNames + ")");
    total = total.defined() ? total + weight * loss : weight * loss;
  }
  return total;
}

}  // namespace fastslow::train
