#include "fastslow/synth/templates.h"

#include <algorithm>
#include <string>

#include "fastslow/error.h"
#include "net.h"

namespace fastslow::synth {
namespace {

using detail::Dims;
using detail::Net;

ElementType model_type(Rng& rng) { return rng.chance(0.3) ? ElementType::BF16 : ElementType::F32; }

}  // namespace

const char* template_name(ModelTemplate t) {
  switch (t) {
    case ModelTemplate::ResNet: return "resnet";
    case ModelTemplate::Transformer: return "transformer";
    case ModelTemplate::Mlp: return "mlp";
    case ModelTemplate::Rnn: return "rnn";
    case ModelTemplate::UnetTraining: return "unet";
    case ModelTemplate::BertTraining: return "bert";
  }
  return "";
}

const std::vector<ModelTemplate>& all_templates() {
  static const std::vector<ModelTemplate> all = {ModelTemplate::ResNet, ModelTemplate::Transformer, ModelTemplate::Mlp,
                                                 ModelTemplate::Rnn, ModelTemplate::UnetTraining,
                                                 ModelTemplate::BertTraining};
  return all;
}

HloGraph generate(ModelTemplate t, Rng& rng, int target_nodes) {
  switch (t) {
    case ModelTemplate::ResNet: return resnet_like(rng, target_nodes);
    case ModelTemplate::Transformer: return transformer_encoder(rng, target_nodes);
    case ModelTemplate::Mlp: return mlp(rng, target_nodes);
    case ModelTemplate::Rnn: return rnn_unrolled(rng, target_nodes);
    case ModelTemplate::UnetTraining: return unet_training(rng, target_nodes);
    case ModelTemplate::BertTraining: return bert_training(rng, target_nodes);
  }
  throw Error("synth: unknown model template");
}

HloGraph resnet_like(Rng& rng, int target_nodes) {
  HloBuilder b;
  Net n{b, rng, model_type(rng)};
  const int64_t batch = rng.pick<int64_t>({1, 8, 16, 32, 64});
  const int64_t hw = rng.pick<int64_t>({32, 64, 128, 224});
  int64_t channels = rng.pick<int64_t>({16, 32, 64});
  const int64_t classes = rng.pick<int64_t>({10, 100, 1000});

  int x = b.parameter(n.t, {batch, hw, hw, 3});
  x = n.relu(n.batch_norm(n.conv(x, channels, hw >= 128 ? 7 : 3, hw >= 128 ? 2 : 1)));
  if (hw >= 128) x = n.max_pool(x, 3, 2);

  // The classifier head costs ~20 nodes; stop growing before it. Four
  // stages share the budget, each halving the resolution and doubling the
  // channels (deeper nets add blocks to every stage, as ResNet-50/101/152
  // do, rather than piling them all at the coarsest resolution).
  const int budget = std::max(target_nodes - 20, 1);
  const int start = b.size();
  int stage = 0;
  while (b.size() < budget) {
    int64_t stride = 1, cout = channels;
    if (stage < 3 && b.size() - start >= (budget - start) * (stage + 1) / 4) {
      ++stage;
      if (n.dims(x)[1] > 4) stride = 2;
      cout = std::min<int64_t>(channels * 2, 2048);
    }
    const bool bottleneck = rng.chance(0.4);
    const auto block = [&, stride, cout, bottleneck](HloBuilder&, const std::vector<int>& in) {
      const int y0 = in[0];
      const int64_t cin = n.dims(y0)[3];
      int y;
      if (bottleneck) {
        const int64_t mid = std::max<int64_t>(cout / 4, 8);
        y = n.relu(n.batch_norm(n.conv(y0, mid, 1, 1)));
        y = n.relu(n.batch_norm(n.conv(y, mid, 3, stride)));
        y = n.batch_norm(n.conv(y, cout, 1, 1));
      } else {
        y = n.relu(n.batch_norm(n.conv(y0, cout, 3, stride)));
        y = n.batch_norm(n.conv(y, cout, 3, 1));
      }
      const int shortcut = (stride != 1 || cin != cout) ? n.batch_norm(n.conv(y0, cout, 1, stride)) : y0;
      return n.relu(b.binary("add", y, shortcut));
    };
    // Some blocks live in their own computation, as XLA outlines them.
    x = rng.chance(0.1) ? b.call({x}, block) : block(b, {x});
    channels = cout;
  }

  // Global average pool, classifier, softmax.
  int pooled = b.reduce(x, n.scalar(), {1, 2});
  pooled = b.binary("multiply", pooled, n.splat(n.dims(pooled)));
  const int logits = n.bias(n.dense(pooled, classes));
  return n.finish({n.softmax(logits), logits});
}

HloGraph transformer_encoder(Rng& rng, int target_nodes) {
  HloBuilder b;
  Net n{b, rng, model_type(rng)};
  const int64_t batch = rng.pick<int64_t>({1, 4, 8, 32});
  const int64_t seq = rng.pick<int64_t>({64, 128, 256, 512});
  const int64_t heads = rng.pick<int64_t>({4, 8, 12, 16});
  const int64_t head_dim = rng.pick<int64_t>({32, 64});
  const int64_t model = heads * head_dim;
  const int64_t ffn = model * rng.pick<int64_t>({2, 4});

  int x = b.parameter(n.t, {batch, seq, model});
  const int pos = b.parameter(n.t, {seq, model});
  x = b.binary("add", x, b.broadcast(pos, {batch, seq, model}, {1, 2}));

  const auto layer = [&](HloBuilder&, const std::vector<int>& in) {
    const int h0 = in[0];
    const int h = n.layer_norm(h0);
    // [B, S, D] -> [B, H, S, Dh] per projection.
    const auto project = [&](int v) {
      const int p = b.reshape(n.bias(n.dense(v, model)), {batch, seq, heads, head_dim});
      return b.transpose(p, {0, 2, 1, 3});
    };
    const int q = project(h), k = project(h), v = project(h);
    DotDimensionNumbers qk{{0, 1}, {3}, {0, 1}, {3}};
    int scores = b.dot(q, k, qk);  // [B, H, S, S]
    scores = b.binary("multiply", scores, n.splat(n.dims(scores)));
    const int probs = n.softmax(scores);
    DotDimensionNumbers pv{{0, 1}, {3}, {0, 1}, {2}};
    const int ctx = b.transpose(b.dot(probs, v, pv), {0, 2, 1, 3});  // [B, S, H, Dh]
    const int attn = n.bias(n.dense(b.reshape(ctx, {batch, seq, model}), model));
    const int r1 = b.binary("add", h0, attn);
    // GELU, tanh form: 0.5 x (1 + tanh(c (x + 0.044715 x^3))).
    const int u = n.bias(n.dense(n.layer_norm(r1), ffn));
    const Dims ud = n.dims(u);
    const int cube = b.binary("multiply", b.binary("multiply", u, u), u);
    const int poly = b.binary("add", u, b.binary("multiply", cube, n.splat(ud)));
    const int inner = b.binary("multiply", poly, n.splat(ud));
    const int th = b.unary("tanh", inner);
    const int gate = b.binary("add", th, n.splat(ud));
    const int ug = b.binary("multiply", u, gate);
    const int gelu = b.binary("multiply", ug, n.splat(ud));
    return b.binary("add", r1, n.bias(n.dense(gelu, model)));
  };

  const int budget = std::max(target_nodes - 60, 1);
  while (b.size() < budget) x = rng.chance(0.15) ? b.call({x}, layer) : layer(b, {x});

  const int out = n.layer_norm(x);
  int pooled = b.reduce(out, n.scalar(), {1});  // mean over the sequence
  pooled = b.binary("multiply", pooled, n.splat(n.dims(pooled)));
  const int logits = n.bias(n.dense(pooled, rng.pick<int64_t>({2, 10, 1000})));
  return n.finish({logits, out});
}

HloGraph mlp(Rng& rng, int target_nodes) {
  HloBuilder b;
  Net n{b, rng, model_type(rng)};
  const int64_t batch = rng.pick<int64_t>({1, 16, 128, 1024});
  const std::vector<int64_t> widths = {64, 128, 256, 512, 1024, 2048};
  int x = b.parameter(n.t, {batch, rng.pick(widths)});

  const int budget = std::max(target_nodes - 25, 1);
  while (b.size() < budget) {
    const int y = n.dense(x, rng.pick(widths));
    const int bias = b.parameter(n.t, {n.last(y)});
    if (rng.chance(0.5)) {
      // Bias and activation fused into one kernel: its own computation.
      const int act = static_cast<int>(rng.uniform_int(0, 2));
      x = b.fusion({y, bias}, [&, act](HloBuilder&, const std::vector<int>& p) {
        const int s = b.binary("add", p[0], n.along_last(p[1], n.dims(p[0])));
        return act == 0 ? n.relu(s) : b.unary(act == 1 ? "tanh" : "logistic", s);
      });
    } else {
      x = n.activation(b.binary("add", y, n.along_last(bias, n.dims(y))));
      if (rng.chance(0.3)) x = n.batch_norm(x);
    }
  }

  // Softmax cross-entropy against a labels parameter.
  const int logits = n.dense(x, rng.pick<int64_t>({2, 10, 100}));
  const int probs = n.softmax(logits);
  const int labels = b.parameter(n.t, n.dims(logits));
  const int ll = b.binary("multiply", labels, b.unary("log", probs));
  const int loss = b.unary("negate", b.reduce(ll, n.scalar(), {0, 1}));
  return n.finish({loss, probs});
}

HloGraph rnn_unrolled(Rng& rng, int target_nodes) {
  HloBuilder b;
  Net n{b, rng, model_type(rng)};
  const int64_t steps = rng.uniform_int(8, 64);
  const int64_t batch = rng.pick<int64_t>({1, 8, 32, 128});
  const int64_t embed = rng.pick<int64_t>({64, 128, 256});
  const int64_t hidden = rng.pick<int64_t>({128, 256, 512});

  const int input = b.parameter(n.t, {steps, batch, embed});
  const int wx = b.parameter(n.t, {embed, 4 * hidden});
  const int wh = b.parameter(n.t, {hidden, 4 * hidden});
  const int bias = b.parameter(n.t, {4 * hidden});

  // One LSTM cell on x_t [B, E]; returns {h, c}.
  const auto cell = [&](int xt, int h, int c, int wx_, int wh_, int bias_) {
    const int zx = b.matmul(xt, wx_);
    const int zh = b.matmul(h, wh_);
    const int z0 = b.binary("add", zx, zh);
    const int z = b.binary("add", z0, n.along_last(bias_, {batch, 4 * hidden}));
    const auto gate = [&](int i) { return b.slice(z, {0, i * hidden}, {batch, (i + 1) * hidden}); };
    const int ig = b.unary("logistic", gate(0)), fg = b.unary("logistic", gate(1));
    const int gg = b.unary("tanh", gate(2)), og = b.unary("logistic", gate(3));
    const int keep = b.binary("multiply", fg, c);
    const int write = b.binary("multiply", ig, gg);
    const int c2 = b.binary("add", keep, write);
    const int h2 = b.binary("multiply", og, b.unary("tanh", c2));
    return std::pair<int, int>{h2, c2};
  };
  const auto step_input = [&](int64_t t) {
    return b.reshape(b.slice(input, {t, 0, 0}, {t + 1, batch, embed}), {batch, embed});
  };

  int h = b.broadcast(n.scalar(), {batch, hidden}, {});
  int c = b.broadcast(n.scalar(), {batch, hidden}, {});
  std::vector<int> outputs;
  int64_t t = 0;
  // A while loop over the first steps, as XLA keeps a scan: state is
  // (step, h, c, input, wx, wh, bias).
  if (rng.chance(0.8)) {
    const int64_t loop_steps = rng.uniform_int(1, steps);
    const int zero = b.constant(ElementType::S32, {});
    const int state = b.tuple({zero, h, c, input, wx, wh, bias});
    const int loop = b.while_loop(
        state,
        [&](HloBuilder&, const std::vector<int>& p) {
          const int i = b.get_tuple_element(p[0], 0);
          return b.compare(i, b.constant(ElementType::S32, {}));
        },
        [&](HloBuilder&, const std::vector<int>& p) {
          std::vector<int> e;
          for (int k = 0; k < 7; ++k) e.push_back(b.get_tuple_element(p[0], k));
          const int zero_i = b.constant(ElementType::S32, {});
          const int xt = b.reshape(b.dynamic_slice(e[3], {e[0], zero_i, zero_i}, {1, batch, embed}), {batch, embed});
          const auto hc = cell(xt, e[1], e[2], e[4], e[5], e[6]);
          const int next = b.binary("add", e[0], b.constant(ElementType::S32, {}));
          return b.tuple({next, hc.first, hc.second, e[3], e[4], e[5], e[6]});
        });
    h = b.get_tuple_element(loop, 1);
    c = b.get_tuple_element(loop, 2);
    t = loop_steps;
    outputs.push_back(h);
  }
  // Then the rest unrolled, wrapping around the sequence to reach the target.
  const int budget = std::max(target_nodes - 25, 1);
  while (b.size() < budget) {
    const auto hc = cell(step_input(t % steps), h, c, wx, wh, bias);
    h = hc.first;
    c = hc.second;
    ++t;
  }
  const int logits = n.bias(n.dense(h, rng.pick<int64_t>({2, 10, 1000})));
  outputs.insert(outputs.begin(), n.softmax(logits));
  outputs.push_back(c);
  return n.finish(outputs);
}

HloGraph tile_kernel(Rng& rng, int target_nodes) {
  const int target = std::clamp(target_nodes, 5, 100);
  HloBuilder b;
  Net n{b, rng, model_type(rng)};
  const int kind = static_cast<int>(rng.uniform_int(0, 3));  // elementwise, reduce, dot, conv
  int x;
  if (kind == 3) {
    const int64_t hw = rng.pick<int64_t>({7, 14, 28, 56});
    // One draw per statement: argument evaluation order is unspecified and
    // differs between GCC and clang, which would change the kernel in wasm.
    const int64_t batch = rng.pick<int64_t>({1, 8, 32});
    const int64_t in_ch = rng.pick<int64_t>({16, 64, 256});
    const int64_t out_ch = rng.pick<int64_t>({16, 64, 256});
    const int64_t window = rng.pick<int64_t>({1, 3});
    const int64_t stride = rng.pick<int64_t>({1, 2});
    const int input = b.parameter(n.t, {batch, hw, hw, in_ch});
    x = n.conv(input, out_ch, window, stride);
  } else if (kind == 2) {
    const int64_t m = rng.pick<int64_t>({128, 512, 2048}), k = rng.pick<int64_t>({128, 512, 1024});
    const int64_t cols = rng.pick<int64_t>({128, 256, 1024});
    const int lhs = b.parameter(n.t, {m, k});
    const int rhs = b.parameter(n.t, {k, cols});
    x = b.matmul(lhs, rhs);
  } else {
    Dims d;
    const int rank = static_cast<int>(rng.uniform_int(1, 4));
    for (int i = 0; i < rank; ++i) d.push_back(rng.pick<int64_t>({8, 16, 128, 256, 1024}));
    x = b.parameter(n.t, d);
  }
  // Epilogue of elementwise ops (1-6 nodes each), then single unary ops to
  // land on the target exactly, leaving room for the final reduce (2 nodes).
  const int room = kind == 1 ? 2 : 0;
  while (b.size() + 6 + room <= target) {
    const Dims d = n.dims(x);
    switch (rng.uniform_int(0, 4)) {
      case 0: x = b.unary(rng.pick<std::string>({"exponential", "tanh", "negate", "rsqrt", "abs"}), x); break;
      case 1: x = b.binary(rng.pick<std::string>({"add", "multiply", "subtract", "maximum"}), x, b.parameter(n.t, d)); break;
      case 2: x = b.binary(rng.pick<std::string>({"multiply", "add"}), x, n.splat(d)); break;
      case 3: {
        const int row = n.along_last(b.parameter(n.t, {d.back()}), d);
        x = b.binary("add", x, row);
        break;
      }
      default: {
        const int mask = b.compare(x, n.splat(d));
        x = b.select(mask, x, n.splat(d));
        break;
      }
    }
  }
  while (b.size() + room < target) x = b.unary(rng.chance(0.5) ? "negate" : "exponential", x);
  if (kind == 1) x = b.reduce(x, n.scalar(), {static_cast<int64_t>(n.dims(x).size()) - 1});
  return b.build(x);
}

}  // namespace fastslow::synth
