#include "tune/propose.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <sstream>

#include "fastslow/error.h"
#include "fastslow/features/layout_context.h"
#include "fastslow/io/write_file.h"
#include "fastslow/tune/graph_space.h"

namespace fastslow::tune {
namespace {

using Clock = std::chrono::steady_clock;

// Anchors: enough measured-fast configs that the trust region is not one
// config's neighbourhood, few enough that each gets many children.
constexpr size_t kAnchors = 8;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

ProposeOutcome propose(const CachedGraph& g, Fitted& model, Fitted* second, const Measured& m,
                       const ProposeRequest& request, const ProposeProgress& progress, const std::function<bool()>& stop) {
  if (m.candidates.empty()) throw Error(g.source, "", "proposing configs: nothing measured to fit a model on");
  if (request.count < 1) throw Error("--propose: at least 1 config");
  const auto t0 = Clock::now();
  std::vector<float> known = g.config_rows(g.all_groups());
  const std::unique_ptr<ConfigSpace> space_of = config_space(g, known, request.space);
  const ConfigSpace& space = *space_of;
  ProposeSettings settings = request.search;
  settings.keep = std::max(settings.keep, request.count);
  // The anchors: the configs measured fastest (propose_search.h).
  std::vector<size_t> order(m.candidates.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m.runtimes[a] < m.runtimes[b]; });
  std::vector<int64_t> anchors;
  for (size_t i = 0; i < order.size() && i < kAnchors; ++i) anchors.push_back(m.candidates[order[i]]);
  ProposeSearch search(space, settings, std::move(known), anchors);

  ProposeOutcome o;
  if (progress) progress(0, settings.budget);
  for (;;) {
    const std::vector<float>& rows = search.ask();
    if (rows.empty()) break;
    const auto s0 = Clock::now();
    const std::vector<double> scores = model.score_rows(rows);
    o.score_seconds += since(s0);
    o.rows_scored += static_cast<int64_t>(scores.size());
    const int64_t before = search.scored_new();
    search.tell(scores);
    if (progress && search.scored_new() > before) progress(search.scored_new(), settings.budget);
    if (stop && stop()) {
      o.interrupted = true;
      break;
    }
  }
  o.scored = search.scored_new();
  o.seconds = since(t0);

  // The measured configs' scores: the search scored them first (the file's
  // configs are the candidates), unless it was stopped before.
  std::vector<double> measured_scores;
  for (int64_t c : m.candidates) measured_scores.push_back(search.known_scores()[static_cast<size_t>(c)]);
  if (std::any_of(measured_scores.begin(), measured_scores.end(), [](double v) { return std::isnan(v); }))
    measured_scores = model.score_rows(g.config_rows(m.candidates));
  const ScoreCalibration cal = calibrate_scores(measured_scores, m.runtimes);
  o.slope = cal.slope;
  o.intercept = cal.intercept;
  const size_t best = static_cast<size_t>(std::min_element(m.runtimes.begin(), m.runtimes.end()) - m.runtimes.begin());
  o.best_measured_runtime = m.runtimes[best];
  const double common_score = model.score_rows(space.most_common()).front();

  const std::vector<ScoredConfig> top = search.best_new(request.count);
  std::vector<float> rows;
  for (const ScoredConfig& c : top) rows.insert(rows.end(), c.config.begin(), c.config.end());
  o.changed_unit = space.choice_elems() > 1 ? "nodes" : "values";
  std::vector<double> other, spread;
  if (!rows.empty()) {
    if (second) other = second->score_rows(rows);
    else spread = model.spread_rows(rows);
  }
  for (size_t i = 0; i < top.size(); ++i) {
    Proposal p;
    p.config = top[i].config;
    p.score = top[i].score;
    p.runtime = cal.runtime(p.score);
    const double log_rt = std::log(p.runtime);
    p.over_best = cal.speedup(measured_scores[best], p.score);
    p.over_common = cal.speedup(common_score, p.score);
    if (!other.empty()) p.disagreement = std::abs(log_rt - other[i]);
    else if (!spread.empty()) p.disagreement = spread[i];
    p.changed = choices_from_nearest(space, p.config.data(), search.known(), m.candidates);
    o.proposals.push_back(std::move(p));
  }
  return o;
}

nlohmann::json write_proposals(const std::string& out, const GraphOut& graph, const ProposeOutcome& o,
                               const ProposeRequest& request) {
  namespace fs = std::filesystem;
  std::vector<float> rows;
  for (const Proposal& p : o.proposals) rows.insert(rows.end(), p.config.begin(), p.config.end());
  graph.write((fs::path(out) / "proposed.npz").string(), rows, std::vector<double>(o.proposals.size(), 0.0));
  std::ostringstream csv;
  csv.precision(8);
  csv << "config,score," << (request.ratio ? "predicted_runtime_over_normalizer" : "predicted_runtime_ns")
      << ",speedup_over_best_measured,speedup_over_common,disagreement,changed_from_measured\n";
  for (size_t i = 0; i < o.proposals.size(); ++i) {
    const Proposal& p = o.proposals[i];
    csv << i << ',' << p.score << ',' << p.runtime << ',' << p.over_best << ',' << p.over_common << ','
        << p.disagreement << ',' << p.changed << '\n';
  }
  write_file_atomically((fs::path(out) / "proposed.csv").string(), csv.str());
  nlohmann::json j = {{"count", o.proposals.size()},
                      {"space", space_kind_name(request.space)},
                      {"runtime_unit", request.ratio ? "runtime / normalizer" : "ns"},
                      {"budget", request.search.budget},
                      {"scored", o.scored},
                      {"seconds", o.seconds},
                      {"ms_per_1000_scored", o.rows_scored > 0 ? 1e6 * o.score_seconds / static_cast<double>(o.rows_scored) : 0.0},
                      {"calibration", {{"slope", o.slope}, {"intercept", o.intercept}}},
                      {"best_measured_runtime", o.best_measured_runtime},
                      {"changed_unit", o.changed_unit},
                      {"interrupted", o.interrupted}};
  if (!o.proposals.empty()) {
    const Proposal& p = o.proposals.front();
    j["best"] = {{"score", p.score},
                 {"predicted_runtime", p.runtime},
                 {"speedup_over_best_measured", p.over_best},
                 {"speedup_over_common", p.over_common},
                 {"disagreement", p.disagreement},
                 {"changed_from_measured", p.changed}};
    int64_t nearest = p.changed, farthest = p.changed;
    for (const Proposal& q : o.proposals) nearest = std::min(nearest, q.changed), farthest = std::max(farthest, q.changed);
    j["changed_from_measured"] = {{"min", nearest}, {"max", farthest}};
  }
  return j;
}

}  // namespace fastslow::tune
