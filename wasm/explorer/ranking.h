// The explorer's ranking part: the models it holds, the ranking of the open
// document (started here, run by the host through a rank session that this
// part watches), and the competition row written from it. No ImGui: the
// Rank tab (panels.cpp) draws it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "document.h"
#include "fastslow/rank/metrics.h"
#include "fastslow/rank/occlusion.h"
#include "fastslow/tune/search_space.h"
#include "fastslow/tune/propose_search.h"
#include "host.h"

namespace fastslow::wasm {
struct RankSession;
}

namespace fastslow::explorer {

struct ModelSlot {
  std::string name;  // "demo" or the uploaded file's name
  std::string kind;  // tile | layout
  std::string precision = "fp32";  // how the ONNX file stores its weights (the card's precision.weights)
  int64_t onnx_bytes = 0;          // model.onnx's size (the card's onnx.bytes; 0: not recorded)
  int64_t node_feat_width = 0, config_feat_width = 0;
  // What it was trained on (DataProfile::summary), or why that is unknown.
  std::string trained_on;
  bool generated = false;  // trained on generated data: labelled as such wherever it is picked
  int64_t members = 0;     // an exported ensemble's member models (0: a single model)
  std::string combine;     // and how their scores combine (mean | weighted)
  std::string label() const { return generated ? name + " (generated data)" : name; }
};

enum class RankStatus { Idle, Running, Done, Failed, Cancelled };
const char* rank_status_name(RankStatus s);  // "idle", "running", ...

// The open document's ranking: its job's progress, then its result.
struct RankState {
  RankStatus status = RankStatus::Idle;
  int64_t done = 0, total = 0;  // batches
  std::string message;          // why it failed
  std::string model;            // the model that produced the result
  std::string shift_warning;    // the file against the model's training data, "" = none found
  std::string card_collection;  // the card's data.collection ("" for per-program cards)
  std::vector<double> group_scores;
  std::vector<int64_t> ranking;   // configs, best first
  std::vector<int64_t> position;  // per config: its place in the ranking
  GraphMetrics metrics;           // NaN fields without runtimes
  double seconds = 0;
  bool cancel_requested = false;
};

// Why one config scores as it does, or what makes it differ from another:
// occlusion (rank/occlusion.h) scored by a model through the same host job
// as a ranking (its session scores the occlusion rows instead of the
// file's configs).
struct ExplainState {
  RankStatus status = RankStatus::Idle;
  std::string message, model;
  int64_t config = -1, against = -1;
  double score = 0, against_score = 0;
  std::vector<int64_t> nodes;  // the configurable nodes' ids, config_positions order
  std::vector<double> share;   // per node: its share of the score (or of score - against's)
  double seconds = 0;
  int64_t serial = 0;  // one per explanation started
  bool done() const { return status == RankStatus::Done; }
};

// Tuning in the page, for a layout file and a model: configs nobody
// measured, proposed by the core's evolutionary search
// (tune/propose_search.h) with the model as its oracle, each generation one
// host job scoring explicit rows (the file's own configs come first); and,
// for a file with runtimes, what-to-measure-next replayed in pool mode: the
// model's order (the page cannot retrain it: rounds follow its scores,
// epsilon-greedy) against random order, each from 20 random starts.
struct ProposedConfig {
  std::vector<float> config;  // configurable nodes x width (tile: one row)
  double score = 0;
  double speedup = 0;         // predicted over the best measured config (0: the file has no runtimes)
  int64_t changed = -1;       // choices from the nearest measured config (the file's, none measured)
};
struct TuneState {
  RankStatus status = RankStatus::Idle;
  std::string message, model;
  int64_t count = 0, budget = 0;  // proposals asked for, new candidates to score
  int64_t generations = 0, scored = 0;
  std::vector<ProposedConfig> proposals;  // best first
  double best_file_score = 0;             // the model's best score among the file's configs
  // Pool mode (files with runtimes): median measurements until one within
  // 0.1 % of the file's best (batches of 8 after a random start of 8;
  // infinite: not within 64 rounds).
  double to_target_model = -1, to_target_random = -1;
  double seconds = 0;
  bool done() const { return status == RankStatus::Done; }
};

class Ranking {
 public:
  std::vector<ModelSlot> models;
  int model_index = 0;  // the Rank tab's pick
  RankState rank;
  ExplainState explain;
  TuneState tune;
  std::string picked_collection;  // the user's pick for the submission row where the card's does not fit
  std::string submission_error;   // why the last submission row could not be written
  bool show_tab = false;          // bring the Rank tab up on the next frame

  // Adds (or replaces, by name) a model from its card; its index. Throws
  // the card parser's Error.
  int add_model(const std::string& name, const std::string& card_json);

  // A new document (or none): whatever runs is the previous one's.
  void reset();
  // Asks the host to rank `doc` with model `index`; false (nothing asked)
  // with no document, no such model, or a ranking running. A host that
  // cannot rank leaves the ranking failed with its reason.
  bool start(const Document* doc, int index, Host& host);
  void cancel() { rank.cancel_requested = true; }
  // Asks the host to explain `config` (against `against`, -1 = none) of
  // `doc` with model `index`; false with no document, no such model, a
  // config out of range, a tile graph or a job running.
  bool start_explain(const Document* doc, int index, int64_t config, int64_t against, Host& host);
  // Proposes `count` configs of `doc` (a layout file) from `budget` new
  // candidates scored with model `index`; false with no layout document, no
  // such model, a count or budget below 1 or a job running.
  bool start_tune(const Document* doc, int index, int64_t count, int64_t budget, Host& host);
  // The proposals as "Download proposals" saves them: one line per proposal
  // and configurable node (proposal,score,speedup,node,<config features>);
  // Error without proposals.
  std::string proposals_csv(const Document& doc) const;
  bool running() const {
    return rank.status == RankStatus::Running || explain.status == RankStatus::Running ||
           tune.status == RankStatus::Running;
  }
  // The session the host runs for `ticket`, prepared from `doc`'s bytes and
  // config groups (not copied, not grouped again) and watched by this part.
  // Throws Error for a stale ticket or a card that does not fit the file
  // (the ranking then shows it as failed).
  std::unique_ptr<wasm::RankSession> open_session(int ticket, const Document& doc, const std::string& card_json);

  // The submission row's collection: the card's when it is of the file's
  // kind, else the user's pick, else the only one of that kind; "" = ask.
  std::string submission_collection(const Document& doc) const;
  std::vector<std::string> submission_choices(const Document& doc) const;  // the collections of the file's kind
  void pick_collection(const Document* doc, const std::string& id);        // Error for one not in the choices
  // The competition CSV of the last ranking; throws Error when there is
  // none or no collection is known yet.
  std::string submission_csv(const Document* doc) const;
  static std::string submission_file_name(const Document* doc);

 private:
  friend class SessionWatcher;
  // Asks the host for the current job under a new ticket; a refusal fails it.
  void request(int index, Host& host, RankStatus& status, std::string& message);
  enum class Job { Rank, Explain, Tune };
  bool current(int ticket) const {
    const RankStatus s = job_ == Job::Rank ? rank.status : job_ == Job::Explain ? explain.status : tune.status;
    return ticket == ticket_ && s == RankStatus::Running;
  }
  // A generation's scores are in: tell the search, ask the host for the
  // next generation's job or end the tuning.
  void tune_scored(const std::vector<double>& scores, const Document& doc, double seconds);
  void tune_finish(const Document& doc);
  Job job_ = Job::Rank;  // what the current ticket's session does
  OcclusionRows plan_;   // the explanation's rows (their values live in the session)
  // Tuning: the search lives across its jobs.
  std::unique_ptr<ConfigSpace> space_;
  std::unique_ptr<ProposeSearch> search_;
  std::vector<int64_t> tune_measured_;  // the groups proposals are counted from (choices_from_nearest; empty: all)
  int64_t tune_common_ = -1;  // the file's most common config (start_batch.h): the model order's first
  std::vector<float> pending_;       // the next generation's rows, asked for before its job
  Host* host_ = nullptr;
  int tune_model_ = 0;
  const Document* tune_doc_ = nullptr;
  // Opening a file or starting a ranking draws a new ticket: what a session
  // of an older one reports is dropped (another document's).
  int ticket_ = 0;
};

}  // namespace fastslow::explorer
