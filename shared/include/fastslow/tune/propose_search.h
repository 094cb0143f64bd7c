// Configs nobody measured: an evolutionary search through a config space
// (config_space.h) with a model as its oracle, in the manner of Ansor's
// and MetaSchedule's search with a learned cost model: a population of the
// best configs scored so far, children made by mutation (probability
// `mutation`, else crossover of two parents), a few random configs for
// exploration, duplicates never scored twice.
//
// Ask and tell, as an Optuna study does, so that the scorer lives with the
// caller: natively a LibTorch model or the generator's true cost, in the
// page ONNX Runtime Web, whose calls do not return in place.
//   ask()   the next candidates to score (count x row_elems, row-major):
//           first the file's own configs (the population starts from the
//           best of them), then a generation of children at a time; empty
//           when the budget is spent or the space has nothing new left;
//   tell()  their scores, lower = faster (non-finite: never kept).
//
// Anchors hedge against the model's errors: the configs measured fastest.
// A share of each generation mutates one of them (a trust region: a config
// one or two orders away from a measured fast one is seldom much slower),
// and half the configs best_new() returns are the best-scored of those
// children, the other half the best-scored anywhere.
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "fastslow/rng.h"
#include "fastslow/tune/search_space.h"

namespace fastslow {

struct ProposeSettings {
  int64_t population = 128;  // configs kept from one generation to the next
  int64_t generation = 512;  // candidates per ask() (the file's own configs come in asks this size too)
  int64_t budget = 8192;     // new candidates scored in all
  double mutation = 0.85;    // a child is a mutation with this chance, else a crossover (Ansor's 0.85)
  double random_share = 0.05;  // of each generation, random configs of the space
  double anchor_share = 0.25;  // of each generation, mutations of an anchor (a config measured fast)
  int64_t keep = 64;         // new configs remembered, the best: what best() can return
  uint64_t seed = 0;
};

struct ScoredConfig {
  std::vector<float> config;
  double score = 0;
  int64_t known = -1;  // index among the file's configs given, -1 = new
};

// A line from a model's scores to log runtimes, fitted on measured configs
// by least squares: log(runtime) = intercept + slope x score. The slope is
// 0 when the model orders them backwards: no speed-up is then claimed.
struct ScoreCalibration {
  double slope = 0, intercept = 0;
  double runtime(double score) const;
  // Predicted runtime at score `from` over that at score `to`.
  double speedup(double from, double to) const;
};
// Runtimes must be positive; Error on sizes that differ or no config.
ScoreCalibration calibrate_scores(const std::vector<double>& score, const std::vector<double>& runtime);

class ProposeSearch {
 public:
  // known: the file's unique configs (count x space.row_elems()), which are
  // scored first and never proposed. Throws Error on sizes that disagree
  // or settings out of range.
  // anchors: indices into known, fastest first (may be empty).
  ProposeSearch(const ConfigSpace& space, const ProposeSettings& settings, std::vector<float> known,
                std::vector<int64_t> anchors = {});

  const std::vector<float>& ask();
  // One score per candidate of the last ask(); Error on a count mismatch.
  void tell(const std::vector<double>& scores);

  bool done() const { return done_; }
  int64_t scored_new() const { return scored_new_; }
  int64_t known_count() const { return known_count_; }
  // The best new configs scored, best first (at most settings.keep): with
  // anchors, half of them from the anchors' children.
  std::vector<ScoredConfig> best_new(int64_t k) const;
  // The best of the file's configs, by score (score +inf when none scored).
  ScoredConfig best_known() const;
  // The score of each of the file's configs, NaN for those not scored yet
  // (a search stopped early): the model's ranking of the file, for free.
  const std::vector<double>& known_scores() const { return known_scores_; }
  // The file's configs as given (count x row_elems).
  const std::vector<float>& known() const { return known_; }

 private:
  void children(int64_t count);
  void merge(std::vector<ScoredConfig>& into, std::vector<ScoredConfig>&& add, int64_t cap);

  const ConfigSpace& space_;
  ProposeSettings s_;
  std::vector<float> known_;
  int64_t known_count_ = 0, known_next_ = 0;
  Rng rng_;
  std::unordered_set<ConfigHash, ConfigHashOf> seen_;
  std::vector<float> asked_;
  std::vector<int64_t> asked_known_;  // per asked row: its known index, -1 = new
  std::vector<char> asked_near_;      // per asked row: a child of an anchor
  std::vector<int64_t> anchors_;
  std::vector<ScoredConfig> population_, archive_, near_;
  std::vector<double> known_scores_;
  ScoredConfig best_known_;
  int64_t scored_new_ = 0;
  bool done_ = false;
};

}  // namespace fastslow
