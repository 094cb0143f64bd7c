// How an autotuning session measures configs: a seam with two sides.
//   file  looks the runtimes up in the graph's own file (its best
//         measurement of each config; a tile file's runtime over its
//         normalizer, what tile configs are ranked by): how the benchmark
//         replays a session on real measured data. Configs the file holds
//         without a runtime (0) are left out of the candidates;
//   CMD   runs the user's command: `sh -c 'CMD "$1" "$2"' sh IN.csv OUT.csv`.
//         Layout graphs: IN.csv has one row per configurable node of each
//         config asked for: config,node,<the node's config features>;
//         `config` is the config's row in the graph file
//         (node_config_feat[config]), `node` its node id. Tile graphs: one
//         row per config, config,<its 24 tile features>. The command writes
//         OUT.csv: a header, then config,runtime_ns, one row for each config
//         asked for.
// Whatever goes wrong (the command fails, hangs past its timeout, leaves a
// config out, names one it was not asked for, or a runtime that is not a
// positive number) is an Error naming the config and the file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fastslow/data/graph_cache.h"

namespace fastslow::tune {

class Measurer {
 public:
  virtual ~Measurer() = default;
  // Runtimes in ns of the candidates (the graph's config groups), in that
  // order; `dir` is the round's folder for any files it writes.
  virtual std::vector<double> measure(const std::vector<int64_t>& candidates, const std::string& dir) = 0;
  virtual std::string describe() const = 0;
  // Candidates it cannot measure (1), left out of every pick: a file's
  // configs without a runtime. A command measures anything.
  virtual std::vector<char> unmeasurable(int64_t candidates) const { return std::vector<char>(candidates, 0); }
};

// `spec`: "file" or a command line. timeout_s: 0 = none (a command only).
std::unique_ptr<Measurer> make_measurer(const std::string& spec, const CachedGraph& graph, double timeout_s = 0);

}  // namespace fastslow::tune
