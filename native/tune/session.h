// An autotuning session on one layout or tile graph: measure a starting batch
// (the file's most common config first, start_batch.h),
// then each round fit a model on everything measured so far, pick the next
// batch (pick.h), measure it, and write down where things stand. OUT holds
// tune.json (the settings and every measurement, rewritten atomically after
// each round: a session cut short resumes from its last whole round, and
// one run again with the same settings goes on where it stopped),
// measured.csv (config, runtime, round), and a folder per round. With
// `propose`, then proposed.npz and proposed.csv (propose.h), the model they
// come from in propose-<measurements>/, and tune.json's "proposals".
#pragma once

#include <functional>
#include <string>

#include "fastslow/tune/pick.h"
#include "fastslow/tune/propose_search.h"
#include "fastslow/tune/start_batch.h"
#include "fastslow/tune/trace.h"
#include "train/options.h"

namespace fastslow::tune {

// The session's settings, each documented where the CLI takes it.
struct TuneSettings {
  std::string graph;        // the layout or tile .npz whose unique configs are the candidates
  std::string out;          // the session folder
  // "fastslow" (a run per round), "ridge", "physics" (ridge with shared
  // physical terms, layout graphs) or "run" (model_run as it is)
  std::string predictor = "fastslow";
  std::string model_run;    // predictor "run": a trained run (a collection's) scoring without training here
  std::string measure = "file";    // "file" or a command (measure.h)
  double measure_timeout = 0;      // seconds per command call, 0 = none
  int64_t rounds = 8;       // rounds after the starting batch
  int64_t batch = 16;       // configs measured per round
  int64_t start = 16;       // configs measured first
  StartFrom start_from = StartFrom::Common;  // the first of them the file's most common config (start_batch.h)
  PickSettings pick;
  uint64_t seed = 0;        // the starting batch's, the picks' and the round runs'
  train::TrainOptions run;  // the fastslow model's options per round (--init, --model, --epochs, ...; seed: `seed`)
  // After the rounds: this many configs nobody measured, proposed by the
  // predictor fitted on every measurement (0 = none).
  int64_t propose = 0;
  SpaceKind space = SpaceKind::Menu;
  ProposeSettings search;   // its seed: `seed`
};

struct TuneOutcome {
  TuneTrace trace;
  int64_t candidates = 0;
  double best_known = 0;  // the file's best runtime (0 when it has none)
  int64_t left_out = 0;   // candidates the measurer cannot measure (--measure file: no runtime there)
  // A tile file's own measurements are runtime / normalizer (what tile
  // configs are ranked by); every other runtime is in ns.
  bool ratio = false;
  bool interrupted = false;
  nlohmann::json proposals;  // what tune.json records of them (null: none proposed)
};

using TuneSay = std::function<void(const std::string&)>;
using TuneStop = std::function<bool()>;
using TuneProgress = std::function<void(int64_t, int64_t)>;  // proposals: candidates scored, budget

// Error naming the file or setting on bad input, and when OUT holds a
// session with other settings.
// A stop during the proposal search keeps what it found: the proposals so
// far are written and the outcome says it was interrupted.
TuneOutcome run_session(const TuneSettings& s, const TuneSay& say = {}, const TuneStop& stop = {},
                        const TuneProgress& progress = {});

}  // namespace fastslow::tune
