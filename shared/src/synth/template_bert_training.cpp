// One training step of a transformer encoder with a per-token classifier
// (BERT's masked-language-model pre-training has this shape), as XLA
// compiles a data-parallel replica's step. It stands for the real nlp
// training programs (the nlp files in data/real: subtract and
// get-tuple-element among their commonest opcodes, a parameter unpacked by
// 1,486 get-tuple-elements, select among the attention's ops). The step:
//   inputs    token ids (s32), looked up in the embedding table by a
//             gather; labels as ids, made one-hot by comparing them with an
//             iota; the attention mask; the step's random key (u32);
//   forward   per layer: layer norm, Q/K/V projections (dense layers as XLA
//             lowers them: the tokens flattened to rows, a dot, a reshape
//             and transpose into heads), masked scaled dot-product
//             attention, the output projection and residual, layer norm, a
//             GELU feed-forward block and residual; a final layer norm and
//             the classifier over every token; in most programs dropout on
//             both sublayers' outputs, its keep mask drawn in the program
//             from a counter-based hash (Threefry's add, rotate and xor on
//             u32, then the bits made a float in [0, 1)), as JAX lowers it:
//             the shift, or, xor and bitcast-convert ops of the real nlp
//             files;
//   loss      softmax cross-entropy in f32, in a called computation;
//   backward  every dense layer's weight gradient (a dot contracting the
//             rows: both operands read transposed) and input gradient (a
//             dot with the weight read transposed), the attention's four
//             gradient dots, the softmax, GELU and layer-norm gradients as
//             elementwise chains with their reduces; the embedding's
//             gradient a scatter-add of the tokens' gradients into the table;
//   update    all-reduce (some programs), clipping by global norm (most),
//             and Adam (training_state.h); half the looped programs
//             accumulate gradients and update every 2-8 steps in a
//             conditional.
// Weights live in f32; with bf16 activations they are converted for the
// forward pass and the gradients back for the update.
// No call takes two arguments that each make a node (GCC and clang order
// them differently, and a seed must give one graph natively and in wasm).
#include <algorithm>
#include <utility>

#include "fastslow/synth/templates.h"

#include "net.h"
#include "training_state.h"

namespace fastslow::synth {
namespace {

using detail::Dims;

struct BertPlan {
  int64_t batch = 8, seq = 128, heads = 8, head_dim = 64, ffn = 2048, classes = 1000, vocab = 30522;
  int layers = 1;
  bool all_reduce = true, loop = true, dropout = true, clip = true;
  int64_t accumulate = 1;  // steps per update, in the loop form (training_state.h)
  ElementType act = ElementType::BF16;
  int64_t model() const { return heads * head_dim; }
  int64_t rows() const { return batch * seq; }
};

detail::UpdateOptions update_options(const BertPlan& p) {
  detail::UpdateOptions o;
  o.all_reduce = p.all_reduce;
  o.clip = p.clip;
  o.accumulate = p.accumulate;
  return o;
}

// A dense layer of the forward pass and what its gradient needs.
struct Dense {
  int x;       // input rows [R, K], activation type
  int w, b;    // f32 weight [K, N] and bias [N] (b < 0: none)
  int wa;      // the weight in the activation type
};

// A layer norm of the forward pass: normalised rows, 1/sd broadcast, scale.
struct Norm {
  int xhat, inv, gamma, beta, gamma_a;
};

class BertBuilder {
 public:
  // `packed`: the weights' shapes of a first build (training_state.h).
  // `rng` is the shared helpers' (net.h); nothing this builder calls draws
  // from it, so every build of one plan is the same graph.
  BertBuilder(const BertPlan& p, Rng& rng, std::vector<Dims> packed = {})
      : p_(p), act_{b_, rng, p.act}, f32_{b_, rng, ElementType::F32},
        state_(b_, std::move(packed), p.loop, update_options(p)) {}
  const std::vector<Dims>& weight_shapes() const { return state_.shapes(); }

  HloGraph build() {
    std::vector<Shape> fed = {array_shape(ElementType::S32, {p_.batch, p_.seq}),   // token ids
                              array_shape(ElementType::Pred, {p_.batch, p_.seq}),  // attention mask
                              array_shape(ElementType::S32, {p_.rows()})};         // labels
    if (p_.dropout) fed.push_back(array_shape(ElementType::U32, {}));             // the step's random key
    return state_.build(fed, [&](const std::vector<int>& f) {
      key_ = p_.dropout ? f[3] : -1;
      return step(f[0], f[1], f[2]);
    });
  }

 private:
  detail::StepGradients step(int ids, int mask, int label_ids) {
    const int64_t d = p_.model();
    // Forward. The tokens' embeddings gathered from the table; positions a
    // learned [S, D] table added to every sequence.
    const int table = state_.weight({p_.vocab, d});
    const int table_a = to(table, p_.act);
    const int tokens = b_.op("gather", {table_a, ids}, array_shape(p_.act, {p_.batch, p_.seq, d}));
    const int pos = to(state_.weight({p_.seq, d}), p_.act);
    const int pos_b = b_.broadcast(pos, {p_.batch, p_.seq, d}, {1, 2});
    int h = b_.reshape(b_.binary("add", tokens, pos_b), {p_.rows(), d});
    const int neg = b_.constant(p_.act, {});
    mask_ = b_.broadcast(mask, {p_.batch, p_.heads, p_.seq, p_.seq}, {0, 3});
    mask_fill_ = b_.broadcast(neg, {p_.batch, p_.heads, p_.seq, p_.seq}, {});
    std::vector<Layer> layers;
    for (int l = 0; l < p_.layers; ++l) {
      layers.push_back(layer(h));
      h = layers.back().out;
    }
    Norm final_norm;
    const int top = norm(h, final_norm);
    Dense head;
    const int logits = dense(top, p_.classes, head);

    // Loss: mean softmax cross-entropy in f32, against the labels made
    // one-hot: each id compared with an iota over the classes.
    const int classes = b_.iota(ElementType::S32, {p_.rows(), p_.classes}, 1);
    const int wanted = b_.broadcast(label_ids, {p_.rows(), p_.classes}, {0});
    const int hot = b_.compare(wanted, classes);
    const int labels = b_.convert(hot, ElementType::F32);
    const auto [loss, dz] = detail::softmax_cross_entropy(b_, f32_, to(logits, ElementType::F32), labels);

    // Backward, last layer first.
    int g = dense_backward(head, to(dz, p_.act));
    g = norm_backward(final_norm, g);
    for (auto it = layers.rbegin(); it != layers.rend(); ++it) g = layer_backward(*it, g);
    const int dtokens = b_.reshape(g, {p_.batch, p_.seq, d});
    const int dtokens32 = to(dtokens, ElementType::F32);
    const int dpos = b_.reduce(dtokens32, f32_.scalar(), {0});
    grads_.push_back({state_weight_of(pos), dpos});
    // The table's gradient: each token's gradient added into its row.
    const int empty = f32_.splat({p_.vocab, d});
    grads_.push_back({table, b_.op("scatter", {empty, ids, dtokens32}, array_shape(ElementType::F32, {p_.vocab, d}))});
    return {loss, grads_};
  }

  // --- one layer
  struct Layer {
    int out;
    Norm n1, n2;
    Dense q, k, v, o, up, down;
    int qh, kh, vh;        // [B, H, S, Dh]
    int probs;             // [B, H, S, S]
    int u, th;             // the GELU's input and tanh
    int keep_attn = -1, keep_ffn = -1;  // dropout's keep masks (-1: none)
  };

  Layer layer(int h) {
    Layer L;
    const int64_t d = p_.model();
    const int x = norm(h, L.n1);
    L.qh = heads(dense(x, d, L.q));
    L.kh = heads(dense(x, d, L.k));
    L.vh = heads(dense(x, d, L.v));
    const int scores = b_.dot(L.qh, L.kh, {{0, 1}, {3}, {0, 1}, {3}});
    const int scaled = b_.binary("multiply", scores, act_.splat(act_.dims(scores)));
    const int masked = b_.select(mask_, scaled, mask_fill_);
    L.probs = act_.softmax(masked);
    const int ctx = b_.dot(L.probs, L.vh, {{0, 1}, {3}, {0, 1}, {2}});
    const int attn = dropout(dense(rows_of(ctx), d, L.o), L.keep_attn);
    const int r1 = b_.binary("add", h, attn);
    const int y = norm(r1, L.n2);
    L.u = dense(y, p_.ffn, L.up);
    const int act = gelu(L.u, L.th);
    const int down = dropout(dense(act, d, L.down), L.keep_ffn);
    L.out = b_.binary("add", r1, down);
    return L;
  }

  int layer_backward(const Layer& L, int g) {
    // Feed-forward block and its residual.
    int gf = dense_backward(L.down, dropout_backward(L.keep_ffn, g));
    gf = gelu_backward(L.u, L.th, gf);
    gf = dense_backward(L.up, gf);
    gf = norm_backward(L.n2, gf);
    const int g1 = b_.binary("add", g, gf);
    // Attention and its residual.
    const int dctx = heads(dense_backward(L.o, dropout_backward(L.keep_attn, g1)));
    const int dprobs = b_.dot(dctx, L.vh, {{0, 1}, {3}, {0, 1}, {3}});
    const int dv = b_.dot(L.probs, dctx, {{0, 1}, {2}, {0, 1}, {2}});
    const int dmasked = softmax_backward(L.probs, dprobs);
    const int zeros = act_.splat(act_.dims(dmasked));
    const int dscaled = b_.select(mask_, dmasked, zeros);
    const int dscores = b_.binary("multiply", dscaled, act_.splat(act_.dims(dscaled)));
    const int dq = b_.dot(dscores, L.kh, {{0, 1}, {3}, {0, 1}, {2}});
    const int dk = b_.dot(dscores, L.qh, {{0, 1}, {2}, {0, 1}, {2}});
    int dx = dense_backward(L.q, rows_of(dq));
    const int dxk = dense_backward(L.k, rows_of(dk));
    dx = b_.binary("add", dx, dxk);
    const int dxv = dense_backward(L.v, rows_of(dv));
    dx = b_.binary("add", dx, dxv);
    const int ga = norm_backward(L.n1, dx);
    return b_.binary("add", g1, ga);
  }

  // --- pieces and their gradients
  // Rows [R, D] into heads [B, H, S, Dh], and back.
  int heads(int rows) {
    const int split = b_.reshape(rows, {p_.batch, p_.seq, p_.heads, p_.head_dim});
    return b_.transpose(split, {0, 2, 1, 3});
  }
  int rows_of(int heads_) {
    const int t = b_.transpose(heads_, {0, 2, 1, 3});
    return b_.reshape(t, {p_.rows(), p_.model()});
  }

  int dense(int x, int64_t n, Dense& out) {
    const int64_t k = b_.dims(x)[1];
    out.x = x;
    out.w = state_.weight({k, n});
    out.b = state_.weight({n});
    out.wa = to(out.w, p_.act);
    const int y = b_.matmul(x, out.wa);
    const int bias = to(out.b, p_.act);
    return b_.binary("add", y, b_.broadcast(bias, {b_.dims(x)[0], n}, {1}));
  }

  int dense_backward(const Dense& l, int dy) {
    const int dw = b_.dot(l.x, dy, {{}, {0}, {}, {0}});  // [K, N]: the rows contracted
    grads_.push_back({l.w, to(dw, ElementType::F32)});
    const int dy32 = to(dy, ElementType::F32);
    grads_.push_back({l.b, b_.reduce(dy32, f32_.scalar(), {0})});
    return b_.dot(dy, l.wa, {{}, {1}, {}, {1}});  // [R, K]
  }

  // Layer norm over the last dim of rows [R, D].
  int norm(int x, Norm& n) {
    const Dims d = b_.dims(x);
    const int mean = mean_back(x);
    const int centred = b_.binary("subtract", x, mean);
    const int var = mean_back(b_.binary("multiply", centred, centred));
    const int eps = act_.splat(d);
    n.inv = b_.unary("rsqrt", b_.binary("add", var, eps));
    n.xhat = b_.binary("multiply", centred, n.inv);
    n.gamma = state_.weight({d[1]});
    n.beta = state_.weight({d[1]});
    n.gamma_a = b_.broadcast(to(n.gamma, p_.act), d, {1});
    const int scaled = b_.binary("multiply", n.xhat, n.gamma_a);
    const int beta = to(n.beta, p_.act);
    return b_.binary("add", scaled, b_.broadcast(beta, d, {1}));
  }

  int norm_backward(const Norm& n, int dy) {
    const int gx = to(b_.binary("multiply", dy, n.xhat), ElementType::F32);
    grads_.push_back({n.gamma, b_.reduce(gx, f32_.scalar(), {0})});
    const int dy32 = to(dy, ElementType::F32);
    grads_.push_back({n.beta, b_.reduce(dy32, f32_.scalar(), {0})});
    const int dxhat = b_.binary("multiply", dy, n.gamma_a);
    const int m1 = mean_back(dxhat);
    const int m2 = mean_back(b_.binary("multiply", dxhat, n.xhat));
    const int centred = b_.binary("subtract", dxhat, m1);
    const int dx = b_.binary("subtract", centred, b_.binary("multiply", n.xhat, m2));
    return b_.binary("multiply", dx, n.inv);
  }

  // GELU, tanh form: 0.5 u (1 + tanh(c (u + 0.044715 u^3))).
  int gelu(int u, int& th) {
    const Dims d = b_.dims(u);
    const int cube = b_.binary("multiply", b_.binary("multiply", u, u), u);
    const int poly = b_.binary("add", u, b_.binary("multiply", cube, act_.splat(d)));
    th = b_.unary("tanh", b_.binary("multiply", poly, act_.splat(d)));
    const int gate = b_.binary("add", th, act_.splat(d));
    const int ug = b_.binary("multiply", u, gate);
    return b_.binary("multiply", ug, act_.splat(d));
  }

  // d/du: 0.5 (1 + th) + 0.5 u (1 - th^2) c (1 + 3 * 0.044715 u^2).
  int gelu_backward(int u, int th, int dy) {
    const Dims d = b_.dims(u);
    const int one_th = b_.binary("add", th, act_.splat(d));
    const int left = b_.binary("multiply", one_th, act_.splat(d));
    const int th2 = b_.binary("multiply", th, th);
    const int sech2 = b_.binary("subtract", act_.splat(d), th2);
    const int u2 = b_.binary("multiply", u, u);
    const int u2c = b_.binary("multiply", u2, act_.splat(d));
    const int slope = b_.binary("add", act_.splat(d), u2c);
    const int u_sech2 = b_.binary("multiply", u, sech2);
    const int right = b_.binary("multiply", u_sech2, b_.binary("multiply", slope, act_.splat(d)));
    return b_.binary("multiply", dy, b_.binary("add", left, right));
  }

  int softmax_backward(int probs, int dprobs) {
    const int dot = act_.reduce_last_back(b_.binary("multiply", dprobs, probs));
    return b_.binary("multiply", probs, b_.binary("subtract", dprobs, dot));
  }

  // --- dropout
  // Keeps an element where a hash of its index and the step's key, as a
  // float in [0, 1), reaches the rate; the kept are scaled by 1 / (1 - rate).
  int dropout(int x, int& keep) {
    if (key_ < 0) return x;
    const Dims d = act_.dims(x);
    keep = keep_mask(d);
    const int scaled = b_.binary("multiply", x, act_.splat(d));
    const int zeros = act_.splat(d);
    return b_.select(keep, scaled, zeros);
  }
  int dropout_backward(int keep, int g) {
    if (keep < 0) return g;
    const Dims d = act_.dims(g);
    const int scaled = b_.binary("multiply", g, act_.splat(d));
    const int zeros = act_.splat(d);
    return b_.select(keep, scaled, zeros);
  }
  // Two rounds of Threefry's mixing of (element index, key + salt) on u32.
  int keep_mask(const Dims& d) {
    int64_t count = 1;
    for (int64_t v : d) count *= v;
    const int flat = b_.iota(ElementType::U32, {count}, 0);
    int x0 = b_.reshape(flat, d);
    const int salt = u32_scalar();
    const int salted = b_.binary("add", key_, salt);
    int x1 = b_.broadcast(salted, d, {});
    for (int round = 0; round < 2; ++round) {
      x0 = b_.binary("add", x0, x1);
      const int left = b_.binary("shift-left", x1, u32_splat(d));
      const int right = b_.binary("shift-right-logical", x1, u32_splat(d));
      const int rotated = b_.binary("or", left, right);
      x1 = b_.binary("xor", rotated, x0);
    }
    // The top 23 bits as the mantissa of a float in [1, 2), less one.
    const int mantissa = b_.binary("shift-right-logical", x1, u32_splat(d));
    const int one_to_two = b_.binary("or", mantissa, u32_splat(d));
    const int as_float = b_.op("bitcast-convert", {one_to_two}, array_shape(ElementType::F32, d));
    const int uniform = b_.binary("subtract", as_float, f32_.splat(d));
    const int rate = f32_.splat(d);
    return b_.compare(uniform, rate);
  }
  int u32_scalar() { return b_.constant(ElementType::U32, {}); }
  int u32_splat(Dims d) { return b_.broadcast(u32_scalar(), std::move(d), {}); }

  // --- helpers
  // The mean over the last dim, broadcast back.
  int mean_back(int x) {
    const int sum = act_.reduce_last_back(x);
    return b_.binary("multiply", sum, act_.splat(act_.dims(x)));
  }
  int to(int x, ElementType t) { return b_.node(x).type == t ? x : b_.convert(x, t); }
  // The f32 weight a converted one came from.
  int state_weight_of(int x) const {
    const HloNode& n = b_.node(x);
    return n.type == ElementType::F32 ? x : n.operands.at(0);
  }

  BertPlan p_;
  HloBuilder b_;
  detail::Net act_;  // the shared helpers in the activation type (attention, norms, GELU)
  detail::Net f32_;  // and in f32 (the loss, the gradients' sums)
  detail::TrainingState state_;
  int mask_ = -1, mask_fill_ = -1, key_ = -1;
  std::vector<std::pair<int, int>> grads_;  // (weight, f32 gradient)
};

BertPlan draw_plan(Rng& rng) {
  BertPlan p;
  // One draw per statement: argument order differs between GCC and clang.
  p.batch = rng.pick<int64_t>({1, 4, 8, 16, 32});
  p.seq = rng.pick<int64_t>({64, 128, 256, 512});
  p.heads = rng.pick<int64_t>({4, 8, 12, 16});
  p.head_dim = rng.pick<int64_t>({32, 64});
  p.ffn = p.model() * rng.pick<int64_t>({2, 4});
  p.classes = rng.pick<int64_t>({2, 1000, 8192, 30522});
  p.all_reduce = rng.chance(0.6);
  // Both real nlp files are a step alone, their state a tuple parameter;
  // some programs loop over steps on the device.
  p.loop = rng.chance(0.2);
  p.act = rng.chance(0.7) ? ElementType::BF16 : ElementType::F32;
  p.vocab = rng.pick<int64_t>({8192, 30522, 32000});
  p.dropout = rng.chance(0.7);
  p.clip = rng.chance(0.6);
  p.accumulate = p.loop && rng.chance(0.5) ? rng.pick<int64_t>({2, 4, 8}) : 1;
  return p;
}

HloGraph build_bert(const BertPlan& p, Rng& rng) {
  BertBuilder plain(p, rng);
  plain.build();  // for its weights' shapes
  return BertBuilder(p, rng, plain.weight_shapes()).build();
}

}  // namespace

HloGraph bert_training(Rng& rng, int target_nodes) {
  BertPlan p = draw_plan(rng);
  // Layers add the same nodes each: two builds give the size of any depth.
  p.layers = 1;
  const int64_t one = build_bert(p, rng).num_nodes();
  p.layers = 2;
  const int64_t per_layer = build_bert(p, rng).num_nodes() - one;
  const int64_t layers = (target_nodes - one + per_layer / 2) / per_layer + 1;
  p.layers = static_cast<int>(std::clamp<int64_t>(layers, 1, 48));
  return build_bert(p, rng);
}

}  // namespace fastslow::synth
