#include "tune/session.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#include "fastslow/data/graph_cache.h"
#include "fastslow/error.h"
#include "fastslow/io/json_text.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/io/read_file.h"
#include "fastslow/io/write_file.h"
#include "fastslow/rng.h"
#include "tune/measure.h"
#include "tune/propose.h"
#include "tune/scorers.h"
#include "tune/session_effects.h"

namespace fastslow::tune {
namespace {

namespace fs = std::filesystem;

// What must match for a session folder to go on: the rounds may grow.
nlohmann::json identity(const TuneSettings& s) {
  nlohmann::json j = {{"graph", fs::absolute(s.graph).lexically_normal().string()},
          {"predictor", s.predictor},
          {"measure", s.measure},
          {"batch", s.batch},
          {"start", s.start},
          {"start_from", start_from_name(s.start_from)},
          {"strategy", pick_strategy_name(s.pick.strategy)},
          {"epsilon", s.pick.epsilon},
          {"kappa", s.pick.kappa},
          {"seed", s.seed},
          {"init", s.run.init}};
  // Only where given: sessions from before the option go on.
  if (!s.model_run.empty()) j["model_run"] = fs::absolute(s.model_run).lexically_normal().string();
  return j;
}

std::string round_dir(const TuneSettings& s, int64_t r) {
  char b[32];
  std::snprintf(b, sizeof b, "round-%03lld", static_cast<long long>(r));
  return (fs::path(s.out) / b).string();
}

bool ratio_runtimes(const TuneSettings& s, const CachedGraph& g) {
  return g.kind == GraphKind::Tile && s.measure == "file";
}

void write_state(const TuneSettings& s, const TuneTrace& t, const CachedGraph& g, double best_known, int64_t left_out,
                 const nlohmann::json& proposals = nullptr) {
  const bool ratio = ratio_runtimes(s, g);
  nlohmann::json j = identity(s);
  j["runtime_unit"] = ratio ? "runtime / normalizer" : "ns";
  j["rounds"] = s.rounds;
  j["candidates"] = g.groups.num_groups() - left_out;
  if (left_out > 0) j["left_out_without_runtime"] = left_out;
  j["measured"] = trace_json(t);
  if (!t.steps.empty()) {
    const auto b = std::min_element(t.steps.begin(), t.steps.end(),
                                     [](const TuneStep& a, const TuneStep& c) { return a.runtime < c.runtime; });
    j["best"] = {{"config", g.groups.representative[static_cast<size_t>(b->candidate)]}, {"runtime", b->runtime}};
  }
  if (best_known > 0) {
    const TraceSummary sum = summarize_trace(t, best_known);
    j["file_best_runtime"] = best_known;
    j["measurements_to_within_0.1%"] = sum.to_target;
    j["time_to_within_0.1%"] = sum.time_to_target;
  }
  const SessionEffects effects = session_effects(g, t);
  if (!effects.json.is_null()) j["node_effects"] = effects.json;
  if (!proposals.is_null()) j["proposals"] = proposals;
  write_file_atomically((fs::path(s.out) / "tune.json").string(), j.dump(1));
  std::ostringstream csv;
  csv.precision(9);
  csv << (ratio ? "config,runtime_over_normalizer,round\n" : "config,runtime_ns,round\n");
  for (const TuneStep& st : t.steps) {
    csv << g.groups.representative[static_cast<size_t>(st.candidate)] << ',';
    if (ratio) csv << st.runtime;
    else csv << static_cast<int64_t>(std::llround(st.runtime));
    csv << ',' << st.round << '\n';
  }
  write_file_atomically((fs::path(s.out) / "measured.csv").string(), csv.str());
}

TuneTrace read_state(const TuneSettings& s) {
  const std::string path = (fs::path(s.out) / "tune.json").string();
  if (!fs::exists(path)) return {};
  const nlohmann::json j = parse_json_text(read_whole_file(path), path, "is not JSON");
  const nlohmann::json want = identity(s);
  for (const auto& [k, v] : want.items())
    if (!j.contains(k) || j[k] != v)
      throw Error(path, "",
                  "holds a session with " + k + " " + (j.contains(k) ? j[k].dump() : "missing") + ", not " + v.dump() +
                      ": continue it with the same settings or choose another --out");
  return trace_from_json(j["measured"], path.c_str());
}

std::string shown(double v, bool ratio) {
  char b[48];
  if (ratio) std::snprintf(b, sizeof b, "%.5g x the normalizer", v);
  else std::snprintf(b, sizeof b, "%.4g ms", v / 1e6);
  return b;
}

// Fits the predictor on every measurement (a folder per measurement count,
// so a session that goes on fits again) and proposes configs nobody
// measured; tune.json gets "proposals".
void propose_after(const TuneSettings& s, const CachedGraph& g, Scorer& scorer, TuneOutcome& outcome, const TuneSay& say,
                   const TuneStop& stop, const TuneProgress& progress) {
  Measured m;
  for (const TuneStep& st : outcome.trace.steps) m.candidates.push_back(st.candidate), m.runtimes.push_back(st.runtime);
  const std::string dir = (fs::path(s.out) / ("propose-" + std::to_string(m.candidates.size()))).string();
  if (say) say("proposing " + std::to_string(s.propose) + " configs nobody measured (" + space_kind_name(s.space) +
               " space, " + std::to_string(s.search.budget) + " candidates), " +
               (scorer.name() == "run" ? "scored by the run " + s.model_run + " (calibrated on " +
                                             std::to_string(m.candidates.size()) + " measurements)"
                                       : "from a " + scorer.name() + " model fitted on " +
                                             std::to_string(m.candidates.size()) + " measurements"));
  std::unique_ptr<Fitted> model = scorer.fit(m, dir);
  std::unique_ptr<Fitted> second;
  if (scorer.name() != "ridge") second = make_ridge_scorer(g, s.seed)->fit(m, dir);
  ProposeRequest request;
  request.count = s.propose;
  request.space = s.space;
  request.search = s.search;
  request.search.seed = s.seed;
  request.ratio = outcome.ratio;
  const ProposeOutcome o = propose(g, *model, second.get(), m, request, progress, stop);
  outcome.proposals = write_proposals(s.out, GraphOut(s.graph), o, request);
  outcome.interrupted = o.interrupted;
  write_state(s, outcome.trace, g, outcome.best_known, outcome.left_out, outcome.proposals);
}

}  // namespace

TuneOutcome run_session(const TuneSettings& s, const TuneSay& say, const TuneStop& stop, const TuneProgress& progress) {
  if (s.out.empty()) throw Error("--out: no session folder given");
  if (s.batch < 1 || s.start < 1 || s.rounds < 0)
    throw Error("--batch and --start must be at least 1 and --rounds at least 0");
  if (s.propose < 0) throw Error("--propose: a count of at least 0");
  if (s.predictor != "fastslow" && s.predictor != "ridge" && s.predictor != "physics" && s.predictor != "run")
    throw Error("--predictor '" + s.predictor + "': fastslow, ridge, physics or run");
  if ((s.predictor == "run") != !s.model_run.empty())
    throw Error("--model-run RUN goes with --predictor run (and --predictor run needs it)");
  const std::string cache = (fs::path(s.out) / ".cache").string();
  fs::create_directories(s.out);
  const CachedGraph g = CachedGraph::open(s.graph, {cache, s.run.khop});
  // A space that does not fit the graph fails now, not after the rounds. A
  // tile kernel's few configs are cheap to build it from; a layout graph's
  // spaces only depend on its kind.
  if (s.propose > 0) {
    if (g.kind == GraphKind::Tile) {
      std::vector<int64_t> all(static_cast<size_t>(g.groups.num_groups()));
      for (size_t k = 0; k < all.size(); ++k) all[k] = static_cast<int64_t>(k);
      config_space(g, g.config_rows(all), s.space);
    } else {
      check_space(g, s.space);
    }
  }
  TuneOutcome outcome;
  outcome.candidates = g.groups.num_groups();
  outcome.ratio = ratio_runtimes(s, g);
  std::unique_ptr<Measurer> measurer = make_measurer(s.measure, g, s.measure_timeout);
  // Never picked: counted as measured in every round's mask, not traced.
  const std::vector<char> left_out = measurer->unmeasurable(outcome.candidates);
  outcome.left_out = std::count(left_out.begin(), left_out.end(), 1);
  if (s.measure == "file")  // a command's runtimes are not the file's
    outcome.best_known = g.groups.best_runtime[static_cast<size_t>(g.groups.fastest_measured())];
  std::unique_ptr<Scorer> scorer;
  if (s.predictor == "ridge") {
    scorer = make_ridge_scorer(g, s.seed);
  } else if (s.predictor == "physics") {
    scorer = make_physics_scorer(g, s.seed);
  } else if (s.predictor == "run") {
    scorer = make_loaded_scorer(s.model_run, g, s.run.device, s.seed);
  } else {
    train::TrainOptions o = s.run;
    o.cache = cache;
    o.seed = s.seed;  // the session's seed is its runs' too
    scorer = make_run_scorer(g, s.graph, o, s.seed);
  }

  TuneTrace& t = outcome.trace;
  t = read_state(s);
  const int64_t common =
      s.start_from == StartFrom::Common && t.steps.empty() ? most_common_config(g, g.config_rows(g.all_groups()), left_out) : -1;
  for (const TuneStep& st : t.steps)
    if (st.candidate >= outcome.candidates)
      throw Error((fs::path(s.out) / "tune.json").string(), "", "measured: names a config the graph does not have");
  if (!t.steps.empty() && say)
    say("going on from " + std::to_string(t.steps.size()) + " measurements in " + std::to_string(t.rounds()) + " rounds");
  if (say)
    say("candidates: " + std::to_string(outcome.candidates - outcome.left_out) + " unique configs of " + s.graph +
        (outcome.left_out > 0 ? " (" + std::to_string(outcome.left_out) + " more without a runtime there, left out)" : "") +
        "; runtimes " + measurer->describe());

  for (int64_t r = t.rounds(); r <= s.rounds; ++r) {
    if (stop && stop()) {
      outcome.interrupted = true;
      break;
    }
    std::vector<char> measured = t.measured_mask(outcome.candidates);
    for (size_t c = 0; c < measured.size(); ++c) measured[c] |= left_out[c];
    if (std::count(measured.begin(), measured.end(), 0) == 0) break;
    // A per-round stream: a resumed session picks what the uncut one would.
    Rng rng(s.seed * 1000003ull + static_cast<uint64_t>(r));
    std::vector<int64_t> picks;
    std::string note;  // what the round's model chose
    const std::string dir = round_dir(s, r);
    if (r == 0) {
      picks = start_batch(measured, s.start, s.start_from, common, rng);
    } else if (s.pick.strategy == PickStrategy::Random) {  // the reference order needs no model
      picks = pick_batch({}, {}, measured, s.batch, s.pick, rng);
    } else {
      Measured m;
      for (const TuneStep& st : t.steps) m.candidates.push_back(st.candidate), m.runtimes.push_back(st.runtime);
      const Prediction p = scorer->predict(m, dir);
      picks = pick_batch(p.score, p.spread, measured, s.batch, s.pick, rng);
      note = scorer->fitted_note(dir);
    }
    const std::vector<double> rt = measurer->measure(picks, dir);
    for (size_t i = 0; i < picks.size(); ++i) t.steps.push_back({picks[i], rt[i], r});
    write_state(s, t, g, outcome.best_known, outcome.left_out);
    if (say) {
      const TraceSummary sum = summarize_trace(t, outcome.best_known > 0 ? outcome.best_known : 1.0);
      std::string line = "round " + std::to_string(r) + ": " + std::to_string(picks.size()) + " measured (" +
                         std::to_string(t.steps.size()) + " in all), best " + shown(sum.best, outcome.ratio) + ", measuring time " +
                         shown(sum.time_total, outcome.ratio);
      if (outcome.best_known > 0) {
        char b[64];
        std::snprintf(b, sizeof b, ", %.2f %% over the file's best", 100.0 * (sum.best / outcome.best_known - 1));
        line += b;
      }
      if (!note.empty()) line += "; " + note;
      say(line);
    }
  }
  if (say) {
    const SessionEffects effects = session_effects(g, t);
    if (!effects.line.empty()) say(effects.line);
  }
  if (s.propose > 0 && !outcome.interrupted && !t.steps.empty()) propose_after(s, g, *scorer, outcome, say, stop, progress);
  return outcome;
}

}  // namespace fastslow::tune
