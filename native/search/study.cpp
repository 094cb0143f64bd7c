#include "search/study.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "fastslow/error.h"
#include "fastslow/io/remove_tree.h"
#include "fastslow/io/read_file.h"
#include "fastslow/io/write_file.h"
#include "fastslow/search/pareto.h"
#include "search/hypervolume.h"

namespace fs = std::filesystem;

namespace fastslow::search {
namespace {

std::string read_text(const fs::path& p) { return read_whole_file(p.string(), "cannot be read"); }

std::vector<Direction> directions(const std::vector<Objective>& objectives) {
  std::vector<Direction> d;
  for (const auto& o : objectives) d.push_back(o.direction);
  return d;
}

// The complete trials' values and their indices in study.trials.
std::vector<std::vector<double>> complete_points(const StudyFile& s, std::vector<size_t>* idx = nullptr) {
  std::vector<std::vector<double>> pts;
  for (size_t i = 0; i < s.trials.size(); ++i)
    if (auto v = objective_values(s.trials[i], s.objectives)) {
      pts.push_back(*v);
      if (idx) idx->push_back(i);
    }
  return pts;
}

std::optional<double> study_hypervolume(const StudyFile& s, const std::optional<std::vector<double>>& reference) {
  if (s.objectives.size() < 2) return std::nullopt;
  const auto pts = complete_points(s);
  const auto dirs = directions(s.objectives);
  return hypervolume(pts, dirs, reference ? *reference : default_reference(pts, dirs));
}

}  // namespace

StudyFile load_study(const std::string& out, const std::vector<Objective>& objectives) {
  const fs::path file = fs::path(out) / "trials.jsonl";
  StudyFile s;
  if (fs::exists(file)) s = parse_trials_jsonl(read_text(file), file.string());
  if (!s.trials.empty()) {
    bool same = s.objectives.size() == objectives.size();
    for (size_t i = 0; same && i < objectives.size(); ++i)
      same = s.objectives[i].name == objectives[i].name && s.objectives[i].direction == objectives[i].direction;
    if (!same)
      throw Error(file.string(), "", "the study's objectives differ from the configuration's; use another --out");
  }
  s.objectives = objectives;
  return s;
}

nlohmann::json pareto_json(const StudyFile& study, const std::optional<std::vector<double>>& reference) {
  nlohmann::ordered_json j;
  j["objectives"] = nlohmann::ordered_json::array();
  for (const auto& o : study.objectives) j["objectives"].push_back({{"name", o.name}, {"direction", direction_name(o.direction)}});
  const auto dirs = directions(study.objectives);
  const auto pts = complete_points(study);
  if (study.objectives.size() >= 2) {
    const auto ref = reference ? *reference : default_reference(pts, dirs);
    j["reference"] = ref;
    j["hypervolume"] = hypervolume(pts, dirs, ref);
  }
  j["trials"] = nlohmann::ordered_json::array();
  for (size_t i : pareto_trials(study)) j["trials"].push_back(trial_json(study.trials[i], study.objectives));
  return nlohmann::json(j);
}

StudyResult run_study(const StudySettings& settings, SearchSampler& sampler, const Pruner* pruner,
                      TrialRunner& runner, const StudyHooks& hooks) {
  if (settings.objectives.empty()) throw Error("search: no objectives");
  if (settings.parallel < 1) throw Error("search: --parallel must be at least 1");
  if (settings.reference && settings.reference->size() != settings.objectives.size())
    throw Error("search: the reference point needs one value per objective");
  const fs::path out(settings.out);
  fs::create_directories(out / "trials");
  const fs::path trials_file = out / "trials.jsonl", running_file = out / "running.json";

  StudyFile study = load_study(settings.out, settings.objectives);
  std::map<int64_t, nlohmann::json> running;  // started, not finished
  if (fs::exists(running_file)) {
    const nlohmann::json j = nlohmann::json::parse(read_text(running_file), nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw Error(running_file.string(), "", "not a JSON object");
    for (const auto& [k, v] : j.items()) running[std::stoll(k)] = v;
  }
  std::set<int64_t> done;
  int64_t next = 0;
  for (const Trial& t : study.trials) done.insert(t.number), next = std::max(next, t.number + 1);
  for (auto it = running.begin(); it != running.end();) {
    if (done.count(it->first)) it = running.erase(it);  // recorded just before a crash
    else next = std::max(next, it->first + 1), ++it;
  }
  std::vector<std::pair<int64_t, nlohmann::json>> to_resume(running.begin(), running.end());

  std::mutex mu;
  bool exhausted = false, interrupted = false;
  int64_t started = static_cast<int64_t>(study.trials.size());
  const int64_t checkpoints = runner.checkpoints();
  const Direction score_dir = settings.objectives.front().direction;

  auto save_running = [&] {  // under mu
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [n, p] : running) j[std::to_string(n)] = p;
    write_file_atomically(running_file.string(), j.dump(1) + "\n");
  };
  auto stop_asked = [&] { return hooks.stop && hooks.stop(); };

  auto tidy = [&] {  // under mu: run folders off the front go
    if (settings.keep_all) return;
    const std::vector<size_t> front = pareto_trials(study);
    std::set<int64_t> keep;
    for (size_t i : front) keep.insert(study.trials[i].number);
    for (const auto& [n, p] : running) keep.insert(n);
    for (const Trial& t : study.trials) {
      if (keep.count(t.number)) continue;
      const fs::path dir = out / "trials" / std::to_string(t.number);
      remove_tree(dir.string());
    }
  };

  auto worker = [&] {
    for (;;) {
      TrialContext ctx;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (exhausted || interrupted || stop_asked()) {
          interrupted |= stop_asked();
          return;
        }
        if (!to_resume.empty()) {
          ctx.number = to_resume.front().first;
          ctx.params = to_resume.front().second;
          ctx.resumed = true;
          to_resume.erase(to_resume.begin());
        } else {
          if (started >= settings.trials) return;
          std::optional<nlohmann::json> p = sampler.ask(next, study.trials);
          if (!p) {
            exhausted = true;
            return;
          }
          ctx.number = next++;
          ctx.params = *p;
        }
        ++started;
        running[ctx.number] = ctx.params;
        save_running();
      }
      ctx.dir = (out / "trials" / std::to_string(ctx.number)).string();
      if (hooks.trial_start) hooks.trial_start(ctx.number, ctx.params, ctx.resumed);

      Trial trial;
      trial.number = ctx.number;
      trial.params = ctx.params;
      trial.distributions = settings.distributions;
      trial.run = "trials/" + std::to_string(ctx.number);
      bool pruned = false;
      ctx.report = [&](int64_t checkpoint, double value) {
        trial.intermediate.emplace_back(checkpoint, value);
        if (!pruner) return false;
        std::lock_guard<std::mutex> lock(mu);
        pruned = pruner->prune(trial, study.trials, score_dir, checkpoints);
        return pruned;
      };
      ctx.stop = stop_asked;
      const auto t0 = std::chrono::steady_clock::now();
      TrialOutcome outcome;
      try {
        outcome = runner.run(ctx);
      } catch (const std::exception& e) {
        outcome = {};
        outcome.state = TrialState::Failed;
        outcome.message = e.what();
      }
      trial.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::lock_guard<std::mutex> lock(mu);
      if (outcome.interrupted) {
        interrupted = true;
        return;
      }
      trial.state = outcome.state;
      trial.objectives = outcome.objectives;
      trial.message = outcome.message;
      if (pruned && trial.state == TrialState::Pruned && trial.message.empty()) trial.message = pruner->why(trial);
      if (trial.state == TrialState::Complete && !objective_values(trial, study.objectives)) {
        trial.state = TrialState::Failed;
        if (trial.message.empty()) trial.message = "an objective was not finite or not measured";
      }
      study.trials.push_back(trial);
      study.trials.back().hypervolume = study_hypervolume(study, settings.reference);
      // Rewritten whole (renamed over): a crash never leaves a cut line.
      std::string lines;
      for (const Trial& t : study.trials) lines += trial_json(t, study.objectives).dump() + "\n";
      write_file_atomically(trials_file.string(), lines);
      sampler.tell(study.trials.back());
      running.erase(trial.number);
      save_running();
      write_file_atomically((out / "pareto.json").string(), pareto_json(study, settings.reference).dump(1) + "\n");
      tidy();
      if (hooks.trial_end)
        hooks.trial_end(study.trials.back(), static_cast<int64_t>(study.trials.size()), settings.trials);
    }
  };

  if (settings.parallel == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (int i = 0; i < settings.parallel; ++i) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  std::sort(study.trials.begin(), study.trials.end(), [](const Trial& a, const Trial& b) { return a.number < b.number; });
  StudyResult r;
  r.front = pareto_trials(study);
  r.study = std::move(study);
  r.interrupted = interrupted;
  r.exhausted = exhausted;
  return r;
}

}  // namespace fastslow::search
