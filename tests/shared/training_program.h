// Checks the training programs the step templates build (training_state.h
// in the generator): shared by the U-Net and BERT template tests.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "fastslow/graph/hlo_tables.h"
#include "fastslow/synth/hlo.h"

namespace fastslow::synth {

inline std::string op(const HloNode& n) { return opcode_name(n.opcode); }

inline std::map<std::string, int> opcode_counts(const HloGraph& g) {
  std::map<std::string, int> c;
  for (const HloNode& n : g.nodes) ++c[op(n)];
  return c;
}

// The users of each node, by id.
inline std::vector<std::vector<int>> users(const HloGraph& g) {
  std::vector<std::vector<int>> u(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int v : g.nodes[i].operands) u[static_cast<size_t>(v)].push_back(static_cast<int>(i));
  return u;
}

// A training loop as the real training files hold one: the state one
// tuple, unpacked once per element in the body (the body parameter's
// fan-out is the state's size) and in the entry, packed again into the
// body's root and the entry's root. Returns the number of weight tensors.
inline int check_training_loop(const HloGraph& g) {
  const HloNode& root = g.nodes.back();
  const auto u = users(g);
  const auto is = [&](int id, const char* name) { return op(g.nodes[static_cast<size_t>(id)]) == name; };
  int loops = 0, w = -1;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (op(g.nodes[i]) == "while") ++loops, w = static_cast<int>(i);
  EXPECT_EQ(loops, 1);
  if (w < 0) return 0;
  const HloNode& loop = g.nodes[static_cast<size_t>(w)];
  // Adam's three scalars, then weights, first and second moments (and the
  // gradients' sums, when the program accumulates them).
  const int kinds = opcode_counts(g).count("conditional") ? 4 : 3;
  const int carried = static_cast<int>(root.operands.size());
  const int tensors = (carried - 3) / kinds;
  EXPECT_EQ(carried, 3 + kinds * tensors);
  for (int v : root.operands) {
    EXPECT_TRUE(is(v, "get-tuple-element"));
    EXPECT_EQ(g.nodes[static_cast<size_t>(v)].operands, std::vector<int>{w});
  }
  // The state: counter, token, then what the entry passed in.
  EXPECT_EQ(loop.tuple_shapes.size(), static_cast<size_t>(2 + carried));
  EXPECT_EQ(loop.operands.size(), 3u);  // initial state, condition's root, body's root
  const HloNode& body_root = g.nodes[static_cast<size_t>(loop.operands[2])];
  EXPECT_EQ(op(body_root), "tuple");
  EXPECT_EQ(body_root.operands.size(), loop.tuple_shapes.size());
  EXPECT_TRUE(is(loop.operands[1], "compare"));
  // The body's parameter: one get-tuple-element per element, each index once.
  int body_param = -1;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].computation == body_root.computation && op(g.nodes[i]) == "parameter") body_param = static_cast<int>(i);
  EXPECT_GE(body_param, 0);
  if (body_param < 0) return tensors;
  std::set<int64_t> indices;
  for (int v : u[static_cast<size_t>(body_param)]) {
    EXPECT_TRUE(is(v, "get-tuple-element"));
    indices.insert(g.nodes[static_cast<size_t>(v)].tuple_index);
  }
  EXPECT_EQ(u[static_cast<size_t>(body_param)].size(), loop.tuple_shapes.size());
  EXPECT_EQ(indices.size(), loop.tuple_shapes.size());
  // The batch by infeed (its token from the state), the loss by outfeed.
  int infeeds = 0, outfeeds = 0;
  for (const HloNode& n : g.nodes) {
    if (n.computation != body_root.computation) continue;
    infeeds += op(n) == "infeed";
    outfeeds += op(n) == "outfeed";
  }
  EXPECT_EQ(infeeds, 1);
  EXPECT_EQ(outfeeds, 1);
  return tensors;
}

// Gradient accumulation (training_state.h): one conditional in the loop
// body, due when the step counter's remainder compares; both branches get
// one tuple of the scalars, weights, moments and gradient sums; the one
// that updates runs Adam on every tensor and returns that tuple's shape
// anew, the other returns its parameter. Returns whether g accumulates.
inline bool check_accumulation(const HloGraph& g, int tensors) {
  const auto is = [&](int id, const char* name) { return op(g.nodes[static_cast<size_t>(id)]) == name; };
  int conditionals = 0, c = -1;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (op(g.nodes[i]) == "conditional") ++conditionals, c = static_cast<int>(i);
  if (conditionals == 0) return false;
  EXPECT_EQ(conditionals, 1);
  const HloNode& cond = g.nodes[static_cast<size_t>(c)];
  EXPECT_EQ(cond.operands.size(), 5u);  // predicate, two arguments, two branch roots
  if (cond.operands.size() != 5) return true;
  const HloNode& pred = g.nodes[static_cast<size_t>(cond.operands[0])];
  EXPECT_EQ(op(pred), "compare");
  EXPECT_TRUE(is(pred.operands.at(0), "remainder"));
  EXPECT_EQ(cond.operands[1], cond.operands[2]);
  const HloNode& arg = g.nodes[static_cast<size_t>(cond.operands[1])];
  EXPECT_EQ(op(arg), "tuple");
  EXPECT_EQ(arg.operands.size(), static_cast<size_t>(3 + 4 * tensors));
  const HloNode& apply = g.nodes[static_cast<size_t>(cond.operands[3])];
  const HloNode& keep = g.nodes[static_cast<size_t>(cond.operands[4])];
  EXPECT_EQ(op(apply), "tuple");
  EXPECT_EQ(apply.operands.size(), arg.operands.size());
  EXPECT_EQ(op(keep), "parameter");
  EXPECT_NE(apply.computation, keep.computation);
  EXPECT_NE(apply.computation, cond.computation);
  int roots = 0;
  for (const HloNode& n : g.nodes) roots += n.computation == apply.computation && op(n) == "sqrt";
  EXPECT_GE(roots, tensors + 1);  // Adam's per tensor and its bias correction (and the clipping norm)
  return true;
}

// Either form of a training program: in the loop (check_training_loop), or
// the step alone with `fed` batch parameters, Adam's three scalars and the
// state in three tuple parameters, its root the loss and (weight, m, v) per
// tensor. Returns the number of weight tensors; `looped` counts the loops.
inline int check_training_program(const HloGraph& g, int fed, int& looped) {
  const auto ops = opcode_counts(g);
  const HloNode& root = g.nodes.back();
  EXPECT_TRUE(root.is_root);
  EXPECT_EQ(op(root), "tuple");
  const int entry = static_cast<int>(g.node_splits.size()) - 1;
  int params = 0;
  for (const HloNode& n : g.nodes) params += op(n) == "parameter" && n.computation == entry;
  if (ops.count("while")) {
    ++looped;
    EXPECT_EQ(params, 1);  // the host's state, one tuple
    return check_training_loop(g);
  }
  const int tensors = (static_cast<int>(root.operands.size()) - 1) / 3;
  EXPECT_EQ(static_cast<int>(root.operands.size()), 1 + 3 * tensors);
  EXPECT_EQ(params, fed + 3 + 3);
  return tensors;
}

}  // namespace fastslow::synth
