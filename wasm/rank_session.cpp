#include "rank_session.h"

#include <algorithm>

#include "fastslow/data/data_profile.h"
#include "fastslow/error.h"
#include "fastslow/features/layout_context.h"

namespace fastslow::wasm {

namespace {

uintptr_t addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace

std::unique_ptr<RankSession> prepare_rank_session(ModelCard card, CachedGraph graph,
                                                  std::unique_ptr<RankWatcher> watcher) {
  auto s = std::make_unique<RankSession>();
  s->card = std::move(card);
  s->graph = std::move(graph);
  s->inputs = rank_graph_inputs(s->graph, s->card);
  s->groups.resize(static_cast<size_t>(s->graph.groups.num_groups()));
  for (size_t i = 0; i < s->groups.size(); ++i) s->groups[i] = static_cast<int64_t>(i);
  s->chunks = rank_chunk_count(static_cast<int64_t>(s->groups.size()), s->card.chunk);
  s->watcher = std::move(watcher);
  return s;
}

void set_explicit_rows(RankSession& s, std::vector<float> rows) {
  const int64_t row = s.graph.config_row_elems;
  if (row == 0 || rows.empty() || static_cast<int64_t>(rows.size()) % row != 0)
    throw Error(s.graph.source, "", std::to_string(rows.size()) + " values are not whole configs of " + std::to_string(row));
  s.row_count = static_cast<int64_t>(rows.size()) / row;
  s.rows = std::move(rows);
  s.chunks = rank_chunk_count(s.row_count, s.card.chunk);
}

std::optional<int64_t> rank_session_batch(RankSession& s, int64_t index) {
  if (index < 0 || index >= s.chunks)
    throw Error("rank: batch " + std::to_string(index) + " of " + std::to_string(s.chunks));
  if (s.watcher) {
    if (std::optional<std::string> stop = s.watcher->progress(index, s.chunks)) {
      s.stopped = *stop;
      return std::nullopt;
    }
  }
  if (s.explicit_rows()) {
    // Layout rows go to the model as they are, tile rows standardised (rank_inputs.h).
    const int64_t row = s.row_count > 0 ? static_cast<int64_t>(s.rows.size()) / s.row_count : 0;
    const int64_t first = index * s.card.chunk, n = std::min(s.card.chunk, s.row_count - first);
    s.batch = rank_row_batch(s.graph, std::vector<float>(s.rows.begin() + first * row, s.rows.begin() + (first + n) * row),
                             n, s.card);
    return n;
  }
  const std::vector<int64_t> part = rank_chunk(s.groups, s.card.chunk, index);
  s.batch = rank_config_batch(s.graph, part, s.card);
  return static_cast<int64_t>(part.size());
}

RankResult rank_session_finish(RankSession& s, std::vector<double> scores, double seconds) {
  RankResult r;
  if (s.explicit_rows()) {  // rows of no ranking: the scores as they are
    if (static_cast<int64_t>(scores.size()) != s.row_count)
      throw Error("rank: " + std::to_string(scores.size()) + " scores for " + std::to_string(s.row_count) + " rows");
  } else {
    r.ranking = rank_configs(s.graph.groups, s.groups, scores);  // throws on a count that does not fit
    if (s.graph.has_runtime()) r.metrics = evaluate_ranking(r.ranking, s.graph.runtime, s.graph.groups);
    r.metrics.configs = static_cast<int64_t>(r.ranking.size());
  }
  r.group_scores = std::move(scores);
  r.seconds = seconds;
  if (s.watcher) {
    s.watcher->finished(s, r);
    s.watcher.reset();
  }
  return r;
}

void rank_session_abandon(RankSession& s, const std::string& failure) {
  if (!s.watcher) return;
  std::unique_ptr<RankWatcher> w = std::move(s.watcher);
  if (!s.stopped.empty())
    w->failed("ranking " + s.stopped, s.stopped == "cancelled");
  else
    w->failed(failure.empty() ? "the ranking ended without its scores" : failure, false);
}

RankSession& checked(RankSession* s) {
  if (!s) throw Error("no rank session (closed, or never opened)");
  return *s;
}

std::vector<double> doubles(const double* p, int count) {
  if (count < 0) throw Error("rank: " + std::to_string(count) + " scores");
  if (count > 0 && !p) throw Error("rank: scores at a null pointer");
  return std::vector<double>(p, p + count);
}

nlohmann::json rank_info(const RankSession& s, const std::string& file_name) {
  const RankGraphInputs& in = s.inputs;
  nlohmann::json j = {
      {"session", addr(&s)},
      {"kind", graph_kind_name(s.graph.kind)},
      {"nodes", in.num_nodes},
      {"edges", in.num_edges()},
      {"config_nodes", static_cast<int64_t>(in.config_nodes.size())},
      {"node_feat_width", in.node_feat_width},
      {"config_feat_width", s.card.config_feat_width},
      {"configs", s.graph.num_configs},
      {"groups", s.count()},
      {"chunk", s.card.chunk},
      {"chunks", s.chunks},
      {"has_runtime", s.graph.has_runtime()},
      {"node_feat", addr(in.node_feat.data())},
      {"node_opcode", addr(in.node_opcode.data())},
      {"edge_index", addr(in.edge_index.data())},
      {"config_nodes_ptr", addr(in.config_nodes.data())},
      {"config_context_ptr", addr(in.config_context.data())},
      {"config_context_width", LayoutContext::kWidth},
      {"shift", nullptr},
  };
  // How the file differs from what the model was trained on (the same check
  // and words as `fastslow rank`).
  if (s.card.training_data) {
    const ShiftReport r = distribution_shift(*s.card.training_data, sample_graph(s.graph));
    j["shift"] = {{"warning", shift_warning(file_name, *s.card.training_data, r)},
                  {"findings", r.findings},
                  {"origin", s.card.training_data->origin}};
  }
  return j;
}

}  // namespace fastslow::wasm
