#include "fastslow/graph/dedup.h"

#include <cmath>
#include <cstring>

#include "fastslow/error.h"

namespace fastslow {

namespace {

// A runtime above 0 is a measurement; 0 is a config nobody measured.
bool measured(double r) { return r > 0 && std::isfinite(r); }

uint64_t fmix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

}  // namespace

void ConfigDeduplicator::add_rows(const float* rows, int64_t count) {
  for (int64_t r = 0; r < count; ++r) {
    const float* row = rows + r * row_elems_;
    // Two independent lanes give 128 bits.
    uint64_t a = 0x243f6a8885a308d3ull ^ static_cast<uint64_t>(row_elems_);
    uint64_t b = 0x13198a2e03707344ull;
    for (int64_t i = 0; i < row_elems_; ++i) {
      float v = row[i] == 0.0f ? 0.0f : row[i];  // -0 == +0
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      a = rotl(a ^ (bits * 0x87c37b91114253d5ull), 31) * 0x4cf5ad432745937full;
      b = rotl(b ^ (bits * 0x52dce729da3ed8d5ull), 29) * 0x9e3779b97f4a7c15ull + 0x38495ab5ull;
    }
    const Key key{fmix(a), fmix(b ^ a)};
    const auto it = groups_.emplace(key, static_cast<int64_t>(groups_.size())).first;
    group_of_.push_back(it->second);
  }
}

ConfigGroups ConfigDeduplicator::finish(const std::vector<double>& runtime) const {
  if (runtime.size() != group_of_.size())
    throw Error("dedup: " + std::to_string(runtime.size()) + " runtimes for " +
                std::to_string(group_of_.size()) + " configs");
  ConfigGroups g;
  g.group_of = group_of_;
  const size_t k = groups_.size();
  g.representative.assign(k, -1);
  g.best_runtime.assign(k, 0.0);
  g.group_size.assign(k, 0);
  g.row_key.assign(2 * k, 0);
  for (const auto& [key, grp] : groups_) g.row_key[2 * grp] = key.a, g.row_key[2 * grp + 1] = key.b;
  // A runtime of 0 is a config nobody measured (a test split, a proposal
  // merged in): a group's best is its least positive runtime, and 0 only
  // where none of its copies was measured.
  const auto better = [](double r, double best) { return measured(r) && (!measured(best) || r < best); };
  for (size_t i = 0; i < group_of_.size(); ++i) {
    const int64_t grp = group_of_[i];
    ++g.group_size[grp];
    if (g.representative[grp] < 0 || better(runtime[i], g.best_runtime[grp])) {
      g.representative[grp] = static_cast<int64_t>(i);
      g.best_runtime[grp] = runtime[i];
    }
  }
  return g;
}

std::vector<char> ConfigGroups::unmeasured() const {
  std::vector<char> out(best_runtime.size());
  for (size_t k = 0; k < out.size(); ++k) out[k] = !measured(best_runtime[k]);
  return out;
}

int64_t ConfigGroups::fastest_measured() const {
  int64_t best = -1;
  for (size_t k = 0; k < best_runtime.size(); ++k) {
    if (measured(best_runtime[k]) && (best < 0 || best_runtime[k] < best_runtime[static_cast<size_t>(best)]))
      best = static_cast<int64_t>(k);
  }
  return best;
}

std::vector<int64_t> ConfigGroups::expand_ranking(const std::vector<int64_t>& group_ranking) const {
  if (static_cast<int64_t>(group_ranking.size()) != num_groups())
    throw Error("ranking covers " + std::to_string(group_ranking.size()) + " groups of " +
                std::to_string(num_groups()));
  // Members of each group in index order, representative moved first.
  std::vector<int64_t> start(num_groups() + 1, 0);
  for (int64_t grp : group_of) ++start[grp + 1];
  for (int64_t k = 0; k < num_groups(); ++k) start[k + 1] += start[k];
  std::vector<int64_t> members(group_of.size()), fill(start.begin(), start.end() - 1);
  for (size_t i = 0; i < group_of.size(); ++i) members[fill[group_of[i]]++] = static_cast<int64_t>(i);

  std::vector<int64_t> out;
  out.reserve(group_of.size());
  std::vector<char> used(num_groups(), 0);
  for (int64_t grp : group_ranking) {
    if (grp < 0 || grp >= num_groups() || used[grp])
      throw Error("ranking holds an invalid or repeated group " + std::to_string(grp));
    used[grp] = 1;
    out.push_back(representative[grp]);
    for (int64_t q = start[grp]; q < start[grp + 1]; ++q)
      if (members[q] != representative[grp]) out.push_back(members[q]);
  }
  return out;
}

ConfigGroups dedup_configs(const std::vector<float>& rows, int64_t row_elems, const std::vector<double>& runtime) {
  ConfigDeduplicator d(row_elems);
  const int64_t n = row_elems > 0 ? static_cast<int64_t>(rows.size()) / row_elems : static_cast<int64_t>(runtime.size());
  d.add_rows(rows.data(), n);
  return d.finish(runtime);
}

ConfigGroups dedup_configs(const NpzReader& npz, const std::string& array, const std::vector<double>& runtime) {
  const NpyHeader& h = npz.header(array);
  ConfigDeduplicator d(h.rows() > 0 ? h.count() / h.rows() : 0);
  npz.for_each_float_chunk(array, [&](const float* rows, int64_t count, int64_t) { d.add_rows(rows, count); });
  return d.finish(runtime);
}

}  // namespace fastslow
