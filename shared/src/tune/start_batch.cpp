#include "fastslow/tune/start_batch.h"

#include <algorithm>

#include "fastslow/data/common_settings.h"
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
  return most_common_config(g, g.config_rows(g.all_groups()));
}

int64_t most_common_config(const CachedGraph& g, const std::vector<float>& rows, const std::vector<char>& skip) {
  const std::vector<float> common = most_common_settings(g, rows);
  const SettingShape s = setting_shape(g);
  const int64_t n = g.groups.num_groups();
  int64_t best = -1, best_away = s.units + 1;
  for (int64_t k = 0; k < n && best_away > 0; ++k) {
    if (static_cast<size_t>(k) < skip.size() && skip[static_cast<size_t>(k)]) continue;
    const float* r = rows.data() + k * g.config_row_elems;
    int64_t away = 0;
    for (int64_t u = 0; u < s.units && away < best_away; ++u)
      away += !std::equal(r + u * s.width, r + (u + 1) * s.width, common.begin() + u * s.width);
    if (away < best_away) best_away = away, best = k;
  }
  if (best < 0) throw Error(g.source, "", "most common config: every config is left out");
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
