#include "train/many_runs.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <filesystem>
#include <map>

#include "fastslow/error.h"
#include "fastslow/rank/ensemble_combine.h"
#include "train/run_files.h"
#include "train/process.h"
#include "train/run_dir.h"
#include "train/train_state.h"

namespace fastslow::train {

namespace {

constexpr int kFormat = 1;

TrainOptions member_options(const TrainOptions& base, const std::string& mode, int index, const std::string& out) {
  TrainOptions m = base;
  m.out = member_dir(out, mode, index);
  if (mode == "folds") {
    m.fold = index;
  } else {
    m.split_seed = base.data_seed();  // one split for every member
    m.seed = base.seed + static_cast<uint64_t>(index);
  }
  return m;
}

ManyResult run_members(const std::string& out, const std::string& mode, int count, std::optional<int> only,
                       const TrainOptions& base, std::optional<int64_t> epochs, const Callbacks& callbacks,
                       const MemberHook& member) {
  ManyResult r;
  // Seed members read identical data (one split, one normaliser): it is
  // prepared once and shared by those that start fresh.
  std::shared_ptr<const PreparedData> shared;
  for (int i = 0; i < count; ++i) {
    if (only && *only != i) continue;
    const std::string dir = member_dir(out, mode, i);
    if (member) member(i, count, dir);
    TrainResult t;
    if (RunDir(dir).has("config.json")) {
      t = resume(dir, epochs, callbacks);
    } else {
      TrainOptions m = resolve_options(member_options(base, mode, i, out));
      if (epochs) m.epochs = epochs;
      if (mode == "seeds") {
        configure_process(m.threads);
        if (!shared)
          shared = std::make_shared<const PreparedData>(
              prepare(data_spec(m), pick_device(m.device), std::nullopt, preparation_progress(callbacks),
                      messages(callbacks)));
        const RunDir run(dir);
        run.create();
        write_run_header(run, m, *shared);
        t = run_prepared(m, shared, std::make_shared<GradientSync>(), callbacks);
      } else {
        t = train(m, callbacks);
      }
    }
    r.members.push_back(dir);
    r.results.push_back(t);
    r.last = t;
    if (t.interrupted() || t.reason == StopReason::Diverged) return r;
  }
  if (mode == "folds") {
    r.oof = out_of_fold(out);
    if (r.oof) RunDir(out).write_json("oof.json", *r.oof);
  }
  return r;
}

// Whether a run has stopped for good: all its epochs, or early stopping.
// A fold still training elsewhere (--fold) has a metrics.json already.
bool finished(const RunDir& run) {
  const std::optional<nlohmann::json> saved = saved_state(run);
  if (!saved || !run.has("config.json")) return false;
  const TrainState st = TrainState::from_json(*saved, run.file("last.pt"));
  const TrainOptions c = read_config(run);
  return st.epoch >= *c.epochs || (*c.patience > 0 && st.bad_epochs >= *c.patience);
}

double metric_of(const nlohmann::json& g, const std::string& kind) {
  const nlohmann::json& v = g[kind == "tile" ? "tile_score" : "kendall"];
  return v.is_number() ? v.get<double>() : std::nan("");
}

nlohmann::json stats_json(const std::vector<double>& v) {
  if (v.empty()) return nullptr;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return {{"mean", std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size())},
          {"sd", score_spread(v)},
          {"min", *lo},
          {"max", *hi}};
}

}  // namespace

bool is_many(const std::string& out) { return RunDir(out).has("runs.json"); }

std::string member_dir(const std::string& out, const std::string& mode, int index) {
  return (std::filesystem::path(out) / ((mode == "folds" ? "fold-" : "seed-") + std::to_string(index))).string();
}

ManyResult train_many(TrainOptions o, const ManyRuns& plan, const Callbacks& callbacks, const MemberHook& member) {
  if (plan.mode != "folds" && plan.mode != "seeds") throw Error("train_many: mode must be folds or seeds");
  if (o.out.empty()) throw Error("--out: no run folder given");
  const RunDir run(o.out);
  // Another fold of a plan already begun (folds spread over machines).
  if (plan.only && run.has("runs.json")) {
    const nlohmann::json j = run.read_json("runs.json");
    if (j.value("mode", "") != plan.mode || j.value("count", 0) != plan.count)
      throw Error(run.file("runs.json"), "", "holds " + std::to_string(j.value("count", 0)) + " " +
                                                  j.value("mode", std::string("?")) + ", not " +
                                                  std::to_string(plan.count) + " " + plan.mode);
    return resume_many(o.out, std::nullopt, plan.only, callbacks, member);
  }
  if (run.has("runs.json") || run.has("config.json"))
    throw Error(o.out, "", "already holds runs; continue them with --resume or choose another --out");
  if (plan.count < 2) throw Error("--" + plan.mode + " " + std::to_string(plan.count) + ": need at least 2");
  if (plan.only && (*plan.only < 0 || *plan.only >= plan.count))
    throw Error("--fold " + std::to_string(*plan.only) + ": must be in [0, " + std::to_string(plan.count) + ")");
  if (plan.mode == "folds") {
    o.folds = plan.count;
    o.fold = 0;
  }
  o.cache = o.cache_dir();  // the members share OUT's cache, not one each
  make_inputs_absolute(o);
  // Every member's options are checked before the first trains.
  for (int i = 0; i < plan.count; ++i) {
    const TrainOptions m = resolve_options(member_options(o, plan.mode, i, o.out));
    if (i == 0 || plan.mode == "folds") data_spec(m);  // fold assignment and files, before the folder exists
  }
  run.create();
  run.write_json("runs.json", {{"format", kFormat}, {"mode", plan.mode}, {"count", plan.count}, {"options", o.to_json()}});
  return run_members(o.out, plan.mode, plan.count, plan.only, o, std::nullopt, callbacks, member);
}

ManyResult resume_many(const std::string& out, std::optional<int64_t> epochs, std::optional<int> only,
                       const Callbacks& callbacks, const MemberHook& member) {
  const RunDir run(out);
  const nlohmann::json j = run.read_json("runs.json");
  std::string mode;
  int count = 0;
  TrainOptions base;
  try {
    if (j.at("format").get<int>() != kFormat) throw Error(run.file("runs.json"), "format", "unknown format");
    mode = j.at("mode").get<std::string>();
    count = j.at("count").get<int>();
    base = TrainOptions::from_json(j.at("options"), run.file("runs.json"));
  } catch (const nlohmann::json::exception& e) {
    throw Error(run.file("runs.json"), "", std::string("malformed: ") + e.what());
  }
  if ((mode != "folds" && mode != "seeds") || count < 2)
    throw Error(run.file("runs.json"), "", "malformed: mode " + mode + ", count " + std::to_string(count));
  if (only && (mode != "folds" || *only < 0 || *only >= count))
    throw Error("--fold " + std::to_string(*only) + ": " + out + " holds " + std::to_string(count) + " " + mode);
  base.out = out;
  if (epochs && (!base.epochs || *base.epochs != *epochs)) {
    // Members not begun yet (another machine's --fold) train as long as these.
    base.epochs = epochs;
    nlohmann::json updated = j;
    updated["options"] = base.to_json();
    run.write_json("runs.json", updated);
    std::filesystem::remove(run.file("oof.json"));  // it described the shorter runs
  }
  return run_members(out, mode, count, only, base, epochs, callbacks, member);
}

std::optional<nlohmann::json> out_of_fold(const std::string& out) {
  const RunDir run(out);
  const nlohmann::json plan = run.read_json("runs.json");
  if (plan.value("mode", "") != "folds") throw Error(run.file("runs.json"), "", "is not a folds plan");
  const int k = plan.at("count").get<int>();
  const std::string kind = plan.at("options").value("kind", "");
  nlohmann::json graphs = nlohmann::json::array();
  std::vector<double> fold_scores;
  std::map<std::string, std::vector<double>> by_collection;
  std::vector<double> all;
  std::string resolved_kind = kind;
  for (int f = 0; f < k; ++f) {
    const RunDir fold(member_dir(out, "folds", f));
    const std::optional<nlohmann::json> metrics = read_metrics(fold);
    if (!metrics || !finished(fold)) return std::nullopt;
    if (resolved_kind.empty()) resolved_kind = read_config(fold).kind;
    const nlohmann::json& m = *metrics;
    const nlohmann::json& s = m["score"];
    fold_scores.push_back(s.is_number() ? s.get<double>() : std::nan(""));
    for (nlohmann::json g : m.at("graphs")) {
      g["fold"] = f;
      const double v = metric_of(g, resolved_kind);
      if (std::isfinite(v)) {
        all.push_back(v);
        by_collection[g.value("collection", "")].push_back(v);
      }
      graphs.push_back(std::move(g));
    }
  }
  // Several collections count alike (as in validation); one: the graphs' mean.
  double score = std::nan("");
  nlohmann::json collections = nlohmann::json::object();
  if (!by_collection.empty()) {
    double sum = 0;
    for (const auto& [label, v] : by_collection) {
      double mean = 0;
      for (double x : v) mean += x;
      mean /= static_cast<double>(v.size());
      if (!label.empty()) collections[label] = {{"score", mean}, {"graphs", v.size()}};
      sum += mean;
    }
    score = sum / static_cast<double>(by_collection.size());
  }
  std::vector<double> finite;
  for (double x : fold_scores)
    if (std::isfinite(x)) finite.push_back(x);
  nlohmann::json j = {{"folds", k},
                      {"metric", resolved_kind == "tile" ? "tile_score" : "kendall"},
                      {"score", std::isfinite(score) ? nlohmann::json(score) : nlohmann::json(nullptr)},
                      {"scored", all.size()},
                      {"fold_scores", fold_scores},
                      {"fold_spread", stats_json(finite)},
                      {"graphs", graphs}};
  if (!collections.empty()) j["collections"] = collections;
  return j;
}

}  // namespace fastslow::train
