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

TrainingState::TrainingState(HloBuilder& b, std::vector<Dims> packed, bool loop, UpdateOptions options)
    : b_(b), packed_(std::move(packed)), loop_(loop), o_(options) {
  if (o_.accumulate < 1) throw Error("synth: a training step updates every 1 or more steps");
}

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

TrainingState::Adam TrainingState::update(StepGradients s) {
  if (o_.all_reduce) {
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
  // By weight index from here on.
  Adam in;
  in.lr = lr_;
  in.b1t = b1t_;
  in.b2t = b2t_;
  in.w.assign(shapes_.size(), -1);
  std::vector<int> g(shapes_.size(), -1);
  for (const auto& [w, grad] : s.grads) {
    const size_t i = static_cast<size_t>(index_of_.at(w));
    in.w[i] = w;
    g[i] = grad;
  }
  for (int x : in.w)
    if (x < 0) throw Error("synth: a training step left a weight without a gradient");
  for (size_t i = 0; i < in.w.size(); ++i) {
    in.m.push_back(state(1, in.w[i], shapes_[i]));
    in.v.push_back(state(2, in.w[i], shapes_[i]));
  }
  if (accumulating()) return accumulate(in, g);
  if (o_.clip) clip_by_global_norm(g);
  return adam(in, g);
}

TrainingState::Adam TrainingState::adam(const Adam& in, const std::vector<int>& g) {
  // Adam, with the bias-corrected rate; the betas and epsilon are
  // constants broadcast to every weight.
  const int one = scalar();
  const int correction2 = b_.unary("sqrt", b_.binary("subtract", one, in.b2t));
  const int correction = b_.binary("divide", correction2, b_.binary("subtract", one, in.b1t));
  const int rate = b_.binary("multiply", in.lr, correction);
  const int beta1 = scalar(), beta2 = scalar(), eps = scalar();
  const int rest1 = b_.binary("subtract", one, beta1), rest2 = b_.binary("subtract", one, beta2);
  Adam out;
  out.lr = in.lr;
  if (looped()) {
    out.b1t = b_.binary("multiply", in.b1t, beta1);
    out.b2t = b_.binary("multiply", in.b2t, beta2);
  }
  for (size_t i = 0; i < in.w.size(); ++i) {
    const Dims d = b_.dims(in.w[i]);
    const auto bc = [&](int x) { return b_.broadcast(x, d, {}); };
    const int m_kept = b_.binary("multiply", bc(beta1), in.m[i]);
    const int m = b_.binary("add", m_kept, b_.binary("multiply", bc(rest1), g[i]));
    const int g2 = b_.binary("multiply", g[i], g[i]);
    const int v_kept = b_.binary("multiply", bc(beta2), in.v[i]);
    const int v = b_.binary("add", v_kept, b_.binary("multiply", bc(rest2), g2));
    const int root_v = b_.unary("sqrt", v);
    const int step = b_.binary("divide", m, b_.binary("add", root_v, bc(eps)));
    out.w.push_back(b_.binary("subtract", in.w[i], b_.binary("multiply", bc(rate), step)));
    out.m.push_back(m);
    out.v.push_back(v);
  }
  return out;
}

TrainingState::Adam TrainingState::accumulate(const Adam& in, const std::vector<int>& g) {
  const size_t n = in.w.size();
  std::vector<int> sum;
  for (size_t i = 0; i < n; ++i) {
    const int before = state(3, in.w[i], shapes_[i]);
    sum.push_back(b_.binary("add", before, g[i]));
  }
  // Due when the counter is a multiple of `accumulate`.
  const int every = b_.constant(ElementType::S32, {});
  const int phase = b_.binary("remainder", counter_, every);
  const int zero = b_.constant(ElementType::S32, {});
  const int due = b_.compare(phase, zero);
  // The branches see one tuple: the scalars, then weights, moments, sums.
  std::vector<int> all = {in.lr, in.b1t, in.b2t};
  const std::vector<int>* parts[] = {&in.w, &in.m, &in.v, &sum};
  for (const std::vector<int>* q : parts) all.insert(all.end(), q->begin(), q->end());
  const int packed = b_.tuple(all);
  const auto unpack = [&](int t) {
    std::vector<int> out;
    for (size_t k = 0; k < all.size(); ++k) out.push_back(b_.get_tuple_element(t, static_cast<int64_t>(k)));
    return out;
  };
  const auto part = [n](const std::vector<int>& x, size_t k) {
    return std::vector<int>(x.begin() + static_cast<std::ptrdiff_t>(3 + k * n),
                            x.begin() + static_cast<std::ptrdiff_t>(3 + (k + 1) * n));
  };
  const auto as_state = [&](const std::vector<int>& x) {
    Adam a;
    a.lr = x[0];
    a.b1t = x[1];
    a.b2t = x[2];
    a.w = part(x, 0);
    a.m = part(x, 1);
    a.v = part(x, 2);
    return a;
  };
  const int result = b_.conditional(
      due, packed, packed,
      [&](HloBuilder&, const std::vector<int>& p) {
        const std::vector<int> x = unpack(p[0]);
        const Adam read = as_state(x);
        // The mean of the accumulated gradients, clipped as one step's.
        std::vector<int> mean;
        const int inv = scalar();
        for (int s : part(x, 3)) {
          const int spread = b_.broadcast(inv, b_.dims(s), {});
          mean.push_back(b_.binary("multiply", s, spread));
        }
        if (o_.clip) clip_by_global_norm(mean);
        const Adam out = adam(read, mean);
        std::vector<int> next = {out.lr, out.b1t, out.b2t};
        for (const std::vector<int>* q : {&out.w, &out.m, &out.v}) next.insert(next.end(), q->begin(), q->end());
        for (int s : part(x, 3)) {
          const int cleared = b_.broadcast(scalar(), b_.dims(s), {});
          next.push_back(cleared);
        }
        return b_.tuple(next);
      },
      // Not due: the state passes through unchanged (XLA folds a branch of
      // get-tuple-elements re-packed into its parameter).
      [](HloBuilder&, const std::vector<int>& p) { return p[0]; });
  const std::vector<int> x = unpack(result);
  acc_ = part(x, 3);
  return as_state(x);
}

void TrainingState::clip_by_global_norm(std::vector<int>& grads) {
  int total = -1;
  for (const int g : grads) {
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
  for (int& g : grads) {
    const int spread = b_.broadcast(factor, b_.dims(g), {});
    g = b_.binary("multiply", g, spread);
  }
}

HloGraph TrainingState::build(const std::vector<Shape>& fed, const Step& step) {
  if (looped()) {
    // The loop's state: Adam's three scalars, then the weights, their first
    // and their second moments (state() reads them by index).
    std::vector<Shape> carried(3, array_shape(ElementType::F32, {}));
    for (size_t kind = 0; kind < kinds(); ++kind)
      for (const Dims& d : packed_) carried.push_back(array_shape(ElementType::F32, d));
    return training_loop(b_, carried, fed, [&](HloBuilder&, int counter, const std::vector<int>& c, const std::vector<int>& f) {
      counter_ = counter;
      lr_ = c[0];
      b1t_ = c[1];
      b2t_ = c[2];
      carried_.assign(c.begin() + 3, c.end());
      const StepGradients s = step(f);
      const Adam u = update(s);
      StepResult r;
      r.carried = {lr_, u.b1t, u.b2t};
      for (const std::vector<int>* part : {&u.w, &u.m, &u.v}) r.carried.insert(r.carried.end(), part->begin(), part->end());
      if (accumulating()) r.carried.insert(r.carried.end(), acc_.begin(), acc_.end());
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
  const Adam u = update(s);
  std::vector<int> outputs = {s.loss};
  for (size_t i = 0; i < u.w.size(); ++i) {
    outputs.push_back(u.w[i]);
    outputs.push_back(u.m[i]);
    outputs.push_back(u.v[i]);
  }
  return b_.build(b_.tuple(outputs));
}

}  // namespace fastslow::synth::detail
