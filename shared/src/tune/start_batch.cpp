#include "fastslow/tune/start_batch.h"

#include <map>
#include <numeric>

#include "fastslow/error.h"
#include "fastslow/tune/pick.h"

namespace fastslow {

StartFrom parse_start_from(const std::string& name) {
  for (StartFrom s : {StartFrom::Common, StartFrom::Random})
    if (name == start_from_name(s)) return s;
  throw Error("--start-from '" + name + "': one of common, random");
}

const char* start_from_name(StartFrom s) { return s == StartFrom::Common ? "common" : "random"; }

int64_t most_common_config(const CachedGraph& g) {
  std::vector<int64_t> all(static_cast<size_t>(g.groups.num_groups()));
  std::iota(all.begin(), all.end(), int64_t{0});
  return most_common_config(g, g.config_rows(all));
}

int64_t most_common_config(const CachedGraph& g, const std::vector<float>& rows) {
  const int64_t n = g.groups.num_groups();
  if (n == 0) throw Error(g.source, "", "holds no configs to start from");
  if (static_cast<int64_t>(rows.size()) != n * g.config_row_elems)
    throw Error(g.source, "", "most common config: " + std::to_string(rows.size()) + " values for " +
                                  std::to_string(n) + " configs of " + std::to_string(g.config_row_elems));
  // A layout setting is a node's row; a tile config's settings are its bounds.
  const bool layout = g.kind == GraphKind::Layout;
  const int64_t w = g.config_feat_width;
  const int64_t units = layout ? g.config_row_elems / w : g.config_row_elems;
  const int64_t unit_width = layout ? w : 1;
  const auto unit_at = [&](int64_t k, int64_t u) {
    const float* r = rows.data() + k * g.config_row_elems + u * unit_width;
    return std::vector<float>(r, r + unit_width);
  };
  std::vector<std::vector<float>> mode(static_cast<size_t>(units));
  for (int64_t u = 0; u < units; ++u) {
    std::map<std::vector<float>, int64_t> count;
    for (int64_t k = 0; k < n; ++k) count[unit_at(k, u)] += g.groups.group_size[static_cast<size_t>(k)];
    // Ties go to the smallest setting (std::map's order): the same on every build.
    int64_t top = -1;
    for (const auto& [setting, c] : count)
      if (c > top) top = c, mode[static_cast<size_t>(u)] = setting;
  }
  int64_t best = 0, best_away = units + 1;
  for (int64_t k = 0; k < n && best_away > 0; ++k) {
    int64_t away = 0;
    for (int64_t u = 0; u < units && away < best_away; ++u) away += unit_at(k, u) != mode[static_cast<size_t>(u)];
    if (away < best_away) best_away = away, best = k;
  }
  return best;
}

std::vector<int64_t> start_batch(const std::vector<char>& measured, int64_t count, StartFrom from, int64_t common,
                                 Rng& rng) {
  if (count < 1) throw Error("start: the batch must hold at least 1 config, got " + std::to_string(count));
  const PickSettings random{PickStrategy::Random};
  if (from == StartFrom::Random) return pick_batch({}, {}, measured, count, random, rng);
  if (common < 0 || common >= static_cast<int64_t>(measured.size()))
    throw Error("start: the common config " + std::to_string(common) + " is not one of the " +
                std::to_string(measured.size()) + " candidates");
  if (measured[static_cast<size_t>(common)]) return pick_batch({}, {}, measured, count, random, rng);
  std::vector<char> rest = measured;
  rest[static_cast<size_t>(common)] = 1;
  std::vector<int64_t> out{common};
  if (count > 1) {
    const std::vector<int64_t> more = pick_batch({}, {}, rest, count - 1, random, rng);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

}  // namespace fastslow
