// One file being ranked: the graph prepared for a model card stays here
// while JS (ONNX Runtime Web) scores it one batch after another. JS owns
// the job and drives it (open, batch, ..., finish); C++ only answers. A
// session may carry a watcher, the explorer's ranking, which learns the
// job's progress and result from these same calls and may ask it to stop,
// so ranking a file in the page costs 2 + N calls into wasm for N batches.
// The node tools open sessions from files (fastslow_rank_open), the
// explorer from its open document (fastslow_rank_open_document); js_api.h
// exports the calls below to JS.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "fastslow/data/graph_cache.h"
#include "fastslow/rank/metrics.h"
#include "fastslow/rank/model_card.h"
#include "fastslow/rank/rank_inputs.h"

namespace fastslow::wasm {

struct RankSession;

// What a finished ranking gives: configs best first, the scores per
// duplicate group (in group order), the metrics where the file has
// runtimes (GraphMetrics' NaN fields without), the job's time in seconds.
struct RankResult {
  std::vector<int64_t> ranking;
  std::vector<double> group_scores;
  GraphMetrics metrics;
  double seconds = 0;
};

// Learns what happens to a session (the explorer's ranking: explorer/ranking.h).
class RankWatcher {
 public:
  virtual ~RankWatcher() = default;
  // `done` of `total` batches scored; a reason to stop ("cancelled",
  // "superseded"), or nullopt to go on.
  virtual std::optional<std::string> progress(int64_t done, int64_t total) = 0;
  virtual void finished(const RankSession& s, const RankResult& r) = 0;
  // The job ended without a result: an error, or a stop the watcher asked for.
  virtual void failed(const std::string& message, bool cancelled) = 0;
};

struct RankSession {
  ModelCard card;
  CachedGraph graph;
  RankGraphInputs inputs;
  std::vector<int64_t> groups;  // every duplicate group, in order
  // Rows to score instead of the file's groups (an explanation's occlusion
  // rows, rank/occlusion.h): count x config_nodes x config_feat_width.
  std::vector<float> rows;
  int64_t row_count = 0;
  bool explicit_rows() const { return row_count > 0; }
  int64_t count() const { return explicit_rows() ? row_count : static_cast<int64_t>(groups.size()); }
  std::vector<float> batch;     // the rows of the last batch asked for
  std::unique_ptr<RankWatcher> watcher;
  std::string stopped;          // why the watcher stopped the job ("" = it did not)
  int64_t chunks = 0;
};

// Prepares the model inputs; throws Error naming the file when the card does
// not fit the graph.
std::unique_ptr<RankSession> prepare_rank_session(ModelCard card, CachedGraph graph,
                                                  std::unique_ptr<RankWatcher> watcher = nullptr);
// The session scores these layout rows (count x config_nodes x width)
// instead of the file's configs; finishing it then ranks nothing and hands
// the watcher the scores in row order. Error for a tile graph or rows that
// are not whole configs.
void set_explicit_rows(RankSession& s, std::vector<float> rows);

// The config rows of batch `index` (tile [count x config_feat_width], layout
// [count x config_nodes x config_feat_width]), in s.batch, after telling the
// watcher that `index` batches are scored: their count, or nullopt when the
// watcher asks to stop (the reason is then in s.stopped). Throws Error for
// an index out of range.
std::optional<int64_t> rank_session_batch(RankSession& s, int64_t index);

// Ranks the scores of every group and tells the watcher (explicit rows: no
// ranking, the scores as they are). Throws Error when the scores do not fit
// the session (the session stays open: close it).
RankResult rank_session_finish(RankSession& s, std::vector<double> scores, double seconds);

// Ends a session that did not finish: the watcher learns why (`failure`, or
// the stop it asked for).
void rank_session_abandon(RankSession& s, const std::string& failure);

// `s` as JS passed it: throws Error for a null session.
RankSession& checked(RankSession* s);

// `count` scores as JS passed them (float64 in the heap); throws Error for a
// negative count or a null pointer.
std::vector<double> doubles(const double* p, int count);

// The RankInfo JSON of js_api.h; the shift warning names the file `file_name`.
nlohmann::json rank_info(const RankSession& s, const std::string& file_name);

}  // namespace fastslow::wasm
