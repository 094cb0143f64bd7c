// What the training-step templates share (template_unet_training.cpp,
// template_bert_training.cpp): the weights and their Adam state in
// the form the program passes them, the gradients' all-reduce, the Adam
// update, and the program around the step. Three forms:
//   plain   one parameter per weight and moment: the first build of a
//           plan, which finds the weights' shapes (never emitted);
//   packed  a step compiled alone: weights, first and second moments as
//           three tuple parameters unpacked by get-tuple-element (the real
//           nlp training files pass their state so: a parameter with 1,486
//           get-tuple-element users);
//   loop    the step as the body of a training loop (training_loop.h), as
//           the real xla training files run it.
// Internal to the generator's sources.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "fastslow/synth/hlo.h"
#include "net.h"

namespace fastslow::synth::detail {

// What a step computes before the update: its loss and each weight's
// gradient in f32, in any order.
struct StepGradients {
  int loss = -1;
  std::vector<std::pair<int, int>> grads;  // (weight, gradient)
};

// The mean softmax cross-entropy of f32 logits against labels of their
// shape and its gradient, in a computation of its own (the loss function
// the program calls): returns (loss, gradient of the logits). `f32` builds
// on the same builder in f32.
std::pair<int, int> softmax_cross_entropy(HloBuilder& b, Net& f32, int logits, int labels);

// How a step updates its weights; the templates draw it per program.
struct UpdateOptions {
  // Sums the gradients over replicas first, in one tuple, as a
  // data-parallel step does.
  bool all_reduce = false;
  // Scales every gradient by min(1, limit / global norm), as optimisers clip
  // by global norm (one scalar broadcast to every gradient: the real files'
  // fan-out).
  bool clip = false;
  // Steps per update, in the loop form (a step alone updates every time).
  // Above 1 the gradients add into accumulators the loop carries, and a
  // `conditional` on the step counter applies Adam to their mean every
  // `accumulate` steps while its other branch passes the state through:
  // gradient accumulation, how a batch larger than the machine holds is
  // trained, and where XLA programs get their conditionals.
  int64_t accumulate = 1;
};

class TrainingState {
 public:
  // `packed`: every weight's shape in creation order (shapes() of a plain
  // build); empty for the plain build. `loop` picks the loop form over the
  // packed one.
  TrainingState(HloBuilder& b, std::vector<Dims> packed, bool loop, UpdateOptions options);
  const std::vector<Dims>& shapes() const { return shapes_; }

  // A new f32 weight: call only inside the step.
  int weight(const Dims& d) { return state(0, -1, d); }

  // The program: `fed` are the batch's shapes (parameters of a step alone,
  // infeed in the loop); `step` builds forward, loss and backward from the
  // fed values.
  using Step = std::function<StepGradients(const std::vector<int>& fed)>;
  HloGraph build(const std::vector<Shape>& fed, const Step& step);

 private:
  bool looped() const { return loop_ && !packed_.empty(); }
  int state(int kind, int w, const Dims& d);  // kind 0: a new weight; 1, 2: weight w's moments; 3: its sum
  int scalar() { return b_.constant(ElementType::F32, {}); }

  bool accumulating() const { return looped() && o_.accumulate > 1; }
  // Kinds of state per weight: the weight, Adam's two moments and, when
  // accumulating, the gradients' sum.
  size_t kinds() const { return accumulating() ? 4 : 3; }

  // Adam's inputs and outputs, by weight index.
  struct Adam {
    int lr = -1, b1t = -1, b2t = -1;  // b1t, b2t: the powers of the betas (outputs: the loop's next ones)
    std::vector<int> w, m, v;
  };
  Adam update(StepGradients s);
  // Adam on the current computation: `in` holds the weights and moments as
  // read, `g` their gradients.
  Adam adam(const Adam& in, const std::vector<int>& g);
  // The accumulating update: adds `g` to the sums and builds the
  // conditional that applies Adam when the counter says so. Returns the new
  // state; the new sums go to acc_.
  Adam accumulate(const Adam& in, const std::vector<int>& g);
  void clip_by_global_norm(std::vector<int>& grads);

  HloBuilder& b_;
  std::vector<Dims> packed_, shapes_;
  bool loop_;
  UpdateOptions o_;
  int lr_ = -1, b1t_ = -1, b2t_ = -1, counter_ = -1;
  std::array<int, 3> tuples_{-1, -1, -1};  // packed: the three state tuples
  std::vector<int> carried_;               // loop: weights, m, v (and sums) as unpacked
  std::vector<int> acc_;                   // loop: the sums after update() (accumulating)
  std::map<int, int> index_of_;            // weight node -> its place in the state
};

}  // namespace fastslow::synth::detail
