// The ranking table a ranking is downloaded or saved as: one row per config,
// best first, `rank,config,group,score,runtime`. `fastslow rank --csv` and the
// page's "Download table" write it with this one formatter, so the two files
// compare line by line (the parity tests read the CLI's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fastslow {

// `ranking`: every config, best first; `group_of`: config -> duplicate group;
// `group_scores`: per group (lower = faster); `runtime`: per config, or empty
// for a file without measured runtimes (the column is left blank). Scores and
// runtimes are written with 9 significant digits (float32 round-trips).
// Throws Error when an index falls outside the vectors it indexes.
std::string ranking_csv(const std::vector<int64_t>& ranking, const std::vector<int64_t>& group_of,
                        const std::vector<double>& group_scores, const std::vector<double>& runtime);

}  // namespace fastslow
