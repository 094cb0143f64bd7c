#include "train/ensemble.h"

#include <cmath>
#include <filesystem>

#include "fastslow/error.h"
#include "fastslow/rank/ensemble_combine.h"
#include "train/data_sources.h"
#include "train/many_runs.h"
#include "train/run_dir.h"

namespace fastslow::train {

namespace {

// What makes two runs read the same graphs the same way.
void check_fits(const LoadedRun& first, const LoadedRun& m) {
  const TrainOptions &a = first.options, &b = m.options;
  std::string what;
  if (a.kind != b.kind)
    what = "is a " + b.kind + " model, the first member a " + a.kind + " one";
  else if (a.khop != b.khop)
    what = "prunes graphs to " + std::to_string(b.khop) + " hops, the first member to " + std::to_string(a.khop);
  else if (a.config_feat_width != b.config_feat_width || first.norm.node.width() != m.norm.node.width())
    what = "reads other feature widths than the first member";
  else if (a.tile_features != b.tile_features)
    what = "reads tiling features differently from the first member";
  else if (a.graph != b.graph)
    what = "was trained on graph '" + b.graph + "', the first member on '" + a.graph + "'";
  if (!what.empty()) throw Error(b.out, "", what + "; an ensemble's members rank the same inputs");
}

// Whether both runs left the same graphs (per-program: groups) unseen for
// validation. The seed splits only per-program runs and folds; a final fit
// (--train-on-valid) has seen its valid graphs.
bool same_split(const TrainOptions& a, const TrainOptions& b) {
  if (a.train_on_valid == 1 || b.train_on_valid == 1) return false;
  auto roots = [](const TrainOptions& o) {
    std::vector<std::string> r;
    for (const std::string& p : split_list(o.data)) r.push_back(std::filesystem::weakly_canonical(p).string());
    return r;
  };
  const bool seeded = !a.graph.empty() || a.folds > 0;
  return roots(a) == roots(b) && a.collection == b.collection && a.graph == b.graph && a.holdout == b.holdout &&
         a.measured == b.measured &&
         a.valid_share == b.valid_share && a.folds == b.folds && a.fold == b.fold &&
         (!seeded || a.data_seed() == b.data_seed());
}

std::vector<std::string> expand(const std::vector<std::string>& runs) {
  std::vector<std::string> out;
  for (const std::string& r : runs) {
    if (is_many(r)) {
      const nlohmann::json plan = RunDir(r).read_json("runs.json");
      const std::string mode = plan.at("mode").get<std::string>();
      for (int i = 0; i < plan.at("count").get<int>(); ++i) out.push_back(member_dir(r, mode, i));
    } else {
      out.push_back(r);
    }
  }
  return out;
}

// The runs loaded, each checked against the first; `same` says whether they
// all left the same valid graphs unseen.
std::vector<LoadedRun> load_members(const std::vector<std::string>& paths, const std::string& device, bool* same) {
  std::vector<LoadedRun> members;
  *same = true;
  for (const std::string& p : paths) {
    members.push_back(load_run(p, device));
    check_fits(members.front(), members.back());
    *same = *same && same_split(members.front().options, members.back().options);
  }
  return members;
}

}  // namespace

LoadedEnsemble load_ensemble(const std::string& dir, const std::string& device) {
  LoadedEnsemble e;
  e.spec = EnsembleSpec::read(dir);
  std::vector<std::string> paths;
  for (const EnsembleMember& m : e.spec.members) {
    if (!std::filesystem::is_directory(m.run))
      throw Error(RunDir(dir).file("ensemble.json"), "members", "member run " + m.run + " is not there");
    paths.push_back(m.run);
  }
  e.members = load_members(paths, device, &e.same_split);
  if (e.members.front().options.kind != e.spec.kind)
    throw Error(RunDir(dir).file("ensemble.json"), "kind", "says " + e.spec.kind + ", its members are " +
                                                               e.members.front().options.kind + " models");
  return e;
}

MemberScores score_members(const std::vector<LoadedRun>& members, const std::string& split, const Progress& progress,
                           const std::function<void(size_t, size_t)>& scored) {
  MemberScores s;
  s.graphs = load_split(members.front(), split, progress);
  s.scores.assign(s.graphs.size(), std::vector<std::vector<double>>(members.size()));
  const std::string first_norm = members.front().norm.to_json().dump();
  for (size_t m = 0; m < members.size(); ++m) {
    const LoadedRun& run = members[m];
    // Members fitted on other graphs (folds) normalise the same inputs differently.
    const bool own = run.norm.to_json().dump() != first_norm;
    for (size_t g = 0; g < s.graphs.size(); ++g) {
      const GraphEntry& e = s.graphs[g];
      const GraphEntry input = own ? make_entry(e.cache, run.norm, run.device) : GraphEntry{};
      s.scores[g][m] =
          score_groups(*run.model, own ? input : e, e.eval_groups, run.norm, *run.options.eval_chunk, run.device);
      if (scored) scored(m * s.graphs.size() + g + 1, members.size() * s.graphs.size());
    }
  }
  return s;
}

std::vector<double> combine(Combine how, const std::vector<double>& weights,
                            const std::vector<std::vector<double>>& members) {
  return how == Combine::Rank ? combine_ranks(members, weights) : combine_standardized(members, weights);
}

std::vector<GraphResult> combined_results(const MemberScores& s, Combine how, const std::vector<double>& weights) {
  std::vector<GraphResult> out;
  for (size_t g = 0; g < s.graphs.size(); ++g) out.push_back(graph_result(s.graphs[g], combine(how, weights, s.scores[g])));
  return out;
}

std::vector<std::vector<GraphResult>> member_results(const MemberScores& s) {
  const size_t members = s.scores.empty() ? 0 : s.scores.front().size();
  std::vector<std::vector<GraphResult>> out(members);
  for (size_t m = 0; m < members; ++m)
    for (size_t g = 0; g < s.graphs.size(); ++g) out[m].push_back(graph_result(s.graphs[g], s.scores[g][m]));
  return out;
}

EnsembleSpec build_ensemble(const std::vector<std::string>& runs, Combine how, const std::string& device,
                            const Progress& progress) {
  const std::vector<std::string> paths = expand(runs);
  if (paths.empty()) throw Error("fastslow ensemble: no member runs given");
  bool same = true;
  const std::vector<LoadedRun> members = load_members(paths, device, &same);
  if (how == Combine::Weighted && !same)
    throw Error(paths.front(), "",
                "--combine weighted fits weights on the valid graphs every member left unseen, but these members "
                "were trained on different splits (folds) or on the valid graphs too (--train-on-valid); use "
                "--combine mean or rank");
  EnsembleSpec spec;
  spec.kind = members.front().options.kind;
  spec.combine = how;
  const GraphKind kind = members.front().kind();
  // The valid split (per-program: the valid share, else the held-out one) as the first member defines it.
  const MemberScores s = score_members(members, "valid", progress);
  // Scored as training and eval score: several collections count alike.
  SplitFiles labels;
  if (members.front().options.graph.empty()) labels = split_files(members.front().options, "valid");
  const auto score_of = [&](const std::vector<GraphResult>& results) {
    return labels.labels.empty() ? collection_score(kind, results)
                                 : source_scores(kind, results, labels.source, labels.labels).score;
  };
  const size_t n = members.size();
  std::vector<double> weights(n, 1.0 / static_cast<double>(n));
  if (how == Combine::Weighted) {
    weights = fit_simplex_weights(static_cast<int>(n), [&](const std::vector<double>& w) {
      const double v = score_of(combined_results(s, how, w));
      return std::isfinite(v) ? v : -1e9;
    });
  }
  const std::vector<std::vector<GraphResult>> alone = member_results(s);
  for (size_t m = 0; m < n; ++m) {
    EnsembleMember e;
    e.run = std::filesystem::absolute(paths[m]).lexically_normal().string();
    e.weight = weights[m];
    double spread = 0;
    int graphs = 0;
    for (size_t g = 0; g < s.graphs.size(); ++g) {
      const double sd = score_spread(s.scores[g][m]);
      if (sd > 0) {
        spread += sd;
        ++graphs;
      }
    }
    e.scale = graphs > 0 ? spread / graphs : 1.0;
    e.valid_score = score_of(alone[m]);
    spec.members.push_back(std::move(e));
  }
  double best = -INFINITY, mean = 0;
  for (const EnsembleMember& e : spec.members) {
    best = std::max(best, e.valid_score);
    mean += e.valid_score / static_cast<double>(n);
  }
  const double score = score_of(combined_results(s, how, weights));
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  spec.fitted_on = {{"split", "valid"},
                    {"graphs", s.graphs.size()},
                    {"same_split", same},
                    {"score", num(score)},
                    {"member_mean", num(mean)},
                    {"member_best", num(best)}};
  return spec;
}

}  // namespace fastslow::train
