// One-hot ridge on a layout graph's config values plus five whole-graph
// physical terms whose weights every node shares, so that a layout the file
// never holds still gets a price: `fastslow tune --predictor physics`.
//
// Why: one-hot ridge (and the per-program wide table) learns one weight per
// node, column and value it has seen; an order nobody measured adds
// nothing, so a search through every legal order (--space orders) cannot
// tell a good unmeasured order from a bad one. What such an order costs on
// a TPU is mostly data moved: padding to 8 x 128 tiles and relayout copies
// between a producer and its reader. Those are the models' tiling features
// (models/layout_tiling.h), summed over every configurable node's three
// tensors, weighted by the bytes involved, over the graph's bytes:
//   padding      padded bytes under each layout that names its dims and
//                whose reference does too (a layout left to the compiler,
//                all -1, adds nothing: the compiler's choice is unknown)
//   relayout     bytes a copy moves where a layout's physical order differs
//                from its reference's (producer's, or as built for outputs)
//   lane moves   the same where the minor-most dim differs (a transpose
//                across lanes, the dearest copy)
//   missed minor padded bytes where the op's preferred minor-most dim is not
//                (a layout left to the compiler counts as missing it)
//   batch minor  padded bytes where a convolution's batch dim is in the
//                two minor slots
// On files without the published 140 node-feature columns the terms are 0
// and this is ridge on the centred one-hot values (OneHotRidge leaves them
// uncentred). The terms get 1/1000 of the values' penalty (standardised):
// five weights fitted on every measurement.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fastslow/data/graph_cache.h"

namespace fastslow::tune {

class PhysicsRidge {
 public:
  static constexpr int kTerms = 5;
  static constexpr std::array<const char*, kTerms> kTermNames = {"padding", "relayout", "lane moves", "missed minor",
                                                                 "batch minor"};
  // Error naming the file for a tile graph.
  explicit PhysicsRidge(const CachedGraph& g);
  // rows: count x row_elems raw config values; target per row (log runtime);
  // lambda: the values' penalty (as OneHotRidge's). Error when too big to
  // solve densely (see kDenseLimit).
  void fit(const std::vector<float>& rows, const std::vector<double>& target, double lambda);
  // Lower = predicted faster.
  std::vector<double> predict(const std::vector<float>& rows) const;
  // count x kTerms, row-major: the terms of each config (0 without context).
  std::vector<double> terms(const std::vector<float>& rows) const;
  // Per term, the fitted change of log runtime per standard deviation of it
  // among the measured configs (0 for a term that did not vary).
  std::array<double, kTerms> term_effects() const;
  bool knows_context() const { return known_; }

  // The solve forms the configs' or the features' Gram matrix, whichever
  // is smaller, from a dense design of configs x features doubles.
  static constexpr int64_t kDenseLimit = 8192;
  static constexpr int64_t kDesignLimit = int64_t{1} << 27;  // 1 GB of doubles

 private:
  std::vector<double> design(const std::vector<float>& rows, int64_t* count) const;
  // By the fit's means and scales, in place (count x (features_ + kTerms)).
  void standardise(std::vector<double>& x) const;
  int64_t nc_ = 0, width_ = 0, row_ = 0, features_ = 0;
  bool known_ = false;
  std::string source_;  // the graph's file, for errors
  std::vector<float> context_;  // nc x LayoutContext::kWidth
  std::map<int64_t, std::map<float, int64_t>> index_;  // column -> value -> indicator feature
  std::vector<double> mean_, scale_, weights_;         // per design column
  double bias_ = 0.0;
};

}  // namespace fastslow::tune
