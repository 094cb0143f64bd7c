#include "fastslow/data/common_settings.h"

#include <map>
#include <string>

#include "fastslow/error.h"

namespace fastslow {

SettingShape setting_shape(const CachedGraph& g) {
  if (g.kind == GraphKind::Layout && g.config_feat_width > 0)
    return {g.config_row_elems / g.config_feat_width, g.config_feat_width};
  return {g.config_row_elems, 1};
}

std::vector<float> most_common_settings(const CachedGraph& g) {
  return most_common_settings(g, g.config_rows(g.all_groups()));
}

std::vector<float> most_common_settings(const CachedGraph& g, const std::vector<float>& rows) {
  const int64_t n = g.groups.num_groups(), row = g.config_row_elems;
  if (n == 0) throw Error(g.source, "", "holds no configs");
  if (static_cast<int64_t>(rows.size()) != n * row)
    throw Error(g.source, "", "most common settings: " + std::to_string(rows.size()) + " values for " +
                                  std::to_string(n) + " configs of " + std::to_string(row));
  const SettingShape s = setting_shape(g);
  std::vector<float> common(static_cast<size_t>(row));
  for (int64_t u = 0; u < s.units; ++u) {
    std::map<std::vector<float>, int64_t> count;
    for (int64_t k = 0; k < n; ++k) {
      const float* r = rows.data() + k * row + u * s.width;
      count[std::vector<float>(r, r + s.width)] += g.groups.group_size[static_cast<size_t>(k)];
    }
    // The first of the most counted: the smallest value (std::map's order).
    const auto top = std::max_element(count.begin(), count.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
    std::copy(top->first.begin(), top->first.end(), common.begin() + u * s.width);
  }
  return common;
}

}  // namespace fastslow
