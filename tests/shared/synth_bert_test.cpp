// The BERT training-step template (template_bert_training.cpp): what makes
// it a transformer's training step, checked on the graph itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "fastslow/synth/templates.h"
#include "training_program.h"

namespace fastslow::synth {
namespace {

using Ints = std::vector<int64_t>;

int dots_where(const HloGraph& g, const Ints& lhs_contracting, const Ints& rhs_contracting, const Ints& batch) {
  int n = 0;
  for (const HloNode& x : g.nodes)
    n += op(x) == "dot" && x.dot_dims.lhs_contracting == lhs_contracting &&
         x.dot_dims.rhs_contracting == rhs_contracting && x.dot_dims.lhs_batch == batch;
  return n;
}

TEST(SynthBert, IsATrainingStepWithWhatRealOnesHold) {
  int looped = 0, reduced = 0, mixed = 0, dropped = 0, clipped = 0, accumulated = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    const HloGraph g = bert_training(rng, 2000);
    ASSERT_NO_THROW(check_graph(g));
    const auto ops = opcode_counts(g);
    // Fed: token ids, the attention mask, the labels, and with dropout the
    // step's random key.
    const bool dropout = ops.count("xor") > 0;
    const int tensors = check_training_program(g, dropout ? 4 : 3, looped);
    accumulated += check_accumulation(g, tensors);
    // Attention, batched over (batch, head): per layer the scores and the
    // probabilities' gradient contract head dims, the context and the
    // queries' gradient the keys, the values' and keys' gradients the queries.
    const int layers = dots_where(g, {2}, {2}, {0, 1}) / 2;
    ASSERT_GE(layers, 1);
    EXPECT_EQ(dots_where(g, {3}, {3}, {0, 1}), 2 * layers);
    EXPECT_EQ(dots_where(g, {3}, {2}, {0, 1}), 2 * layers);
    EXPECT_EQ(dots_where(g, {2}, {2}, {0, 1}), 2 * layers);
    // Per layer Q, K, V, output, two feed-forward dense layers with biases
    // and two layer norms; the embedding table, positions, the final norm,
    // the classifier.
    EXPECT_EQ(tensors, 16 * layers + 6);
    // The table: rows gathered forward, the gradient scattered into it.
    EXPECT_EQ(ops.at("gather"), 1);
    EXPECT_EQ(ops.at("scatter"), 1);
    // The labels made one-hot against an iota over the classes.
    EXPECT_GE(ops.at("iota"), 1);
    if (dropout) {
      // Two sublayers a layer, two rounds of add, rotate, xor each.
      ++dropped;
      EXPECT_EQ(ops.at("xor"), 4 * layers);
      EXPECT_EQ(ops.at("shift-left"), 4 * layers);
      EXPECT_EQ(ops.at("shift-right-logical"), 6 * layers);
      EXPECT_EQ(ops.at("bitcast-convert"), 2 * layers);
      EXPECT_EQ(ops.at("iota"), 1 + 2 * layers);
    } else {
      EXPECT_EQ(ops.count("bitcast-convert"), 0u);
      EXPECT_EQ(ops.at("iota"), 1);
    }
    if (ops.count("minimum")) {
      // Clipping by global norm: one factor broadcast to every gradient's
      // shape (one broadcast per shape: CSE) and multiplied into it.
      ++clipped;
      EXPECT_EQ(ops.at("minimum"), 1);
      const auto of = users(g);
      for (size_t i = 0; i < g.nodes.size(); ++i) {
        if (op(g.nodes[i]) != "minimum") continue;
        int scaled = 0;
        for (int spread : of[i]) {
          EXPECT_EQ(op(g.nodes[static_cast<size_t>(spread)]), "broadcast");
          scaled += static_cast<int>(of[static_cast<size_t>(spread)].size());
        }
        EXPECT_EQ(scaled, tensors);
      }
    }
    // Each dense layer's weight gradient contracts the rows (batch x
    // sequence) of its input and of the output's gradient; its input
    // gradient reads the weight transposed.
    const int dense = 6 * layers + 1;
    EXPECT_EQ(dots_where(g, {0}, {0}, {}), dense);
    EXPECT_EQ(dots_where(g, {1}, {1}, {}), dense);
    EXPECT_EQ(dots_where(g, {1}, {0}, {}), dense);  // the forward matmuls
    EXPECT_GE(ops.at("select"), 2 * layers);  // the mask, forward and backward
    EXPECT_GE(ops.at("sqrt"), tensors);       // Adam
    EXPECT_GT(ops.at("subtract"), tensors);   // Adam's updates among them
    reduced += ops.count("all-reduce") > 0;
    mixed += std::any_of(g.nodes.begin(), g.nodes.end(), [](const HloNode& n) { return n.type == ElementType::BF16; });
  }
  // Both forms, replicated and single steps, bf16 and f32 activations.
  EXPECT_GT(looped, 0);
  EXPECT_LT(looped, 10);
  // Some looped programs accumulate gradients, not all.
  EXPECT_GT(accumulated, 0);
  EXPECT_LT(accumulated, looped);
  EXPECT_GT(reduced, 0);
  EXPECT_LT(reduced, 10);
  EXPECT_GT(mixed, 0);
  EXPECT_LT(mixed, 10);
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, 10);
  EXPECT_GT(clipped, 0);
  EXPECT_LT(clipped, 10);
}

TEST(SynthBert, LandsNearItsTargetWithDepth) {
  for (int target : {1000, 3000, 10000}) {
    SCOPED_TRACE("target " + std::to_string(target));
    int64_t nearest = 1 << 30;
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      Rng rng(seed);
      nearest = std::min<int64_t>(nearest, std::abs(bert_training(rng, target).num_nodes() - target));
    }
    EXPECT_LE(nearest, 400);  // within one layer's half
  }
}

}  // namespace
}  // namespace fastslow::synth
