// Whether generated layout graphs look like real ones: the statistics the
// realism report (`fastslow realism`) puts side by side for generated
// collections and real files. Real layout runtimes are a plateau with a
// tail (55-92 % of configs within 1 % of the best, a few several times
// slower); a generator whose costs spread smoothly over every configurable
// node teaches models nothing that transfers.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fastslow/numeric.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/view/op_family.h"

namespace fastslow {

struct FileRealism {
  std::string file;
  int64_t nodes = 0, edges = 0, configurable = 0, configs = 0, unique_configs = 0;
  // Over unique configs (each at its best measured runtime); NaN without
  // measured runtimes (test files).
  double within01 = kNaN, within1 = kNaN, within5 = kNaN;  // share within 0.1 % / 1 % / 5 % of the best
  double max_over_min = kNaN, log_sd = kNaN;
  // |first / second measurement - 1| over configs measured twice or more:
  // median and largest; NaN without duplicates.
  double dup_median = kNaN, dup_max = kNaN;
  std::array<double, kOpFamilies> family_share{};  // share of nodes per opcode family
  int64_t max_fanout = 0;   // most users of one node
  double fanout_p99 = 0;    // 99th percentile of users per node
  // Shares of nodes, and of configurable nodes, whose tensor has 5 or more
  // dims (3-D convolutions: layout configs then name dims up to 4); NaN for
  // files without the published 140 node features (the cleaned AlexNet).
  double rank5_share = kNaN, config_rank5_share = kNaN;
  std::map<int, int64_t> opcode_counts;  // opcode id -> nodes
};

// Layout files only (tile kernels have no layout plateau); throws Error
// naming the file otherwise. Config features are streamed.
FileRealism file_realism(const NpzReader& npz);

// One row of the report: files of one collection, or one real file.
struct RealismGroup {
  std::string name;
  std::vector<FileRealism> files;
  // A dataset root's collection (generated data, usually): what the single
  // files are compared with.
  bool dataset = false;
};

// The share of g's nodes whose opcode no file of a dataset group in `all`
// holds: ops a model trained on those datasets never saw. NaN for a dataset
// group itself, or when `all` has no dataset group.
double unseen_op_share(const RealismGroup& g, const std::vector<RealismGroup>& all);

// Median over a group's files of one statistic (NaN entries skipped; NaN if none).
double realism_median(const RealismGroup& g, double FileRealism::*field);
double realism_min(const RealismGroup& g, double FileRealism::*field);
double realism_max(const RealismGroup& g, double FileRealism::*field);

// The side-by-side table (runtimes, then structure), one row per group.
std::string realism_table(const std::vector<RealismGroup>& groups);
std::string realism_json(const std::vector<RealismGroup>& groups, int indent = 2);

}  // namespace fastslow
