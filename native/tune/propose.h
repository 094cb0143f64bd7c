// Configs nobody measured, proposed by a model fitted on the measured ones:
// the evolutionary search of fastslow/tune/propose_search.h through the
// graph's config space (config_space.h), anchored at the 8 configs measured
// fastest (half the proposals stay a mutation or two from them), scored in
// batches by the fitted
// model (the round's run or the ridge ensemble), and what a user reads of
// the best: the predicted runtime and speed-ups, and how much a second
// model disagrees.
//
// Scores become runtimes through one line fitted on the measured configs,
// log(runtime) = a + b x score (b = 0 when the model orders them backwards:
// no speed-up is then claimed). Speed-ups compare predictions with
// predictions: over the best measured config, and over the config that
// takes each node's most common layout in the file.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fastslow/data/graph_cache.h"
#include "fastslow/tune/graph_space.h"
#include "fastslow/tune/propose_search.h"
#include "tune/graph_out.h"
#include "tune/scorers.h"

namespace fastslow::tune {

struct ProposeRequest {
  int64_t count = 0;  // proposals wanted
  SpaceKind space = SpaceKind::Menu;
  ProposeSettings search;
  bool ratio = false;  // runtimes are a tile file's runtime / normalizer, not ns
};

struct Proposal {
  std::vector<float> config;
  double score = 0;
  double runtime = 0;             // predicted, ns
  double over_best = 1;           // predicted speed-up over the best measured config
  double over_common = 1;         // over the most common layouts
  double disagreement = 0;        // |log runtime| between the two models, or the ensemble's spread
  int64_t changed = -1;           // choices from the nearest measured config (search_space.h)
};

struct ProposeOutcome {
  std::vector<Proposal> proposals;  // best first
  int64_t scored = 0;               // new candidates scored
  double seconds = 0;               // the search, scoring included
  double score_seconds = 0;         // the model's calls alone
  int64_t rows_scored = 0;          // by those calls: the file's configs and the new ones
  double slope = 0, intercept = 0;  // log(runtime) = intercept + slope x score
  double best_measured_runtime = 0; // ns
  const char* changed_unit = "nodes"; // what `changed` counts: "nodes" (layout) or "values" (tile)
  bool interrupted = false;
};

// (done, budget) after each batch of new candidates scored.
using ProposeProgress = std::function<void(int64_t, int64_t)>;


// `model` scores the candidates; `second` (may be null) only the proposals,
// for the disagreement. Error on nothing measured.
ProposeOutcome propose(const CachedGraph& g, Fitted& model, Fitted* second, const Measured& m,
                       const ProposeRequest& request, const ProposeProgress& progress = {},
                       const std::function<bool()>& stop = {});

// OUT/proposed.npz (the graph with the proposals, runtimes 0),
// OUT/proposed.csv; returns what tune.json records of them.
nlohmann::json write_proposals(const std::string& out, const GraphOut& graph, const ProposeOutcome& o,
                               const ProposeRequest& request);

}  // namespace fastslow::tune
