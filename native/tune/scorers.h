// What an autotuning round predicts for every candidate from the configs
// measured so far: a score (lower = predicted faster) and a spread (how
// much a small ensemble disagrees), both as rank fractions in [0, 1] so
// that strategies read every model alike.
// Both fit a model that scores any config (Fitted): the ridge ensemble's
// mean predicted log runtime, the run's score.
//   ridge     one-hot ridge on the measured configs (penalty by 4-fold
//             cross-validation inside them), 8 bootstrap members: the
//             members' mean rank is the score, their spread the spread;
//   fastslow  a per-program run trained on the measured configs each round
//             (its options as `fastslow train` takes them, --init too),
//             the spread its disagreement with the ridge ensemble;
//   physics   one-hot ridge plus five physical terms whose weights every
//             node shares (physics_ridge.h): prices orders the file never
//             holds; the spread as for fastslow;
//   run       a trained run as it is (a tile collection's model knows
//             tiling from hundreds of kernels; one kernel's few configs
//             teach a run little), the spread as for fastslow.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fastslow/data/graph_cache.h"
#include "fastslow/tune/trace.h"
#include "train/options.h"

namespace fastslow::tune {

struct Prediction {
  std::vector<double> score;   // per candidate, rank fraction (0 = predicted best)
  std::vector<double> spread;  // per candidate
};

// The measured configs, as a round sees them.
struct Measured {
  std::vector<int64_t> candidates;
  std::vector<double> runtimes;  // ns
};

// A model fitted on the measured configs that scores any config, measured,
// in the file or never seen: what a search for new configs asks.
class Fitted {
 public:
  virtual ~Fitted() = default;
  // rows: count x (configurable nodes x width) values; one score per row,
  // lower = predicted faster.
  virtual std::vector<double> score_rows(const std::vector<float>& rows) = 0;
  // How much an ensemble's members disagree on each row, in the score's
  // units; empty when the model is one member.
  virtual std::vector<double> spread_rows(const std::vector<float>&) { return {}; }
};

class Scorer {
 public:
  virtual ~Scorer() = default;
  // `dir`: the round's folder (a run scorer trains there).
  virtual Prediction predict(const Measured& m, const std::string& dir) = 0;
  virtual std::unique_ptr<Fitted> fit(const Measured& m, const std::string& dir) = 0;
  virtual std::string name() const = 0;
  // What the fit in `dir` chose, in words ("" when there is nothing to
  // tell): a per-program run's wide table, whose chosen nodes an engineer
  // reads as the ones that decide.
  virtual std::string fitted_note(const std::string& /*dir*/) const { return ""; }
};

// The ridge ensemble alone.
std::unique_ptr<Scorer> make_ridge_scorer(const CachedGraph& graph, uint64_t seed);
// One-hot ridge with the physical terms (layout graphs; Error naming the
// file for a tile graph).
std::unique_ptr<Scorer> make_physics_scorer(const CachedGraph& graph, uint64_t seed);
// A per-program fastslow run per round: `round_options` are the run's
// options (out, graph and the split are set per round); `graph_file` is
// the session's graph, whose structure the round's measured.npz carries.
std::unique_ptr<Scorer> make_run_scorer(const CachedGraph& graph, const std::string& graph_file,
                                        train::TrainOptions round_options, uint64_t seed);

// A trained run (a collection's, say) as every round's predictor, not
// trained on the measurements: its score, and its disagreement with the
// ridge ensemble as the spread.
std::unique_ptr<Scorer> make_loaded_scorer(const std::string& run, const CachedGraph& graph, const std::string& device,
                                           uint64_t seed);
// A trained run (a collection's, say) scoring this graph's configs as it
// is, without training on them. Error naming the run when it ranks the
// other kind of graph or reads other features.
std::unique_ptr<Fitted> load_fitted(const std::string& run, const CachedGraph& graph, const std::string& device = "auto");

// Ranks as fractions: 0 for the lowest value, 1 for the highest (ties share
// their mean rank).
std::vector<double> rank_fractions(const std::vector<double>& v);

}  // namespace fastslow::tune
