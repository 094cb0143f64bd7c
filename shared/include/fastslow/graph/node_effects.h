// Which configurable nodes a layout file's measured runtimes depend on,
// read from the measurements alone (no model): per node, the share of the
// variance of log runtime that its layout rows explain (a one-way analysis
// of variance: between-row over total sum of squares), and each row's
// median runtime over the file's best. On real unet3d one convolution's 8
// rows explain 99.8 %: the first thing an engineer tuning that program
// wants to know, and what no per-config explanation shows at a glance.
//
// Shares alone overlap where a search moved nodes partly together, and a
// node another one masks shows little alone, so the entries come in the
// order of a forward selection over their crossed rows (joint_share.h),
// each with what it adds to those above it.
//
// Nodes whose rows split the configs the same way (a search that moved
// them together) cannot be told apart by measurements: they form one
// entry, with the same share. Nodes that never change layout in the file
// are left out (their share is 0).
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fastslow/graph/graph.h"
#include "fastslow/io/npz_reader.h"

namespace fastslow {

struct RowEffect {
  std::vector<float> row;  // the entry's first node's config values
  int64_t configs = 0;     // measured configs holding it
  double median_ratio = 0;  // their median runtime over the file's fastest
};

struct NodeEffect {
  std::vector<int64_t> nodes;  // file node ids, ascending; more than one when they moved together
  // The node whose values `rows` hold: the first of `nodes` in the file's
  // configurable order (a twin's rows split the configs alike, with other values).
  int64_t rows_node = -1;
  double share = 0;            // of the variance of log runtime
  // The share beyond chance (omega squared, 0 at least): a node with k rows
  // among n configs explains (k-1)/(n-1) of pure noise on average, which
  // matters for the few configs of a tuning session, not for a file's
  // thousands.
  double adjusted = 0;
  // What its layouts add, beyond chance, to those of the entries above it
  // (joint_share.h); NaN for the entries the forward selection did not
  // pick (NodeEffects::joint_stopped says why).
  double adds = std::nan("");
  std::vector<RowEffect> rows;  // fastest median first
};

// The forward selection's reach: it tries the kJointCandidates entries
// largest alone, picks at most kJointPicks, and stops at a gain under
// kJointMinGain (0.1 % of the variance: below what a tuner acts on) or at
// one whose F test's p-value is over kJointAlpha / (the step's candidates).
constexpr size_t kJointCandidates = 64;
constexpr int kJointPicks = 8;
constexpr double kJointMinGain = 0.001;
constexpr double kJointAlpha = 0.05;

struct NodeEffects {
  int64_t configs = 0;           // measured configs read (runtime > 0)
  double fastest = 0;            // the fastest of their runtimes, what median_ratio is over
  int64_t constant_nodes = 0;    // configurable nodes with one row in the whole file
  double joint = 0;              // the adjusted share of the picked entries together (the sum of their `adds`)
  // Why the selection picked no more, in words ("the next best adds
  // 0.06 %, under 0.1 %"), and that entries past kJointCandidates were not tried.
  std::string joint_stopped;
  // The forward selection's picks first, in the order picked; then the
  // rest, largest share first.
  std::vector<NodeEffect> entries;
};

// One config read against the effects: per entry, the index of the row it
// holds there (into NodeEffect::rows; -1 where no measured config holds
// that row), and how much slower that row's configs run than the entry's
// fastest row's (median over median, 1 for the fastest row, NaN for -1).
// Largest slowdown first: measured, no model, why this config is slow.
struct ConfigRowEffect {
  size_t entry = 0;
  int64_t row = -1;
  double slower = 1;
};
// `config_row`: the config's [node_ids.size() x width] values as the file
// holds them; `node_ids` the file's configurable nodes (NodeEffect::nodes
// hold file node ids). Throws Error when an entry's node is not among them.
std::vector<ConfigRowEffect> config_row_effects(const NodeEffects& e, const std::vector<int64_t>& node_ids,
                                                const std::vector<float>& config_row);

// Groups the configs by each node's row in one pass over them, so a file's
// configs can be streamed from its archive without being kept: configs in
// file order, in blocks of any size.
class NodeEffectsBuilder {
 public:
  // `runtime` per config (0 or less: not measured, left out); `source`
  // names the file in errors. The grouping keeps 16 bytes per node and
  // measured config (and per config 4 bytes for each of the forward
  // selection's candidates and 96 for its working set) and each node's
  // distinct rows: past `max_bytes` (the page's memory) it is refused by
  // name, here or in add(), rather than running out.
  NodeEffectsBuilder(std::vector<int64_t> node_ids, int64_t width, std::vector<double> runtime, std::string source,
                     uint64_t max_bytes = UINT64_MAX);
  ~NodeEffectsBuilder();
  NodeEffectsBuilder(NodeEffectsBuilder&&) noexcept;
  NodeEffectsBuilder& operator=(NodeEffectsBuilder&&) noexcept;
  // The next `count` configs' rows: [count x nodes x width] floats.
  void add(const float* rows, int64_t count);
  // Throws Error naming the file when fewer rows came than runtimes, or
  // fewer than two measured configs with different runtimes (a test file's
  // zeros, or a plateau with nothing to attribute).
  NodeEffects finish() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// From a loaded graph; throws Error naming `source` when it holds no
// config features (loaded without them), or as finish() does.
NodeEffects node_effects(const LayoutGraph& g, const std::string& source);
// Streamed from the archive (node_config_ids, config_runtime,
// node_config_feat; the graph need not be loaded). Throws Error naming the
// file for arrays that do not fit each other, for a grouping that would
// keep more than `max_bytes`, or as finish() does.
NodeEffects node_effects(const NpzReader& npz, uint64_t max_bytes = UINT64_MAX);

}  // namespace fastslow
