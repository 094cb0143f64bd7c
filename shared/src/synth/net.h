// The building blocks the model templates share (templates.cpp and
// template_unet_training.cpp): weights, activations, norms, softmax, dense
// layers, convolutions and pools on one HloBuilder. Internal to the
// generator's sources.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "fastslow/rng.h"
#include "fastslow/synth/hlo.h"

namespace fastslow::synth::detail {

using Dims = std::vector<int64_t>;

// Building blocks shared by the templates. Weights are parameters of the
// entry computation and constants inside callees (a callee only sees what
// its caller passes, and inference graphs fold weights into constants).
struct Net {
  HloBuilder& b;
  Rng& rng;
  ElementType t;

  // Builder calls that create nodes are never two arguments of one call:
  // C++ leaves argument order open (GCC and clang differ), which would make
  // a seed's graph differ between native and wasm builds.
  Dims dims(int x) const { return b.dims(x); }  // a copy: building may move nodes
  int64_t last(int x) const { return b.dims(x).back(); }

  int weight(Dims d) { return b.current_computation() == 0 ? b.parameter(t, std::move(d)) : b.constant(t, std::move(d)); }
  int scalar() { return b.constant(t, {}); }
  // d by value: making the scalar may move the builder's nodes, and with
  // them dims a reference would point into (b.dims(x) is one).
  int splat(Dims d) { return b.broadcast(scalar(), std::move(d), {}); }
  // A [C] vector broadcast along the last dimension of shape d.
  int along_last(int v, const Dims& d) { return b.broadcast(v, d, {static_cast<int64_t>(d.size()) - 1}); }

  int relu(int x) { return b.binary("maximum", x, splat(dims(x))); }
  int bias(int x) { return b.binary("add", x, along_last(weight({last(x)}), dims(x))); }
  int activation(int x) {
    switch (rng.uniform_int(0, 3)) {
      case 0: return b.unary("tanh", x);
      case 1: return b.unary("logistic", x);
      default: return relu(x);
    }
  }

  // Batch norm in inference form: (x - mean) * rsqrt(var + eps) * scale + offset.
  int batch_norm(int x) {
    const Dims d = dims(x);
    const int64_t c = d.back();
    const int scale = weight({c}), offset = weight({c}), mean = weight({c}), var = weight({c});
    const int eps = b.broadcast(scalar(), {c}, {});
    const int inv = b.binary("multiply", b.unary("rsqrt", b.binary("add", var, eps)), scale);
    const int centred = b.binary("subtract", x, along_last(mean, d));
    const int scaled = b.binary("multiply", centred, along_last(inv, d));
    return b.binary("add", scaled, along_last(offset, d));
  }

  // Reduces the last dimension and broadcasts the result back. The reducer
  // (add or maximum) is a tiny computation that is not emitted.
  int reduce_last_back(int x) {
    const Dims d = dims(x);
    const int r = static_cast<int>(d.size());
    const int red = b.reduce(x, scalar(), {r - 1});
    Dims keep;
    for (int i = 0; i < r - 1; ++i) keep.push_back(i);
    return b.broadcast(red, d, keep);
  }

  int layer_norm(int x) {
    const Dims d = dims(x);
    const int sum = reduce_last_back(x);
    const int mean = b.binary("multiply", sum, splat(d));
    const int centred = b.binary("subtract", x, mean);
    const int sq_sum = reduce_last_back(b.binary("multiply", centred, centred));
    const int var = b.binary("multiply", sq_sum, splat(d));
    const int inv = b.unary("rsqrt", b.binary("add", var, splat(d)));
    const int normed = b.binary("multiply", centred, inv);
    const int scaled = b.binary("multiply", normed, along_last(weight({d.back()}), d));
    return b.binary("add", scaled, along_last(weight({d.back()}), d));
  }

  int softmax(int x) {
    const int shifted = b.binary("subtract", x, reduce_last_back(x));
    const int e = b.unary("exponential", shifted);
    return b.binary("divide", e, reduce_last_back(e));
  }

  // x [.., K] times a [K, N] weight, as XLA lowers dense layers: flatten the
  // leading dims, dot, restore them.
  int dense(int x, int64_t n) {
    Dims d = dims(x);
    const int64_t k = d.back();
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < d.size(); ++i) rows *= d[i];
    const int flat = d.size() == 2 ? x : b.reshape(x, {rows, k});
    const int y = b.matmul(flat, weight({k, n}));
    if (d.size() == 2) return y;
    d.back() = n;
    return b.reshape(y, d);
  }

  // NHWC convolution with SAME padding.
  int conv(int x, int64_t cout, int64_t k, int64_t stride) {
    const Dims d = dims(x);
    Window w = Window::of({k, k});
    for (int i = 0; i < 2; ++i) {
      const int64_t in = d[1 + i];
      const int64_t out = (in + stride - 1) / stride;
      const int64_t total = std::max<int64_t>((out - 1) * stride + k - in, 0);
      w.stride[i] = stride;
      w.pad_low[i] = total / 2;
      w.pad_high[i] = total - total / 2;
    }
    return b.convolution(x, weight({k, k, d[3], cout}), w, ConvDimensionNumbers::nhwc(2));
  }

  int max_pool(int x, int64_t k, int64_t stride) {
    Window w = Window::of({1, k, k, 1});
    w.stride = {1, stride, stride, 1};
    w.pad_low = {0, (k - 1) / 2, (k - 1) / 2, 0};
    w.pad_high = {0, k / 2, k / 2, 0};
    return b.reduce_window(x, scalar(), w);
  }

  // The program's outputs, as XLA returns them.
  HloGraph finish(const std::vector<int>& outputs) { return b.build(b.tuple(outputs)); }
};


}  // namespace fastslow::synth::detail
