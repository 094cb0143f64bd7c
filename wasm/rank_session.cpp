#include "rank_session.h"

#include "fastslow/data/data_profile.h"
#include "fastslow/error.h"
#include "fastslow/features/layout_context.h"

namespace fastslow::wasm {

namespace {

uintptr_t addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

}  // namespace

std::unique_ptr<RankSession> prepare_rank_session(ModelCard card, CachedGraph graph) {
  auto s = std::make_unique<RankSession>();
  s->card = std::move(card);
  s->graph = std::move(graph);
  s->inputs = rank_graph_inputs(s->graph, s->card);
  s->groups.resize(static_cast<size_t>(s->graph.groups.num_groups()));
  for (size_t i = 0; i < s->groups.size(); ++i) s->groups[i] = static_cast<int64_t>(i);
  return s;
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
      {"groups", s.graph.groups.num_groups()},
      {"chunk", s.card.chunk},
      {"chunks", rank_chunk_count(static_cast<int64_t>(s.groups.size()), s.card.chunk)},
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
