// One training step of a U-Net, 2-D or 3-D, as XLA compiles a data-parallel
// replica's step. It stands for the real training programs among the layout
// files (unet3d in data/real is one: 5-D tensors, mixed precision, a runtime
// dominated by weight-gradient convolutions, a quarter of its nodes
// get-tuple-element, broadcasts of a few optimiser scalars fanned out to
// every weight). The step:
//   forward   per level, convolutions with bias and ReLU; max-pool (or a
//             stride-2 convolution) down, a transposed convolution up,
//             skip connections concatenated on the way up; a 1x1 head;
//   loss      softmax cross-entropy in f32;
//   backward  the ReLUs' selects, input-gradient convolutions (reversed
//             kernels, base dilation under strided ones), weight-gradient
//             convolutions (the batch contracted: input batch and feature
//             dims swapped, the window as large as the image), the
//             max-pool's select-and-scatter, bias gradients by reduce;
//   all-reduce the gradients of every replica in one tuple (some programs);
//   Adam      per weight, from its moments, with the bias-corrected rate;
//             in some looped programs every 2-8 steps, in a conditional,
//             the gradients accumulated in between (training_state.h).
// Most programs run the step as the body of a training loop
// (training_loop.h: the state one tuple, the batch by infeed), as every
// real training file does; the rest are the step alone, its state in
// parameters.
// Weights live in f32; with bf16 activations every weight is converted in
// the forward pass and every gradient back for the update.
// As in templates.cpp, no call gets two arguments that each make a node:
// GCC and clang evaluate arguments in different orders, and a seed must
// give one graph natively and in wasm (a test compares fingerprints).
#include <algorithm>
#include <array>
#include <limits>

#include "fastslow/synth/templates.h"

#include "fastslow/error.h"
#include "fastslow/graph/hlo_tables.h"
#include "net.h"
#include "training_state.h"

namespace fastslow::synth {
namespace {

using detail::Dims;
using detail::Net;

struct UnetPlan {
  int spatial = 3;        // 2 (NHWC) or 3 (NDHWC)
  int64_t batch = 2, size = 64, in_ch = 1, base = 16, classes = 3;
  int levels = 3;         // including the bottleneck
  int convs = 2;          // per level
  int extra = 0;          // more convolutions at the bottleneck
  bool strided_down = false;  // a stride-2 convolution instead of a max-pool
  bool all_reduce = true;     // gradients summed over replicas
  bool loop = true;           // the step inside a training loop
  int64_t accumulate = 1;     // steps per update (training_state.h)
  ElementType act = ElementType::BF16;
};

detail::UpdateOptions update_options(const UnetPlan& p) {
  detail::UpdateOptions o;
  o.all_reduce = p.all_reduce;
  o.accumulate = p.accumulate;
  return o;
}

enum class Kind { Same, Down, Up };

// One convolution of the forward pass and what its backward pass needs.
struct Conv {
  Kind kind;
  int x;             // input activation
  int w, b;          // f32 weight and bias parameters
  int wa;            // the weight in the activation type
  int pre, out;      // before and after the ReLU (out == pre without one)
  Window win;
  ConvDimensionNumbers dn;
};

class UnetBuilder {
 public:
  // `packed`: every weight's shape in creation order (weight_shapes() of a
  // first build), which picks the program's form (training_state.h); empty
  // for that first build.
  // `rng` is the shared helpers' (net.h); nothing this builder calls draws
  // from it, so every build of one plan is the same graph.
  UnetBuilder(const UnetPlan& p, Rng& rng, std::vector<Dims> packed = {})
      : p_(p), r_(p.spatial + 2), f32_{b_, rng, ElementType::F32}, state_(b_, std::move(packed), p.loop, update_options(p)) {}
  const std::vector<Dims>& weight_shapes() const { return state_.shapes(); }

  HloGraph build() {
    const Dims image = spatial_dims(p_.size);
    const std::vector<Shape> fed = {array_shape(p_.act, with(p_.batch, image, p_.in_ch)),
                                    array_shape(ElementType::F32, with(p_.batch, image, p_.classes))};
    return state_.build(fed, [&](const std::vector<int>& f) {
      x0_ = f[0];
      labels_ = f[1];
      return step();
    });
  }

 private:
  detail::StepGradients step() {
    zero_ = b_.constant(p_.act, {});
    // Forward.
    int x = x0_;
    int64_t ch = p_.base;
    std::vector<int> skips;
    for (int l = 0; l < p_.levels; ++l) {
      const int n = p_.convs + (l + 1 == p_.levels ? p_.extra : 0);
      for (int c = 0; c < n; ++c) x = conv(Kind::Same, x, ch, 3, true);
      if (l + 1 == p_.levels) break;
      skips.push_back(x);
      if (p_.strided_down) {
        x = conv(Kind::Down, x, ch, 2, true);
      } else {
        x = b_.reduce_window(x, zero_, pool_window());
      }
      ch = std::min<int64_t>(ch * 2, 512);
    }
    for (int l = p_.levels - 2; l >= 0; --l) {
      ch = std::max<int64_t>(ch / 2, p_.base);
      const int up = conv(Kind::Up, x, ch, 2, false);
      x = b_.concatenate({up, skips[static_cast<size_t>(l)]}, r_ - 1);
      for (int c = 0; c < p_.convs; ++c) x = conv(Kind::Same, x, ch, 3, true);
    }
    const int logits = conv(Kind::Same, x, p_.classes, 1, false);

    // Loss: mean softmax cross-entropy in f32.
    const auto [loss, dz] = detail::softmax_cross_entropy(b_, f32_, to(logits, ElementType::F32), labels_);

    // Backward, last convolution first. Gradients of activations arrive
    // here by value: g_of_ maps a forward node to its gradient so far.
    g_of_.assign(static_cast<size_t>(b_.size()), -1);
    accumulate(logits, to(dz, p_.act));
    std::vector<std::pair<int, int>> grads;  // (weight, gradient) in f32
    for (auto it = convs_.rbegin(); it != convs_.rend(); ++it) backward(*it, grads);

    return {loss, grads};
  }

  Dims spatial_dims(int64_t s) const { return Dims(static_cast<size_t>(p_.spatial), s); }
  static Dims with(int64_t n, const Dims& sp, int64_t c) {
    Dims d{n};
    d.insert(d.end(), sp.begin(), sp.end());
    d.push_back(c);
    return d;
  }
  int to(int x, ElementType t) { return b_.node(x).type == t ? x : b_.convert(x, t); }

  Window pool_window() const {
    Dims one(static_cast<size_t>(r_), 2);
    one.front() = one.back() = 1;
    Window w = Window::of(one);
    w.stride = one;
    return w;
  }

  // A forward convolution to `cout` channels with window k: Same keeps the
  // image size (SAME padding), Down halves it (stride 2), Up doubles it (a
  // transposed convolution: the input dilated by 2, the kernel reversed).
  int conv(Kind kind, int x, int64_t cout, int64_t k, bool relu) {
    const int64_t cin = b_.dims(x).back();
    const int s = p_.spatial;
    Conv c{kind, x, -1, -1, -1, -1, -1, Window::of(spatial_dims(k)), ConvDimensionNumbers::nhwc(s)};
    Dims kd = spatial_dims(k);
    if (kind == Kind::Up) {
      // [k.., cout, cin]: the kernel's input features are its last dim.
      kd.push_back(cout);
      kd.push_back(cin);
      std::swap(c.dn.kernel_input_feature, c.dn.kernel_output_feature);
      c.win.base_dilation.assign(static_cast<size_t>(s), 2);
      c.win.pad_low.assign(static_cast<size_t>(s), 1);
      c.win.pad_high.assign(static_cast<size_t>(s), 1);
      c.win.reversal.assign(static_cast<size_t>(s), true);
    } else {
      kd.push_back(cin);
      kd.push_back(cout);
      if (kind == Kind::Down) c.win.stride.assign(static_cast<size_t>(s), 2);
      c.win.pad_low.assign(static_cast<size_t>(s), kind == Kind::Same ? (k - 1) / 2 : 0);
      c.win.pad_high.assign(static_cast<size_t>(s), kind == Kind::Same ? k / 2 : 0);
    }
    c.w = weight(kd);
    c.b = weight({cout});
    c.wa = to(c.w, p_.act);
    const int y = b_.convolution(x, c.wa, c.win, c.dn);
    const Dims yd = b_.dims(y);
    c.pre = b_.binary("add", y, b_.broadcast(to(c.b, p_.act), yd, {r_ - 1}));
    c.out = relu ? b_.binary("maximum", c.pre, b_.broadcast(zero_, yd, {})) : c.pre;
    convs_.push_back(c);
    return c.out;
  }

  int weight(const Dims& d) { return state_.weight(d); }

  void accumulate(int node, int g) {
    int& slot = g_of_.at(static_cast<size_t>(node));  // forward nodes only
    slot = slot < 0 ? g : b_.binary("add", slot, g);
  }

  // The gradient flowing into `node` from its users, summed.
  int gradient_of(int node) const { return g_of_.at(static_cast<size_t>(node)); }

  void backward(const Conv& c, std::vector<std::pair<int, int>>& grads) {
    int g = gradient_of(c.out);
    if (g < 0) throw Error("synth: unet: a convolution's output feeds no gradient");
    const Dims yd = b_.dims(c.pre);
    if (c.out != c.pre) {
      const int zeros = b_.broadcast(zero_, yd, {});
      g = b_.select(b_.compare(c.out, zeros), g, zeros);
    }
    const int s = p_.spatial;
    const Dims gd = b_.dims(g);
    const Dims xd = b_.dims(c.x);

    // Bias: the gradient summed over batch and image.
    Dims lead;
    for (int i = 0; i + 1 < r_; ++i) lead.push_back(i);
    const int g32 = to(g, ElementType::F32);
    grads.push_back({c.b, b_.reduce(g32, f32_.scalar(), lead)});

    // Weight: the batch is contracted, so batch and feature swap roles; the
    // window spans the image.
    ConvDimensionNumbers wd;
    wd.input_batch = r_ - 1;
    wd.input_feature = 0;
    wd.kernel_input_feature = 0;
    wd.kernel_output_feature = r_ - 1;
    wd.output_batch = s;
    wd.output_feature = s + 1;
    for (int i = 0; i < s; ++i) {
      wd.input_spatial.push_back(i + 1);
      wd.kernel_spatial.push_back(i + 1);
      wd.output_spatial.push_back(i);
    }
    int wgrad;
    if (c.kind == Kind::Up) {
      // The upsampled gradient against the small input, dilated by 2.
      Window w = Window::of(Dims(xd.begin() + 1, xd.end() - 1));
      w.window_dilation.assign(static_cast<size_t>(s), 2);
      wgrad = b_.convolution(g, c.x, w, wd);
    } else {
      Window w = Window::of(Dims(gd.begin() + 1, gd.end() - 1));
      w.pad_low = c.win.pad_low;
      w.pad_high = c.win.pad_high;
      if (c.kind == Kind::Down) w.window_dilation.assign(static_cast<size_t>(s), 2);
      wgrad = b_.convolution(c.x, g, w, wd);
    }
    grads.push_back({c.w, to(wgrad, ElementType::F32)});

    // Input: skipped for the network's input.
    if (c.x == x0_) return;
    ConvDimensionNumbers dd = c.dn;
    std::swap(dd.kernel_input_feature, dd.kernel_output_feature);
    Window w = c.win;
    int dx;
    if (c.kind == Kind::Up) {
      // A transposed convolution's input gradient is a strided one.
      w = Window::of(c.win.size);
      w.stride.assign(static_cast<size_t>(s), 2);
      dx = b_.convolution(g, c.wa, w, dd);
    } else {
      w.reversal.assign(static_cast<size_t>(s), true);
      if (c.kind == Kind::Down) {
        w.stride.assign(static_cast<size_t>(s), 1);
        w.base_dilation.assign(static_cast<size_t>(s), 2);
        w.pad_low.assign(static_cast<size_t>(s), 1);
        w.pad_high.assign(static_cast<size_t>(s), 1);
      } else {
        for (size_t i = 0; i < w.size.size(); ++i) {
          w.pad_low[i] = w.size[i] - 1 - c.win.pad_low[i];
          w.pad_high[i] = w.size[i] - 1 - c.win.pad_high[i];
        }
      }
      dx = b_.convolution(g, c.wa, w, dd);
    }
    route(c.x, dx);
  }

  // Sends an input gradient to the forward node it belongs to: through a
  // max-pool (select-and-scatter) or a concatenation (slices), or as is.
  void route(int x, int dx) {
    const HloNode& n = b_.node(x);
    if (n.opcode == require_opcode("reduce-window")) {
      const int pooled = n.operands[0];
      accumulate(pooled, b_.select_and_scatter(pooled, dx, zero_, pool_window()));
    } else if (n.opcode == require_opcode("concatenate")) {
      int64_t at = 0;
      const std::vector<int> parts = n.operands;
      for (int part : parts) {
        Dims start(static_cast<size_t>(r_), 0), limit = b_.dims(dx);
        const int64_t width = b_.dims(part).back();
        start.back() = at;
        limit.back() = at + width;
        at += width;
        accumulate(part, b_.slice(dx, start, limit));
      }
    } else {
      accumulate(x, dx);
    }
  }

  UnetPlan p_;
  int r_;
  HloBuilder b_;
  Net f32_;  // the shared helpers, in f32 (the loss, the gradients' sums)
  detail::TrainingState state_;
  int x0_ = -1, labels_ = -1, zero_ = -1;
  std::vector<Conv> convs_;
  std::vector<int> g_of_;
};


UnetPlan draw_plan(Rng& rng) {
  UnetPlan p;
  // One draw per statement: argument evaluation order is unspecified and
  // differs between GCC and clang (native and wasm must agree).
  p.spatial = rng.chance(0.6) ? 3 : 2;
  p.batch = p.spatial == 3 ? rng.pick<int64_t>({1, 2, 4}) : rng.pick<int64_t>({1, 2, 4, 8});
  p.size = p.spatial == 3 ? rng.pick<int64_t>({32, 64, 128}) : rng.pick<int64_t>({64, 128, 256});
  p.in_ch = rng.pick<int64_t>({1, 3, 4});
  p.base = rng.pick<int64_t>({8, 16, 32});
  p.classes = rng.pick<int64_t>({2, 3, 4});
  p.strided_down = rng.chance(0.3);
  p.all_reduce = rng.chance(0.6);
  p.act = rng.chance(0.7) ? ElementType::BF16 : ElementType::F32;
  p.loop = rng.chance(0.8);
  p.accumulate = rng.chance(0.3) ? rng.pick<int64_t>({2, 4, 8}) : 1;
  return p;
}

}  // namespace

HloGraph unet_training(Rng& rng, int target_nodes) {
  UnetPlan p = draw_plan(rng);
  // The depth, width and bottleneck that land nearest the target. The
  // step's size follows from them (about 70 nodes a convolution): each
  // (depth, width) is built with no and with one extra bottleneck
  // convolution, and every extra one adds the same nodes again. Sizes grow
  // with width, so a count past the target ends that depth. The coarsest
  // level keeps at least 4 pixels a side.
  int max_levels = 1;
  while (max_levels < 5 && (p.size >> max_levels) >= 4) ++max_levels;
  const auto count = [&](int levels, int convs, int extra) {
    p.levels = levels;
    p.convs = convs;
    p.extra = extra;
    UnetBuilder unpacked(p, rng);
    unpacked.build();  // for its weights' shapes
    return UnetBuilder(p, rng, unpacked.weight_shapes()).build().num_nodes();
  };
  constexpr int kMaxExtra = 8;
  int64_t best_miss = std::numeric_limits<int64_t>::max();
  std::array<int, 3> best_shape{2, 1, 0};
  for (int levels = 2; levels <= max_levels; ++levels) {
    for (int convs = 1; convs <= 6; ++convs) {
      const int64_t n0 = count(levels, convs, 0), step = count(levels, convs, 1) - n0;
      for (int extra = 0; extra <= kMaxExtra; ++extra) {
        const int64_t nodes = n0 + extra * step;
        const int64_t miss = nodes > target_nodes ? nodes - target_nodes : target_nodes - nodes;
        if (miss < best_miss) {
          best_miss = miss;
          best_shape = {levels, convs, extra};
        }
        if (nodes >= target_nodes) break;
      }
      if (n0 >= target_nodes) break;
    }
  }
  p.levels = best_shape[0];
  p.convs = best_shape[1];
  p.extra = best_shape[2];
  UnetBuilder unpacked(p, rng);
  unpacked.build();  // for its weights' shapes
  return UnetBuilder(p, rng, unpacked.weight_shapes()).build();
}

}  // namespace fastslow::synth
