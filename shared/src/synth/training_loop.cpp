#include "training_loop.h"

#include "fastslow/error.h"

namespace fastslow::synth::detail {
namespace {

Shape tuple_of(std::vector<Shape> elements) {
  Shape s;
  s.type = ElementType::Tuple;
  s.tuple = std::move(elements);
  return s;
}

Shape token() { return array_shape(ElementType::Token, {}); }

// One get-tuple-element per element of tuple t, from `first` on.
std::vector<int> unpack(HloBuilder& b, int t, size_t first, size_t count) {
  std::vector<int> out;
  for (size_t i = 0; i < count; ++i) out.push_back(b.get_tuple_element(t, static_cast<int64_t>(first + i)));
  return out;
}

}  // namespace

HloGraph training_loop(HloBuilder& b, const std::vector<Shape>& carried, const std::vector<Shape>& fed,
                       const StepFn& step) {
  if (b.size() != 0) throw Error("synth: training_loop needs an empty builder");
  constexpr size_t kFixed = 2;  // counter, token
  std::vector<Shape> state_shapes = {array_shape(ElementType::S32, {}), token()};
  state_shapes.insert(state_shapes.end(), carried.begin(), carried.end());

  // Entry: the host's state arrives as one tuple, unpacked and repacked
  // with a fresh counter and token as the loop's initial state.
  const int host = b.parameter(tuple_of(carried));
  std::vector<int> init = {b.constant(ElementType::S32, {})};
  init.push_back(b.op("after-all", {}, token()));
  for (int v : unpack(b, host, 0, carried.size())) init.push_back(v);
  const int state = b.tuple(init);

  const int loop = b.while_loop(
      state,
      [&](HloBuilder& c, const std::vector<int>& p) {
        const int counter = c.get_tuple_element(p[0], 0);
        const int steps = c.constant(ElementType::S32, {});
        return c.compare(counter, steps);
      },
      [&](HloBuilder& c, const std::vector<int>& p) {
        const std::vector<int> in = unpack(c, p[0], 0, state_shapes.size());
        const int feed = c.op("infeed", {in[1]}, tuple_of({tuple_of(fed), token()}));
        const int batch = c.get_tuple_element(feed, 0);
        const int fed_token = c.get_tuple_element(feed, 1);
        const std::vector<int> fed_values = unpack(c, batch, 0, fed.size());
        const std::vector<int> carried_in(in.begin() + kFixed, in.end());
        const StepResult r = step(c, in[0], carried_in, fed_values);
        if (r.carried.size() != carried.size()) throw Error("synth: training_loop: the step returned another state");
        const int sent = c.tuple(r.outfed);
        const int out_token = c.op("outfeed", {sent, fed_token}, token());
        const int one = c.constant(ElementType::S32, {});
        std::vector<int> next = {c.binary("add", in[0], one), out_token};
        next.insert(next.end(), r.carried.begin(), r.carried.end());
        return c.tuple(next);
      });

  // The trained state goes back to the host.
  return b.build(b.tuple(unpack(b, loop, kFixed, carried.size())));
}

}  // namespace fastslow::synth::detail
