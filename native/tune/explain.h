// Why is this config slow: the configurable nodes by their share of a
// config's predicted cost, or of the difference between two configs.
//   table      per-program runs (a wide table, models/program_model.h):
//              the table is a sum over nodes, so each node's share is
//              exact and the shares add up to the table's score (or the
//              difference of two); the graph model's part is reported
//              beside them, not split by node;
//   occlusion  any model: each node's layout reset to the file's most
//              common one for that node, the score's change is its share
//              (not additive: nodes interact).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "train/loaded_run.h"

namespace fastslow::tune {

struct NodeShare {
  int64_t node = 0;  // the node's id in the file
  std::string opcode;
  double contribution = 0;           // to the score (lower = faster), or to score(config) - score(against)
  std::vector<float> layout, other;  // the node's config values in `config` (and in `against`)
};

struct Explanation {
  std::string method;  // "table" or "occlusion"
  int64_t config = 0, against = -1;
  double score = 0, against_score = 0;  // the model's scores
  double explained = 0;  // the sum of the contributions
  double rest = 0;       // table: the graph model's part (of the score or the difference)
  std::vector<NodeShare> nodes;  // by |contribution|, largest first
};

// method: "auto" (table where the run has one, else occlusion), "table" or
// "occlusion". Error naming the file on configs out of range or a method
// the run cannot do.
Explanation explain_config(const train::LoadedRun& run, const std::string& file, int64_t config, int64_t against,
                           const std::string& method, const std::string& cache_dir);

nlohmann::json explanation_json(const Explanation& e);

}  // namespace fastslow::tune
