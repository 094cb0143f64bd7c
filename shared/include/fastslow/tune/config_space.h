// The layout configs a graph may take, beyond the ones its file measured:
// what a search for configs nobody measured walks through. A config is one
// row per configurable node (node_config_ids order); a published row of 18
// values is three minor-to-major orders of 6 slots (the node's output, its
// operand 0 "input", its operand 1 "kernel"), -1 padded. Each of these
// orders is a *group*; a file whose rows have another width (a cleaned
// file) has one group per node, its whole row, whose meaning is unknown.
//
// Two spaces, as `--space` names them:
//   menu    each group takes one of the orders the file holds for it, in any
//           combination: every order was compiled in some measured config,
//           so the space is legal by construction and the model has seen
//           every value (it has not seen the combination);
//   orders  each 6-slot group takes any legal order: the named dims are
//           distinct dims of the tensor (its rank from the node features,
//           or from the file's orders), as many as the file's orders of that
//           group name (a convolution's two minor-most, a reshape's whole
//           permutation), followed by -1; all -1 ("left to the compiler")
//           where the file has it. Groups of unknown meaning stay menus.
//
// Mutations keep a config legal: swap two dims of an order (menu: another
// order of the menu), copy the producer's output order into an operand's
// (or a consumer's operand order into the output), reset an order to the
// file's most common one. Crossover takes each node's row from either
// parent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fastslow/features/layout_context.h"
#include "fastslow/rng.h"
#include "fastslow/tune/search_space.h"

namespace fastslow {

struct LayoutGroup {
  int64_t node = 0;  // index among the configurable nodes
  int tensor = 0;    // 0 output, 1 input, 2 kernel (the whole row where the width is not 18)
  int offset = 0, width = 0;          // slots within the node's row
  bool orders = false;                // an order whose dims the space may choose (orders space)
  int rank = 0;                       // dims an order may name
  std::vector<int> lengths;           // how many dims the file's non-empty orders name
  bool may_leave = false;             // the file has this order all -1
  std::vector<int> rest;              // the built order: what completes a partial one
  std::vector<std::vector<float>> menu;  // the file's orders, most common first
  int64_t producer = -1;              // input/kernel: the output group of the configurable node it reads
  std::vector<int64_t> consumers;     // output: the input/kernel groups that read it
};

class LayoutConfigSpace : public ConfigSpace {
 public:
  // rows: the file's unique configs (count x nc x width); weight: how often
  // each occurs in the file (empty: once each); ctx: the graph's layout
  // context (ranks, built orders, producers). Throws Error when the sizes
  // disagree or there is no config.
  LayoutConfigSpace(int64_t nc, int64_t width, const std::vector<float>& rows, const std::vector<int64_t>& weight,
                    const LayoutContext& ctx, SpaceKind kind);

  SpaceKind kind() const { return kind_; }
  int64_t num_nodes() const { return nc_; }
  int64_t width() const { return width_; }
  int64_t row_elems() const override { return nc_ * width_; }
  int64_t choice_elems() const override { return width_; }
  const std::vector<LayoutGroup>& groups() const { return groups_; }

  // The first problem names the node and the tensor.
  std::string why_illegal(const float* config) const override;
  // Every group at its most common order in the file.
  std::vector<float> most_common() const override;
  // Each group uniform over its choices (menu) or a random legal order.
  void random_config(Rng& rng, float* out) const override;
  // One or two groups changed.
  void mutate(const float* parent, Rng& rng, float* child) const override;
  // Each node's row from a or b.
  void crossover(const float* a, const float* b, Rng& rng, float* child) const override;

 private:
  bool legal_value(const LayoutGroup& g, const float* v) const;
  void random_value(const LayoutGroup& g, Rng& rng, float* v) const;
  void swap_value(const LayoutGroup& g, Rng& rng, float* v) const;
  bool can_change(const LayoutGroup& g) const;

  SpaceKind kind_;
  int64_t nc_ = 0, width_ = 0;
  std::vector<LayoutGroup> groups_;
  std::vector<int64_t> changeable_;  // groups with more than one choice
};

}  // namespace fastslow
