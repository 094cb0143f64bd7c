#include "tune/prior_blend.h"

#include <cmath>

#include "fastslow/error.h"
#include "fastslow/tune/propose_search.h"
#include "train/run_dir.h"
#include "train/run_files.h"
#include "train/train_state.h"

namespace fastslow::tune {
namespace {

class CalibratedMean : public Fitted {
 public:
  CalibratedMean(std::unique_ptr<Fitted> a, std::unique_ptr<Fitted> b, const std::vector<float>& rows,
                 int64_t row_elems, const std::vector<double>& runtimes)
      : a_(std::move(a)), b_(std::move(b)) {
    if (runtimes.empty()) throw Error("blending with the prior: no measured config to calibrate on");
    if (row_elems < 1 || rows.size() != static_cast<size_t>(row_elems) * runtimes.size())
      throw Error("blending with the prior: " + std::to_string(rows.size()) + " values are not " +
                  std::to_string(runtimes.size()) + " configs of " + std::to_string(row_elems));
    ca_ = calibrate_scores(a_->score_rows(rows), runtimes);
    cb_ = calibrate_scores(b_->score_rows(rows), runtimes);
  }
  std::vector<double> score_rows(const std::vector<float>& rows) override {
    const auto [x, y] = members(rows);
    std::vector<double> out(x.size());
    for (size_t i = 0; i < x.size(); ++i) out[i] = 0.5 * (x[i] + y[i]);
    return out;
  }
  // The members' disagreement, in log runtime.
  std::vector<double> spread_rows(const std::vector<float>& rows) override {
    const auto [x, y] = members(rows);
    std::vector<double> out(x.size());
    for (size_t i = 0; i < x.size(); ++i) out[i] = std::abs(x[i] - y[i]);
    return out;
  }

 private:
  // Each member's predicted log runtime.
  std::pair<std::vector<double>, std::vector<double>> members(const std::vector<float>& rows) {
    std::vector<double> x = a_->score_rows(rows), y = b_->score_rows(rows);
    for (double& v : x) v = ca_.intercept + ca_.slope * v;
    for (double& v : y) v = cb_.intercept + cb_.slope * v;
    return {std::move(x), std::move(y)};
  }
  std::unique_ptr<Fitted> a_, b_;
  ScoreCalibration ca_, cb_;
};

}  // namespace

std::unique_ptr<Fitted> blend_with_prior(std::unique_ptr<Fitted> tuned, std::unique_ptr<Fitted> prior,
                                         const std::vector<float>& measured_rows, int64_t row_elems,
                                         const std::vector<double>& runtimes) {
  return std::make_unique<CalibratedMean>(std::move(tuned), std::move(prior), measured_rows, row_elems, runtimes);
}

bool kept_table_alone(const std::string& run_dir) {
  const train::RunDir run(run_dir, false);
  const std::optional<nlohmann::json> saved = train::saved_state(run);
  if (!saved) throw Error(run_dir, "", "holds no training state (state.json): not a trained run");
  const train::TrainState st = train::TrainState::from_json(*saved, run.file(run.has("last.pt") ? "last.pt" : "state.json"));
  return st.pre_validated && st.best_epoch < 0;
}

ProposalOracle proposal_oracle(std::unique_ptr<Fitted> tuned, const std::string& run_dir, const std::string& prior_run,
                               const CachedGraph& g, const Measured& m, const std::string& device) {
  ProposalOracle o;
  if (prior_run.empty() || !kept_table_alone(run_dir)) {
    o.model = std::move(tuned);
    return o;
  }
  o.model = blend_with_prior(std::move(tuned), load_fitted(prior_run, g, device), g.config_rows(m.candidates),
                             g.config_row_elems, m.runtimes);
  o.blended = true;
  return o;
}

}  // namespace fastslow::tune
