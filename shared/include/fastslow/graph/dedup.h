// Config de-duplication: random and genetic searches revisit configs, and the
// copies carry only measurement noise. Groups identical config rows, keeps the
// minimum runtime per group, and maps rankings back to original indices.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "fastslow/io/npz_reader.h"

namespace fastslow {

struct ConfigGroups {
  std::vector<int64_t> group_of;        // original config -> group (numbered by first appearance)
  std::vector<int64_t> representative;  // group -> member with the least positive runtime (lowest index on ties)
  std::vector<double> best_runtime;     // group -> that runtime (0 where no member was measured)
  std::vector<int64_t> group_size;      // group -> members
  // group -> its row's 128-bit hash as two words (2 per group): equal rows
  // of equal width hash alike in any file, so two files' configs can be
  // matched (empty where groups come from a cache)
  std::vector<uint64_t> row_key;

  int64_t num_configs() const { return static_cast<int64_t>(group_of.size()); }
  int64_t num_groups() const { return static_cast<int64_t>(representative.size()); }
  // Groups with no measured copy (1): never looked up, scored against or
  // counted as a file's best.
  std::vector<char> unmeasured() const;
  // The measured group with the least runtime (lowest on ties), -1 if none.
  int64_t fastest_measured() const;
  // A ranking of groups (best first) as a ranking of all original configs:
  // each group's representative, then its other members in index order.
  std::vector<int64_t> expand_ranking(const std::vector<int64_t>& group_ranking) const;
};

// Rows are compared by a 128-bit hash of their values (-0 and +0 equal), so
// a 100k-config file can be grouped in one streamed pass without keeping its
// rows; a false merge needs a 128-bit collision.
class ConfigDeduplicator {
 public:
  // What grouping keeps per config, at most (the group index, a hash table
  // entry per distinct row, and finish()'s arrays): callers count it
  // against the memory budget before streaming.
  static constexpr uint64_t kBytesPerConfig = 128;

  explicit ConfigDeduplicator(int64_t row_elems) : row_elems_(row_elems) {}
  void add_rows(const float* rows, int64_t count);
  // Distinct rows so far: a row that raised it opened a new group (groups
  // are numbered by first appearance).
  int64_t num_groups() const { return static_cast<int64_t>(groups_.size()); }
  // runtime[i] belongs to the i-th added row.
  ConfigGroups finish(const std::vector<double>& runtime) const;

 private:
  struct Key {
    uint64_t a, b;
    bool operator==(const Key& o) const { return a == o.a && b == o.b; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return static_cast<size_t>(k.a ^ (k.b * 0x9e3779b97f4a7c15ull)); }
  };
  int64_t row_elems_;
  std::unordered_map<Key, int64_t, KeyHash> groups_;
  std::vector<int64_t> group_of_;
};

ConfigGroups dedup_configs(const std::vector<float>& rows, int64_t row_elems, const std::vector<double>& runtime);
// Streams `array` (configs on the leading axis) from the archive.
ConfigGroups dedup_configs(const NpzReader& npz, const std::string& array, const std::vector<double>& runtime);

}  // namespace fastslow
