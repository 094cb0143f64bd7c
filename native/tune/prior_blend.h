// Proposals of a run fine-tuned from a prior (tune --init RUN --propose).
// A per-program run keeps its fitted table alone when no epoch of its deep
// part beats the table on the measured configs' validation (so far every
// layout file measured). The prior's weights sit in that deep part, which
// its gate (0) then silences, and the table knows nothing of an order the
// file never held; the prior, trained on many graphs, has seen such orders. Such a run
// proposes with the prior back beside it: the run and the prior as it is,
// each turned into a log runtime by a line fitted on the measured configs
// (calibrate_scores), averaged. A run that kept a trained deep part (tile
// kernels: no table) already carries the prior and proposes alone.
// The calibration weighs each member by how well it ranks this program's
// measurements: one that orders them backwards gets slope 0 and says only
// their mean; a weak one's line is flat and moves the average little.
// propose() then fits its own line from the average's scores to runtimes,
// as it does for any model's.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fastslow/data/graph_cache.h"
#include "tune/scorers.h"

namespace fastslow::tune {

// measured_rows: the measured configs (runtimes.size() x row_elems
// values), runtimes in ns, positive. Error on sizes that disagree.
std::unique_ptr<Fitted> blend_with_prior(std::unique_ptr<Fitted> tuned, std::unique_ptr<Fitted> prior,
                                         const std::vector<float>& measured_rows, int64_t row_elems,
                                         const std::vector<double>& runtimes);

// Whether the run trained in run_dir kept its table alone (its best model
// is the one validated before any step). Error naming the folder when it
// holds no training state.
bool kept_table_alone(const std::string& run_dir);

struct ProposalOracle {
  std::unique_ptr<Fitted> model;
  bool blended = false;
};
// `tuned`: the run in run_dir, fine-tuned from prior_run (empty: no prior).
ProposalOracle proposal_oracle(std::unique_ptr<Fitted> tuned, const std::string& run_dir, const std::string& prior_run,
                               const CachedGraph& g, const Measured& m, const std::string& device = "auto");

}  // namespace fastslow::tune
