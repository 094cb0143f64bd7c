#include "tune/scorers.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "baselines/ridge.h"
#include "baselines/ridge_cv.h"
#include "fastslow/error.h"
#include "fastslow/rank/rank_inputs.h"
#include "fastslow/io/json_text.h"
#include "fastslow/io/npz_reader.h"
#include "fastslow/io/read_file.h"
#include "fastslow/io/remove_tree.h"
#include "fastslow/rng.h"
#include "train/evaluate.h"
#include "train/loaded_run.h"
#include "train/prepared_data.h"
#include "train/score_rows.h"
#include "train/trainer.h"
#include "tune/graph_out.h"
#include "tune/physics_ridge.h"

namespace fastslow::tune {

std::vector<double> rank_fractions(const std::vector<double>& v) {
  const size_t n = v.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> out(n, 0.0);
  const double denom = n > 1 ? static_cast<double>(n - 1) : 1.0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && v[order[j + 1]] == v[order[i]]) ++j;
    const double mean = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 / denom;
    for (size_t k = i; k <= j; ++k) out[order[k]] = mean;
    i = j + 1;
  }
  return out;
}

namespace {

// The members of a ridge ensemble: member 0 reads every measurement once,
// the others a bootstrap of them.
class FittedRidge : public Fitted {
 public:
  FittedRidge(std::vector<baselines::OneHotRidge> members, double lambda)
      : members_(std::move(members)), lambda_(lambda) {}
  std::vector<double> score_rows(const std::vector<float>& rows) override { return moments(rows).first; }
  std::vector<double> spread_rows(const std::vector<float>& rows) override { return moments(rows).second; }
  const std::vector<baselines::OneHotRidge>& members() const { return members_; }
  double lambda() const { return lambda_; }  // chosen by cross-validation on the measured configs

 private:
  std::pair<std::vector<double>, std::vector<double>> moments(const std::vector<float>& rows) const {
    std::vector<double> s, sq;
    for (const auto& m : members_) {
      const std::vector<double> p = m.predict(rows);
      s.resize(p.size(), 0.0);
      sq.resize(p.size(), 0.0);
      for (size_t i = 0; i < p.size(); ++i) s[i] += p[i], sq[i] += p[i] * p[i];
    }
    const auto k = static_cast<double>(members_.size());
    for (size_t i = 0; i < s.size(); ++i) {
      s[i] /= k;
      sq[i] = std::sqrt(std::max(0.0, sq[i] / k - s[i] * s[i]));
    }
    return {s, sq};
  }
  std::vector<baselines::OneHotRidge> members_;
  double lambda_;
};

class RidgeScorer : public Scorer {
 public:
  RidgeScorer(const CachedGraph& g, uint64_t seed) : g_(g), seed_(seed), rows_(g.config_rows(g.all_groups())) {}

  std::unique_ptr<Fitted> fit(const Measured& m, const std::string&) override {
    const int64_t w = g_.config_row_elems;
    std::vector<float> x;
    std::vector<double> y;
    for (size_t i = 0; i < m.candidates.size(); ++i) {
      const int64_t c = m.candidates[i];
      x.insert(x.end(), rows_.begin() + c * w, rows_.begin() + (c + 1) * w);
      y.push_back(std::log(m.runtimes[i]));
    }
    const double lambda = baselines::choose_ridge_penalty(x, w, y, 4, seed_).lambda;
    const auto n = static_cast<int64_t>(y.size());
    std::vector<baselines::OneHotRidge> members;
    Rng rng(seed_ ^ (0x626f6f74ull + static_cast<uint64_t>(n)));  // "boot"
    for (int k = 0; k < kMembers; ++k) {
      std::vector<float> bx;
      std::vector<double> by;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = k == 0 ? i : rng.uniform_int(0, n - 1);
        bx.insert(bx.end(), x.begin() + r * w, x.begin() + (r + 1) * w);
        by.push_back(y[static_cast<size_t>(r)]);
      }
      members.emplace_back();
      members.back().fit(bx, w, by, lambda);
    }
    return std::make_unique<FittedRidge>(std::move(members), lambda);
  }

  Prediction predict(const Measured& m, const std::string& dir) override {
    const std::unique_ptr<Fitted> f = fit(m, dir);
    return ensemble_prediction(static_cast<const FittedRidge&>(*f));
  }
  // Every config's mean rank over the members, and its spread.
  Prediction ensemble_prediction(const FittedRidge& f) const {
    const auto& members = f.members();
    const size_t count = static_cast<size_t>(g_.groups.num_groups());
    std::vector<std::vector<double>> member_ranks;
    for (const auto& ridge : members) member_ranks.push_back(rank_fractions(ridge.predict(rows_)));
    const auto k = static_cast<double>(members.size());
    Prediction p;
    p.score.assign(count, 0.0);
    p.spread.assign(count, 0.0);
    for (size_t c = 0; c < count; ++c) {
      double s = 0, sq = 0;
      for (const auto& r : member_ranks) s += r[c], sq += r[c] * r[c];
      const double mean = s / k;
      p.score[c] = mean;
      p.spread[c] = std::sqrt(std::max(0.0, sq / k - mean * mean));
    }
    return p;
  }
  std::string name() const override { return "ridge"; }
  // Every config's values (all groups), read once for the session.
  const std::vector<float>& all_rows() const { return rows_; }

 private:
  static constexpr int kMembers = 8;
  const CachedGraph& g_;
  uint64_t seed_;
  std::vector<float> rows_;
};

// A single model's prediction: its scores' ranks, and as the spread how far
// they lie from the ridge ensemble's.
Prediction beside_ridge(const std::vector<double>& own, const Prediction& ridge) {
  Prediction p;
  p.score = rank_fractions(own);
  p.spread.resize(p.score.size());
  for (size_t c = 0; c < p.score.size(); ++c) p.spread[c] = std::abs(p.score[c] - ridge.score[c]);
  return p;
}

// A trained run scoring rows of its graph in chunks, as ranking does.
class FittedRun : public Fitted {
 public:
  FittedRun(train::LoadedRun run, const CachedGraph& g)
      : run_(std::move(run)), entry_(std::move(train::make_entries({g}, run_.norm, run_.device).front())) {}
  std::vector<double> score_rows(const std::vector<float>& rows) override {
    return train::score_config_rows(*run_.model, entry_, run_.norm, rows, *run_.options.eval_chunk, run_.device);
  }

 private:
  train::LoadedRun run_;
  train::GraphEntry entry_;
};

class RunScorer : public Scorer {
 public:
  RunScorer(const CachedGraph& g, const std::string& file, train::TrainOptions o, uint64_t seed)
      : g_(g), options_(std::move(o)), ridge_(g, seed), out_(file) {}

  std::unique_ptr<Fitted> fit(const Measured& m, const std::string& dir) override {
    std::filesystem::create_directories(dir);
    // The measurements as a graph file: what the run learns from, and what
    // a user can train on, evaluate or plot later.
    const std::string measured = dir + "/measured.npz";
    out_.write(measured, g_.config_rows(m.candidates), m.runtimes);
    const std::string run_dir = dir + "/run";
    if (!std::filesystem::exists(run_dir + "/best.pt")) {
      if (!remove_tree(run_dir))  // a round cut short trains again
        throw Error(run_dir, "", "cannot remove the round's unfinished run");
      train::TrainOptions o = options_;
      o.graph = measured;
      o.data.clear();
      o.collection.clear();
      o.out = run_dir;
      o.holdout = 0;
      o.measured = 0;
      if (o.cache.empty()) o.cache = dir + "/../.cache";
      train::train(o);
    }
    return std::make_unique<FittedRun>(train::load_run(run_dir, options_.device), g_);
  }

  Prediction predict(const Measured& m, const std::string& dir) override {
    return beside_ridge(fit(m, dir)->score_rows(ridge_.all_rows()), ridge_.predict(m, dir));
  }
  std::string name() const override { return "fastslow"; }
  std::string fitted_note(const std::string& dir) const override {
    const std::string path = dir + "/run/wide_table.json";  // written by the run (train.cpp)
    if (!std::filesystem::exists(path)) return "";
    const nlohmann::json j = parse_json_text(read_whole_file(path), path, "is not JSON");
    // "note" names the nodes the relevance ridge weighs (runs before it: "table" alone).
    for (const char* key : {"note", "table"})
      if (j.contains(key) && j[key].is_string()) return "wide table: " + j[key].get<std::string>();
    return "";
  }

 private:
  const CachedGraph& g_;
  train::TrainOptions options_;
  RidgeScorer ridge_;
  GraphOut out_;
};

// One-hot ridge with the shared physical terms (physics_ridge.h), the
// values' penalty chosen as ridge's; the spread its disagreement with the
// ridge ensemble.
class FittedPhysics : public Fitted {
 public:
  explicit FittedPhysics(PhysicsRidge r) : r_(std::move(r)) {}
  std::vector<double> score_rows(const std::vector<float>& rows) override { return r_.predict(rows); }

 private:
  PhysicsRidge r_;
};

class PhysicsScorer : public Scorer {
 public:
  PhysicsScorer(const CachedGraph& g, uint64_t seed) : g_(g), seed_(seed), ridge_(g, seed), unfitted_(g) {}

  std::unique_ptr<Fitted> fit(const Measured& m, const std::string&) override { return fit_with(m, nullptr); }
  // The round's ridge ensemble chooses the same penalty on the same
  // measurements: it is chosen once, there.
  Prediction predict(const Measured& m, const std::string& dir) override {
    const std::unique_ptr<Fitted> ensemble = ridge_.fit(m, dir);
    const auto& ridge = static_cast<const FittedRidge&>(*ensemble);
    return beside_ridge(fit_with(m, &ridge)->score_rows(ridge_.all_rows()),
                        ridge_.ensemble_prediction(ridge));
  }
  std::string name() const override { return "physics"; }
  std::string fitted_note(const std::string&) const override { return note_; }

 private:
  // With the penalty of `ridge` fitted on the same measurements, or chosen
  // here as RidgeScorer chooses it.
  std::unique_ptr<Fitted> fit_with(const Measured& m, const FittedRidge* ridge) {
    const std::vector<float> x = g_.config_rows(m.candidates);
    std::vector<double> y;
    for (double r : m.runtimes) y.push_back(std::log(r));
    const double lambda =
        ridge ? ridge->lambda() : baselines::choose_ridge_penalty(x, g_.config_row_elems, y, 4, seed_).lambda;
    PhysicsRidge r = unfitted_;  // the graph's layout context, read once
    r.fit(x, y, lambda);
    note_ = "physical terms (log runtime per sd among the measured):";
    const auto e = r.term_effects();
    if (!r.knows_context()) note_ = "no physical terms: the file lacks the published node-feature columns (one-hot ridge)";
    else
      for (int k = 0; k < PhysicsRidge::kTerms; ++k) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s %s %+.2g", k ? "," : "", PhysicsRidge::kTermNames[static_cast<size_t>(k)],
                      e[static_cast<size_t>(k)]);
        note_ += buf;
      }
    return std::make_unique<FittedPhysics>(std::move(r));
  }

  const CachedGraph& g_;
  uint64_t seed_;
  RidgeScorer ridge_;
  PhysicsRidge unfitted_;  // each fit's start; refuses a tile graph when the session starts
  std::string note_;
};

// A shared model behind the Fitted interface: the session's proposals
// fit "again" at no cost.
class SharedFitted : public Fitted {
 public:
  explicit SharedFitted(std::shared_ptr<Fitted> f) : f_(std::move(f)) {}
  std::vector<double> score_rows(const std::vector<float>& rows) override { return f_->score_rows(rows); }

 private:
  std::shared_ptr<Fitted> f_;
};

class LoadedScorer : public Scorer {
 public:
  LoadedScorer(std::shared_ptr<Fitted> model, const CachedGraph& g, uint64_t seed)
      : model_(std::move(model)), g_(g), ridge_(g, seed) {}
  std::unique_ptr<Fitted> fit(const Measured&, const std::string&) override { return std::make_unique<SharedFitted>(model_); }
  Prediction predict(const Measured& m, const std::string& dir) override {
    return beside_ridge(model_->score_rows(ridge_.all_rows()), ridge_.predict(m, dir));
  }
  std::string name() const override { return "run"; }

 private:
  std::shared_ptr<Fitted> model_;
  const CachedGraph& g_;
  RidgeScorer ridge_;
};

}  // namespace

std::unique_ptr<Scorer> make_loaded_scorer(const std::string& run, const CachedGraph& graph, const std::string& device,
                                           uint64_t seed) {
  return std::make_unique<LoadedScorer>(std::shared_ptr<Fitted>(load_fitted(run, graph, device)), graph, seed);
}

std::unique_ptr<Fitted> load_fitted(const std::string& run, const CachedGraph& graph, const std::string& device) {
  train::LoadedRun r = train::load_run(run, device);
  if (r.kind() != graph.kind)
    throw Error(run, "", std::string("the run ranks ") + graph_kind_name(r.kind()) + " configs; " + graph.source + " is a " +
                             graph_kind_name(graph.kind) + " graph");
  return std::make_unique<FittedRun>(std::move(r), graph);
}

std::unique_ptr<Scorer> make_ridge_scorer(const CachedGraph& graph, uint64_t seed) {
  return std::make_unique<RidgeScorer>(graph, seed);
}

std::unique_ptr<Scorer> make_physics_scorer(const CachedGraph& graph, uint64_t seed) {
  return std::make_unique<PhysicsScorer>(graph, seed);
}

std::unique_ptr<Scorer> make_run_scorer(const CachedGraph& graph, const std::string& graph_file,
                                        train::TrainOptions round_options, uint64_t seed) {
  return std::make_unique<RunScorer>(graph, graph_file, std::move(round_options), seed);
}

}  // namespace fastslow::tune
