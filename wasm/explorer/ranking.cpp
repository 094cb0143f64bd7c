// The app's side of a ranking: tickets, preparing the open document for a
// model, turning the scores JS brings back into the ranking and its metrics,
// and the competition row. ONNX Runtime Web runs in the page's JS between
// rank_open and rank_done.
#include <algorithm>

#include "app.h"
#include "c_strings.h"
#include "fastslow/data/collection.h"
#include "fastslow/data/graph_cache.h"
#include "fastslow/data/submission.h"
#include "fastslow/error.h"
#include "fastslow/rank/model_card.h"
#include "fastslow/rank/rank_inputs.h"
#include "js_api.h"
#include "rank_session.h"

namespace fastslow::explorer {

bool App::start_rank(int index) {
  if (!doc || index < 0 || index >= static_cast<int>(models.size()) || rank.status == RankStatus::Running) return false;
  rank = RankState{};
  rank.status = RankStatus::Running;
  rank.model = models[index].name;
  model_index = index;
  dirty = true;
  js_request_rank(index, ++rank_ticket);
  return true;
}

std::string App::rank_open(int ticket, const std::string& card_json) {
  if (ticket != rank_ticket || rank.status != RankStatus::Running || !doc)
    throw Error("this ranking was superseded (another file or ranking)");
  ModelCard card = ModelCard::from_json(card_json, rank.model + "/model.json");
  rank.card_collection = card.collection.value_or("");
  const int khop = card.khop;
  // From the document's bytes, in memory (the file is not copied), with the
  // config groups found when it was opened (not grouped again).
  GraphContents known;
  known.groups = doc->groups;
  known.layout_values_only = doc->layout_values_only;
  std::unique_ptr<wasm::RankSession> s =
      wasm::prepare_rank_session(std::move(card), CachedGraph::in_memory(*doc->npz, khop, &known));
  const nlohmann::json info = wasm::rank_info(*s, doc->name);
  std::string text = wasm::json_text(info);
  if (info.at("shift").is_object()) rank.shift_warning = info.at("shift").at("warning").get<std::string>();
  dirty = true;
  s.release();  // JS owns it now: fastslow_rank_close
  return text;
}

bool App::rank_progress(int ticket, int64_t done, int64_t total) {
  if (ticket != rank_ticket || rank.status != RankStatus::Running) return false;
  rank.done = done;
  rank.total = total;
  dirty = true;
  return !rank.cancel_requested;
}

void App::rank_done(int ticket, const wasm::RankSession& session, std::vector<double> scores, double seconds) {
  if (ticket != rank_ticket || rank.status != RankStatus::Running || !doc) return;
  dirty = true;
  // The views index the document's groups with these scores.
  if (session.graph.groups.group_of != doc->groups.group_of)
    throw Error(doc->name, "", "the ranked configs are not the open file's");
  std::vector<int64_t> ranking = rank_configs(session.graph.groups, session.groups, scores);
  GraphMetrics metrics;
  if (session.graph.has_runtime()) metrics = evaluate_ranking(ranking, session.graph.runtime, session.graph.groups);
  metrics.configs = static_cast<int64_t>(ranking.size());
  RankState& r = rank;
  r.position.assign(ranking.size(), 0);
  for (size_t k = 0; k < ranking.size(); ++k) r.position[ranking[k]] = static_cast<int64_t>(k);
  r.ranking = std::move(ranking);
  r.metrics = metrics;
  r.group_scores = std::move(scores);
  r.seconds = seconds;
  r.status = RankStatus::Done;
}

void App::rank_failed(int ticket, const std::string& message, bool cancelled) {
  if (ticket != rank_ticket || rank.status != RankStatus::Running) return;
  dirty = true;
  rank.status = cancelled ? RankStatus::Cancelled : RankStatus::Failed;
  rank.message = message;
}

std::vector<std::string> App::submission_choices() const {
  std::vector<std::string> out;
  if (!doc) return out;
  for (const std::string& id : all_collection_ids())
    if (parse_collection_id(id).kind == graph_kind_name(doc->kind)) out.push_back(id);
  return out;
}

std::string App::submission_collection() const {
  const std::vector<std::string> choices = submission_choices();
  for (const std::string& id : {rank.card_collection, rank.picked_collection})
    if (std::find(choices.begin(), choices.end(), id) != choices.end()) return id;
  return choices.size() == 1 ? choices[0] : "";
}

void App::pick_collection(const std::string& id) {
  const std::vector<std::string> choices = submission_choices();
  if (std::find(choices.begin(), choices.end(), id) == choices.end())
    throw Error("'" + id + "' is not a collection of " + (doc ? graph_kind_name(doc->kind) : "any open") + " graphs");
  rank.picked_collection = id;
  dirty = true;
}

std::string App::submission_csv() const {
  if (!doc || rank.status != RankStatus::Done) throw Error("no ranking to write a submission row for");
  const std::string collection = submission_collection();
  if (collection.empty())
    throw Error(doc->name, "", "the model card names no " + std::string(graph_kind_name(doc->kind)) +
                                   " collection: pick the collection of the submission row");
  return format_submission_csv({submission_row(collection, file_stem(doc->name), rank.ranking)});
}

std::string App::submission_file_name() const { return (doc ? file_stem(doc->name) : "graph") + "_submission.csv"; }

}  // namespace fastslow::explorer
