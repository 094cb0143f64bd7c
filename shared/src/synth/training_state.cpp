#include "training_state.h"

#include "fastslow/error.h"
#include "training_loop.h"

namespace fastslow::synth::detail {

std::pair<int, int> softmax_cross_entropy(HloBuilder& b, Net& f32, int logits, int labels) {
  const int both = b.call({logits, labels}, [&](HloBuilder&, const std::vector<int>& in) {
    const int probs = f32.softmax(in[0]);
    const int ll = b.binary("multiply", in[1], b.unary("log", probs));
    Dims all;
    for (int i = 0; i < b.node(in[0]).rank(); ++i) all.push_back(i);
    const int sum = b.reduce(ll, f32.scalar(), all);
    const int mean = b.unary("negate", b.binary("multiply", sum, f32.scalar()));
    const int diff = b.binary("subtract", probs, in[1]);
    const int dz = b.binary("multiply", diff, f32.splat(f32.dims(in[0])));
    return b.tuple({mean, dz});
  });
  const int loss = b.get_tuple_element(both, 0);
  return {loss, b.get_tuple_element(both, 1)};
}

TrainingState::TrainingState(HloBuilder& b, std::vector<Dims> packed, bool loop, bool all_reduce, bool clip)
    : b_(b), packed_(std::move(packed)), loop_(loop), all_reduce_(all_reduce), clip_(clip) {}

int TrainingState::state(int kind, int w, const Dims& d) {
  const int index = kind == 0 ? static_cast<int>(shapes_.size()) : index_of_.at(w);
  int v;
  if (packed_.empty()) {
    v = b_.parameter(ElementType::F32, d);
  } else if (looped()) {
    v = carried_.at(static_cast<size_t>(kind) * packed_.size() + static_cast<size_t>(index));
  } else {
    v = b_.get_tuple_element(tuples_[static_cast<size_t>(kind)], index);
  }
  if (kind == 0) {
    if (!packed_.empty() && (static_cast<size_t>(index) >= packed_.size() || packed_[static_cast<size_t>(index)] != d))
      throw Error("synth: a training step made other weights than its first build");
    shapes_.push_back(d);
    index_of_[v] = index;
  }
  return v;
}

TrainingState::Updated TrainingState::update(StepGradients s) {
  if (all_reduce_) {
    std::vector<int> gs;
    Shape t;
    t.type = ElementType::Tuple;
    for (const auto& pg : s.grads) {
      gs.push_back(pg.second);
      t.tuple.push_back(b_.shape(pg.second));
    }
    const int summed = b_.op("all-reduce", gs, t);
    for (size_t i = 0; i < s.grads.size(); ++i) s.grads[i].second = b_.get_tuple_element(summed, static_cast<int64_t>(i));
  }
  if (clip_) clip_by_global_norm(s.grads);
  // Adam, with the bias-corrected rate; the betas and epsilon are
  // constants broadcast to every weight.
  const int one = scalar();
  const int correction2 = b_.unary("sqrt", b_.binary("subtract", one, b2t_));
  const int correction = b_.binary("divide", correction2, b_.binary("subtract", one, b1t_));
  const int rate = b_.binary("multiply", lr_, correction);
  const int beta1 = scalar(), beta2 = scalar(), eps = scalar();
  const int rest1 = b_.binary("subtract", one, beta1), rest2 = b_.binary("subtract", one, beta2);
  Updated out;
  if (looped()) {
    out.b1t = b_.binary("multiply", b1t_, beta1);
    out.b2t = b_.binary("multiply", b2t_, beta2);
  }
  out.w.assign(shapes_.size(), -1);
  out.m = out.v = out.w;
  for (const auto& [w, g] : s.grads) {
    const Dims d = b_.dims(w);
    const auto bc = [&](int x) { return b_.broadcast(x, d, {}); };
    const int m0 = state(1, w, d), v0 = state(2, w, d);
    const int m_kept = b_.binary("multiply", bc(beta1), m0);
    const int m = b_.binary("add", m_kept, b_.binary("multiply", bc(rest1), g));
    const int g2 = b_.binary("multiply", g, g);
    const int v_kept = b_.binary("multiply", bc(beta2), v0);
    const int v = b_.binary("add", v_kept, b_.binary("multiply", bc(rest2), g2));
    const int root_v = b_.unary("sqrt", v);
    const int step = b_.binary("divide", m, b_.binary("add", root_v, bc(eps)));
    const size_t i = static_cast<size_t>(index_of_.at(w));
    out.w[i] = b_.binary("subtract", w, b_.binary("multiply", bc(rate), step));
    out.m[i] = m;
    out.v[i] = v;
  }
  for (int x : out.w)
    if (x < 0) throw Error("synth: a training step left a weight without a gradient");
  return out;
}

void TrainingState::clip_by_global_norm(std::vector<std::pair<int, int>>& grads) {
  int total = -1;
  for (const auto& pg : grads) {
    const int g = pg.second;
    const int sq = b_.binary("multiply", g, g);
    Dims all;
    for (int i = 0; i < b_.node(g).rank(); ++i) all.push_back(i);
    const int zero = scalar();
    const int part = b_.reduce(sq, zero, all);
    total = total < 0 ? part : b_.binary("add", total, part);
  }
  if (total < 0) return;
  const int norm = b_.unary("sqrt", total);
  const int limit = scalar();
  const int one = scalar();
  const int ratio = b_.binary("divide", limit, norm);
  const int factor = b_.binary("minimum", one, ratio);
  for (auto& pg : grads) {
    const int spread = b_.broadcast(factor, b_.dims(pg.second), {});
    pg.second = b_.binary("multiply", pg.second, spread);
  }
}

HloGraph TrainingState::build(const std::vector<Shape>& fed, const Step& step) {
  if (looped()) {
    // The loop's state: Adam's three scalars, then the weights, their first
    // and their second moments (state() reads them by index).
    std::vector<Shape> carried(3, array_shape(ElementType::F32, {}));
    for (int kind = 0; kind < 3; ++kind)
      for (const Dims& d : packed_) carried.push_back(array_shape(ElementType::F32, d));
    return training_loop(b_, carried, fed, [&](HloBuilder&, const std::vector<int>& c, const std::vector<int>& f) {
      lr_ = c[0];
      b1t_ = c[1];
      b2t_ = c[2];
      carried_.assign(c.begin() + 3, c.end());
      const StepGradients s = step(f);
      const Updated u = update(s);
      StepResult r;
      r.carried = {lr_, u.b1t, u.b2t};
      for (const std::vector<int>* part : {&u.w, &u.m, &u.v}) r.carried.insert(r.carried.end(), part->begin(), part->end());
      r.outfed = {s.loss};
      return r;
    });
  }
  std::vector<int> inputs;
  for (const Shape& s : fed) inputs.push_back(b_.parameter(s));
  // Adam's scalars: the rate and the running powers of beta1 and beta2
  // arrive with the step.
  lr_ = b_.parameter(ElementType::F32, {});
  b1t_ = b_.parameter(ElementType::F32, {});
  b2t_ = b_.parameter(ElementType::F32, {});
  if (!packed_.empty()) {
    Shape state;
    state.type = ElementType::Tuple;
    for (const Dims& d : packed_) state.tuple.push_back(array_shape(ElementType::F32, d));
    for (int& t : tuples_) t = b_.parameter(state);
  }
  const StepGradients s = step(inputs);
  const Updated u = update(s);
  std::vector<int> outputs = {s.loss};
  for (size_t i = 0; i < u.w.size(); ++i) {
    outputs.push_back(u.w[i]);
    outputs.push_back(u.m[i]);
    outputs.push_back(u.v[i]);
  }
  return b_.build(b_.tuple(outputs));
}

}  // namespace fastslow::synth::detail
