#include "ranking.h"

#include <algorithm>

#include "fastslow/data/collection.h"
#include "fastslow/data/graph_cache.h"
#include "fastslow/data/submission.h"
#include "fastslow/error.h"
#include "fastslow/rank/model_card.h"
#include "rank_session.h"

namespace fastslow::explorer {

const char* rank_status_name(RankStatus s) {
  static const char* const names[] = {"idle", "running", "done", "failed", "cancelled"};
  return names[static_cast<int>(s)];
}

// The ranking's side of a session it asked the host to run: progress and
// the result land in RankState while the ticket is current; a stale
// ticket's reports are dropped and stop its job.
class SessionWatcher : public wasm::RankWatcher {
 public:
  SessionWatcher(Ranking& r, int ticket) : r_(r), ticket_(ticket) {}

  std::optional<std::string> progress(int64_t done, int64_t total) override {
    if (!r_.current(ticket_)) return std::string("superseded");
    if (r_.rank.cancel_requested) return std::string("cancelled");
    r_.rank.done = done;
    r_.rank.total = total;
    return std::nullopt;
  }

  void finished(const wasm::RankSession&, const wasm::RankResult& result) override {
    if (!r_.current(ticket_)) return;
    RankState& s = r_.rank;
    s.ranking = result.ranking;
    s.position.assign(s.ranking.size(), 0);
    for (size_t k = 0; k < s.ranking.size(); ++k) s.position[s.ranking[k]] = static_cast<int64_t>(k);
    s.group_scores = result.group_scores;
    s.metrics = result.metrics;
    s.seconds = result.seconds;
    s.done = s.total;
    s.status = RankStatus::Done;
  }

  void failed(const std::string& message, bool cancelled) override {
    if (!r_.current(ticket_)) return;
    r_.rank.status = cancelled ? RankStatus::Cancelled : RankStatus::Failed;
    r_.rank.message = message;
  }

 private:
  Ranking& r_;
  int ticket_;
};

int Ranking::add_model(const std::string& name, const std::string& card_json) {
  const ModelCard card = ModelCard::from_json(card_json, name + "/model.json");
  ModelSlot m;
  m.name = name;
  m.kind = graph_kind_name(card.kind);
  m.node_feat_width = card.node_feat_width;
  m.config_feat_width = card.config_feat_width;
  if (card.ensemble) {
    m.members = static_cast<int64_t>(card.ensemble->members.size());
    m.combine = card.ensemble->combine;
  }
  if (card.training_data) {
    m.trained_on = card.training_data->summary();
    m.generated = card.training_data->origin == "generated";
  } else {
    m.trained_on = "not recorded (exported before model cards carried a training-data profile)";
  }
  const auto it = std::find_if(models.begin(), models.end(), [&](const ModelSlot& s) { return s.name == name; });
  const int index = static_cast<int>(it - models.begin());
  if (it == models.end())
    models.push_back(std::move(m));
  else
    *it = std::move(m);
  model_index = index;
  return index;
}

void Ranking::reset() {
  rank = RankState{};
  picked_collection.clear();
  submission_error.clear();
  ++ticket_;
}

bool Ranking::start(const Document* doc, int index, Host& host) {
  if (!doc || index < 0 || index >= static_cast<int>(models.size()) || rank.status == RankStatus::Running) return false;
  rank = RankState{};
  rank.status = RankStatus::Running;
  rank.model = models[index].name;
  model_index = index;
  show_tab = true;
  const std::string refused = host.request_rank(index, ++ticket_);
  if (!refused.empty() && current(ticket_)) {
    rank.status = RankStatus::Failed;
    rank.message = refused;
  }
  return true;
}

std::unique_ptr<wasm::RankSession> Ranking::open_session(int ticket, const Document& doc, const std::string& card_json) {
  if (!current(ticket)) throw Error("this ranking was superseded (another file or ranking)");
  try {
    ModelCard card = ModelCard::from_json(card_json, rank.model + "/model.json");
    rank.card_collection = card.collection.value_or("");
    const int khop = card.khop;
    GraphContents known;
    known.groups = doc.groups;
    known.layout_values_only = doc.layout_values_only;
    std::unique_ptr<wasm::RankSession> s = wasm::prepare_rank_session(
        std::move(card), CachedGraph::in_memory(*doc.npz, khop, &known), std::make_unique<SessionWatcher>(*this, ticket));
    if (s->graph.groups.group_of != doc.groups.group_of)  // the views index the document's groups with the scores
      throw Error(doc.name, "", "the prepared configs are not the open file's");
    return s;
  } catch (const std::exception& e) {
    rank.status = RankStatus::Failed;
    rank.message = e.what();
    throw;
  }
}

std::vector<std::string> Ranking::submission_choices(const Document& doc) const {
  std::vector<std::string> out;
  for (const std::string& id : all_collection_ids())
    if (parse_collection_id(id).kind == doc.kind) out.push_back(id);
  return out;
}

std::string Ranking::submission_collection(const Document& doc) const {
  const std::vector<std::string> choices = submission_choices(doc);
  for (const std::string& id : {rank.card_collection, picked_collection})
    if (std::find(choices.begin(), choices.end(), id) != choices.end()) return id;
  return choices.size() == 1 ? choices[0] : "";
}

void Ranking::pick_collection(const Document* doc, const std::string& id) {
  const std::vector<std::string> choices = doc ? submission_choices(*doc) : std::vector<std::string>{};
  if (std::find(choices.begin(), choices.end(), id) == choices.end())
    throw Error("'" + id + "' is not a collection of " + (doc ? graph_kind_name(doc->kind) : "any open") + " graphs");
  picked_collection = id;
}

std::string Ranking::submission_csv(const Document* doc) const {
  if (!doc || rank.status != RankStatus::Done) throw Error("no ranking to write a submission row for");
  const std::string collection = submission_collection(*doc);
  if (collection.empty())
    throw Error(doc->name, "", "the model card names no " + std::string(graph_kind_name(doc->kind)) +
                                   " collection: pick the collection of the submission row");
  return format_submission_csv({submission_row(collection, file_stem(doc->name), rank.ranking)});
}

std::string Ranking::submission_file_name(const Document* doc) {
  return (doc ? file_stem(doc->name) : "graph") + "_submission.csv";
}

}  // namespace fastslow::explorer
