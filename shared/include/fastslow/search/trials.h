// A study's trials as `fastslow search` writes them to trials.jsonl: one
// JSON object per line, each self-contained (it carries the objectives'
// directions), so the page can open the file alone:
//   {"number":3,"state":"complete","params":{"hidden":32,"lr":0.002},
//    "objectives":{"score":0.61,"latency":2.4},
//    "directions":{"score":"maximize","latency":"minimize"},
//    "intermediate":[[1,0.52],[2,0.58]],"seconds":41.2,
//    "hypervolume":0.37,"run":"trials/3","message":"",
//    "distributions":{"hidden":{"type":"categorical","choices":[16,32]},
//                     "lr":{"type":"float","low":1e-4,"high":1e-2,"log":true}}}
// state: "complete" (every objective measured), "pruned" (stopped early;
// objectives hold what was measured, usually none), "failed" (crashed or
// diverged; `message` says why). "distributions" (distribution.h) says how
// each parameter was drawn; files written before it existed lack it.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fastslow/search/distribution.h"

namespace fastslow::search {

enum class TrialState { Complete, Pruned, Failed };
enum class Direction { Maximize, Minimize };

const char* state_name(TrialState s);          // "complete", "pruned", "failed"
const char* direction_name(Direction d);       // "maximize", "minimize"
// Throws Error naming `what` on any other word.
Direction parse_direction(const std::string& s, const std::string& what);

struct Objective {
  std::string name;
  Direction direction = Direction::Maximize;
};

struct Trial {
  int64_t number = 0;
  TrialState state = TrialState::Complete;
  nlohmann::json params = nlohmann::json::object();   // parameter name -> value
  std::map<std::string, double> objectives;            // objective name -> value
  std::vector<std::pair<int64_t, double>> intermediate;  // checkpoint (1-based) -> validation score
  double seconds = 0;
  std::optional<double> hypervolume;  // of the front after this trial (several objectives)
  std::string run;                    // the trial's run folder, relative to the study ("" once removed)
  std::string message;
  std::map<std::string, Distribution> distributions;  // parameter name -> how it was drawn
};

// Ordered as above, objectives in the study's order.
nlohmann::ordered_json trial_json(const Trial& t, const std::vector<Objective>& objectives);
// Throws Error naming `what` when a field is missing or of the wrong type.
Trial parse_trial(const nlohmann::json& j, const std::string& what);

struct StudyFile {
  std::vector<Objective> objectives;  // in the order the first trial lists them
  std::vector<Trial> trials;          // in file order
  // How each parameter was drawn, from the trials that say (a parameter
  // drawn two ways is an Error): none for files written before.
  std::map<std::string, Distribution> distributions;
};

// Parses trials.jsonl text. Blank lines are skipped; a malformed line, a
// trial whose directions disagree with an earlier one's, or a repeated
// number is an Error naming `what` and the line.
StudyFile parse_trials_jsonl(const std::string& text, const std::string& what);

// The trial's objective values in `objectives`' order; nullopt unless the
// trial is complete and has every one, each finite.
std::optional<std::vector<double>> objective_values(const Trial& t, const std::vector<Objective>& objectives);

}  // namespace fastslow::search
