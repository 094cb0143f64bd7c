// What the open layout file's measured runtimes depend on, per configurable
// node (graph/node_effects.h), as the Summary tab and the inspector show
// it: no model needed, so it is the first thing the page can say about a
// file an engineer is tuning. No ImGui: the views read it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "document.h"
#include "fastslow/graph/node_effects.h"

namespace fastslow::explorer {

struct MeasuredEffects {
  // Rows a file may hold for the effects to be found as it opens, once its
  // first frame is drawn (one pass inflating them, in the page: 42 ms for
  // real unet3d's 5 MB, 165 ms for AlexNet's 47 MB); larger files wait for
  // the Summary tab's button.
  static constexpr uint64_t kOnOpenBytes = uint64_t(64) << 20;
  // What the grouping may keep in the page's memory (4 GB in all).
  static constexpr uint64_t kMaxBytes = uint64_t(768) << 20;

  bool found = false;  // tried: `effects` or `error` holds the outcome
  bool due = false;    // to be found after the next frame (small files)
  NodeEffects effects;
  std::string error;      // why there are none
  double ms = 0;          // time to find them
  size_t entry = 0;       // the entry whose rows the Summary lists
  uint64_t row_bytes = 0; // the file's node_config_feat, inflated

  // Whether the file can have them at all (a layout file with runtimes).
  static bool apply(const Document& doc);
  // Cleared for `doc`; due when its rows are small enough.
  void reset(const Document* doc);
  // Finds them (again); a failure lands in `error`, never thrown.
  void find(const Document& doc);
  // Per node of the graph: what its entry adds (the forward selection's
  // picks; 0 for the entries it did not pick, whose share alone repeats or
  // is noise), NaN for nodes that never change (the graph's colours).
  std::vector<double> node_values(int64_t num_nodes) const;
  // The entry holding `node`, or -1.
  int64_t entry_of(int64_t node) const;
};

// The legend's title when the graph shows them.
inline constexpr const char* kEffectsTitle = "what layouts add (measured)";

}  // namespace fastslow::explorer
