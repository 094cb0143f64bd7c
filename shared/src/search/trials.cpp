#include "fastslow/search/trials.h"

#include <cmath>
#include <set>

#include "fastslow/error.h"

namespace fastslow::search {

const char* state_name(TrialState s) {
  switch (s) {
    case TrialState::Complete: return "complete";
    case TrialState::Pruned: return "pruned";
    case TrialState::Failed: return "failed";
  }
  return "?";
}

const char* direction_name(Direction d) { return d == Direction::Maximize ? "maximize" : "minimize"; }

Direction parse_direction(const std::string& s, const std::string& what) {
  if (s == "maximize") return Direction::Maximize;
  if (s == "minimize") return Direction::Minimize;
  throw Error(what, "", "direction must be \"maximize\" or \"minimize\", got \"" + s + "\"");
}

nlohmann::ordered_json trial_json(const Trial& t, const std::vector<Objective>& objectives) {
  nlohmann::ordered_json j;
  j["number"] = t.number;
  j["state"] = state_name(t.state);
  j["params"] = t.params;
  nlohmann::ordered_json obj = nlohmann::ordered_json::object(), dirs = nlohmann::ordered_json::object();
  for (const auto& o : objectives) {
    dirs[o.name] = direction_name(o.direction);
    auto it = t.objectives.find(o.name);
    if (it != t.objectives.end() && std::isfinite(it->second)) obj[o.name] = it->second;
  }
  j["objectives"] = obj;
  j["directions"] = dirs;
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& [step, v] : t.intermediate)
    steps.push_back(std::isfinite(v) ? nlohmann::json::array({step, v}) : nlohmann::json::array({step, nullptr}));
  j["intermediate"] = steps;
  j["seconds"] = t.seconds;
  j["hypervolume"] = t.hypervolume ? nlohmann::json(*t.hypervolume) : nlohmann::json(nullptr);
  j["run"] = t.run;
  j["message"] = t.message;
  if (!t.distributions.empty()) {
    nlohmann::ordered_json d = nlohmann::ordered_json::object();
    for (const auto& [name, dist] : t.distributions) d[name] = dist.to_json();
    j["distributions"] = d;
  }
  return j;
}

Trial parse_trial(const nlohmann::json& j, const std::string& what) {
  Trial t;
  try {
    if (!j.is_object()) throw Error(what, "", "a trial must be a JSON object");
    t.number = j.at("number").get<int64_t>();
    const std::string state = j.at("state").get<std::string>();
    if (state == "complete") t.state = TrialState::Complete;
    else if (state == "pruned") t.state = TrialState::Pruned;
    else if (state == "failed") t.state = TrialState::Failed;
    else throw Error(what, "", "state must be complete, pruned or failed, got \"" + state + "\"");
    t.params = j.at("params");
    if (!t.params.is_object()) throw Error(what, "", "params must be an object");
    for (const auto& [k, v] : j.at("objectives").items())
      if (!v.is_null()) t.objectives[k] = v.get<double>();
    if (j.contains("intermediate"))
      for (const auto& p : j.at("intermediate"))
        t.intermediate.emplace_back(p.at(0).get<int64_t>(), p.at(1).is_null() ? NAN : p.at(1).get<double>());
    if (j.contains("seconds")) t.seconds = j.at("seconds").get<double>();
    if (j.contains("hypervolume") && !j.at("hypervolume").is_null()) t.hypervolume = j.at("hypervolume").get<double>();
    if (j.contains("run")) t.run = j.at("run").get<std::string>();
    if (j.contains("message")) t.message = j.at("message").get<std::string>();
    if (j.contains("distributions")) {
      if (!j.at("distributions").is_object()) throw Error(what, "", "distributions must be an object");
      for (const auto& [name, d] : j.at("distributions").items())
        t.distributions[name] = Distribution::from_json(d, what + ": parameter " + name);
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(what, "", std::string("malformed trial: ") + e.what());
  }
  return t;
}

StudyFile parse_trials_jsonl(const std::string& text, const std::string& what) {
  StudyFile study;
  std::set<int64_t> numbers;
  size_t start = 0;
  int line_no = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = what + ":" + std::to_string(line_no);
    // Ordered: the directions' order is the objectives' (the page's axes).
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(line, nullptr, false);
    if (j.is_discarded()) throw Error(where, "", "not a JSON object (a line cut short by a crash?)");
    Trial t = parse_trial(nlohmann::json(j), where);
    if (!numbers.insert(t.number).second) throw Error(where, "", "trial " + std::to_string(t.number) + " appears twice");
    std::vector<Objective> dirs;
    try {
      if (j.contains("directions"))
        for (const auto& [k, v] : j.at("directions").items()) dirs.push_back({k, parse_direction(v.get<std::string>(), where)});
    } catch (const nlohmann::json::exception& e) {
      throw Error(where, "", std::string("malformed directions: ") + e.what());
    }
    if (study.objectives.empty()) {
      study.objectives = dirs;
    } else if (!dirs.empty()) {
      bool same = dirs.size() == study.objectives.size();
      for (const auto& d : dirs) {
        bool found = false;
        for (const auto& o : study.objectives) found |= o.name == d.name && o.direction == d.direction;
        same &= found;
      }
      if (!same) throw Error(where, "", "objectives or directions differ from the first trial's: two studies in one file?");
    }
    for (const auto& [name, d] : t.distributions) {
      const auto [it, added] = study.distributions.emplace(name, d);
      if (!added && it->second.to_json() != d.to_json())
        throw Error(where, "", "parameter " + name + " is drawn from " + d.to_json().dump() + " here and from " +
                                   it->second.to_json().dump() + " before: two studies in one file?");
    }
    study.trials.push_back(std::move(t));
  }
  return study;
}

std::optional<std::vector<double>> objective_values(const Trial& t, const std::vector<Objective>& objectives) {
  if (t.state != TrialState::Complete) return std::nullopt;
  std::vector<double> v;
  for (const auto& o : objectives) {
    auto it = t.objectives.find(o.name);
    if (it == t.objectives.end() || !std::isfinite(it->second)) return std::nullopt;
    v.push_back(it->second);
  }
  return v;
}

}  // namespace fastslow::search
