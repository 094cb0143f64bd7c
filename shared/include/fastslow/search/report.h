// A study's report: the table a study prints at its end and
// `fastslow search --report` prints, and the figures it writes for papers
// (standalone SVG; each point's tooltip names its trial, parameters and
// objectives). The page draws the same figures from trials.jsonl.
#pragma once

#include <string>
#include <vector>

#include "fastslow/search/trials.h"

namespace fastslow::search {

// "Best trial(s):" and a `|`-separated table of the Pareto trials (for one
// objective, the best), best first in the first objective: the trial
// number, each objective, then every parameter the listed trials have.
std::string best_trials_table(const StudyFile& s);

// One line: the trials per state, their time, the best value of the first
// objective and the latest hypervolume.
std::string study_summary(const StudyFile& s);

// The complete trials over objectives x and y, the Pareto front of those
// two as a step line through its (numbered) trials. A study of one
// objective gets history_svg(s, x) instead. Throws Error on a name that is
// not one of the study's objectives.
std::string front_svg(const StudyFile& s, const std::string& x, const std::string& y);

// The objective of each complete trial against its number, and the best so
// far.
std::string history_svg(const StudyFile& s, const std::string& objective);

// One panel per parameter: the objective of each complete trial against the
// parameter's value (categories on evenly spaced slots).
std::string params_svg(const StudyFile& s, const std::string& objective);

struct Report {
  std::string text;                // the summary line and the table
  std::vector<std::string> paths;  // the figures written
};

// Writes front.svg (the first objective, usually the score, up the y axis
// against the second along x; the history for one objective) and
// params.svg (against the first objective) into `dir`, creating it.
// Throws Error when the study has no objectives (no trials and none given).
Report write_report(const StudyFile& s, const std::string& dir);

}  // namespace fastslow::search
