// XLA's form of a training program, for the templates that build a step
// (template_unet_training.cpp): the step is the body of a while loop whose
// state is one tuple, the model's weights and optimiser state among its
// elements. Every real training file in data/real has this shape
// (AlexNet, unet3d, the xla test graph): the loop body's tuple parameter is
// unpacked by one get-tuple-element per element (fan-out 19-228 there,
// 3-4 in a step built alone), the new state is packed into the body's root
// tuple, and the entry computation unpacks its own parameter into the
// initial tuple and the loop's result into its root. The data batch comes
// in by infeed inside the body, the loss goes out by outfeed. Internal to
// the generator's sources.
#pragma once

#include <functional>
#include <vector>

#include "fastslow/synth/hlo.h"

namespace fastslow::synth::detail {

struct StepResult {
  std::vector<int> carried;  // the new state: one node per carried shape, in order
  std::vector<int> outfed;   // sent to the host every step (the loss)
};

// Builds one step inside the loop body. `counter`: the s32 step count;
// `carried`: the state's elements as the body unpacks them; `fed`: the
// batch the infeed delivers.
using StepFn =
    std::function<StepResult(HloBuilder& b, int counter, const std::vector<int>& carried, const std::vector<int>& fed)>;

// Builds the whole program on `b` (which must be empty): entry, loop
// condition (a step counter against a constant) and body. The loop's state
// is (counter, token, carried...). Returns the graph.
HloGraph training_loop(HloBuilder& b, const std::vector<Shape>& carried, const std::vector<Shape>& fed,
                       const StepFn& step);

}  // namespace fastslow::synth::detail
