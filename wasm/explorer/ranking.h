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
#include "host.h"

namespace fastslow::wasm {
struct RankSession;
}

namespace fastslow::explorer {

struct ModelSlot {
  std::string name;  // "demo" or the uploaded file's name
  std::string kind;  // tile | layout
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

class Ranking {
 public:
  std::vector<ModelSlot> models;
  int model_index = 0;  // the Rank tab's pick
  RankState rank;
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
  bool current(int ticket) const { return ticket == ticket_ && rank.status == RankStatus::Running; }
  // Opening a file or starting a ranking draws a new ticket: what a session
  // of an older one reports is dropped (another document's).
  int ticket_ = 0;
};

}  // namespace fastslow::explorer
