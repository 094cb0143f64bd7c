#include "fastslow/rank/ranking_csv.h"

#include <cstdio>

#include "fastslow/error.h"

namespace fastslow {

namespace {

void check_index(int64_t i, size_t size, const char* what) {
  if (i < 0 || static_cast<size_t>(i) >= size)
    throw Error("ranking table: " + std::string(what) + " " + std::to_string(i) + " out of range [0, " +
                std::to_string(size) + ")");
}

}  // namespace

std::string ranking_csv(const std::vector<int64_t>& ranking, const std::vector<int64_t>& group_of,
                        const std::vector<double>& group_scores, const std::vector<double>& runtime) {
  std::string text = "rank,config,group,score,runtime\n";
  char buf[128];
  for (size_t i = 0; i < ranking.size(); ++i) {
    const int64_t c = ranking[i];
    check_index(c, group_of.size(), "config");
    const int64_t g = group_of[c];
    check_index(g, group_scores.size(), "group");
    std::snprintf(buf, sizeof buf, "%zu,%lld,%lld,%.9g,", i + 1, static_cast<long long>(c), static_cast<long long>(g),
                  group_scores[g]);
    text += buf;
    if (!runtime.empty()) {
      check_index(c, runtime.size(), "runtime of config");
      std::snprintf(buf, sizeof buf, "%.9g", runtime[c]);
      text += buf;
    }
    text += '\n';
  }
  return text;
}

}  // namespace fastslow
