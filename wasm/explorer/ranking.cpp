#include "ranking.h"

#include <algorithm>
#include <cmath>

#include "fastslow/data/collection.h"
#include "fastslow/data/graph_cache.h"
#include "fastslow/data/submission.h"
#include "fastslow/error.h"
#include "fastslow/rank/model_card.h"
#include "fastslow/rank/occlusion.h"
#include "fastslow/features/layout_context.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/tune/graph_space.h"
#include "fastslow/tune/pick.h"
#include "fastslow/tune/start_batch.h"
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
    if (r_.job_ != Ranking::Job::Rank) return std::nullopt;
    if (r_.rank.cancel_requested) return std::string("cancelled");
    r_.rank.done = done;
    r_.rank.total = total;
    return std::nullopt;
  }

  void finished(const wasm::RankSession& session, const wasm::RankResult& result) override {
    if (!r_.current(ticket_)) return;
    if (r_.job_ == Ranking::Job::Tune) {
      if (r_.tune_doc_) r_.tune_scored(result.group_scores, *r_.tune_doc_, result.seconds);
      return;
    }
    if (r_.job_ == Ranking::Job::Explain) {
      ExplainState& x = r_.explain;
      const OcclusionShares shares = occlusion_shares(r_.plan_, result.group_scores);
      x.score = shares.score;
      x.against_score = shares.against_score;
      x.share = shares.share;
      x.nodes.clear();
      for (int64_t p : session.graph.pruned.config_positions) x.nodes.push_back(session.graph.pruned.kept[static_cast<size_t>(p)]);
      x.seconds = result.seconds;
      x.status = RankStatus::Done;
      return;
    }
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
    if (r_.job_ == Ranking::Job::Explain) {
      r_.explain.status = RankStatus::Failed;
      r_.explain.message = message;
      return;
    }
    if (r_.job_ == Ranking::Job::Tune) {
      r_.tune.status = cancelled ? RankStatus::Cancelled : RankStatus::Failed;
      r_.tune.message = message;
      return;
    }
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
  m.precision = card.weight_precision;
  m.onnx_bytes = card.onnx_bytes;
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
  explain = ExplainState{};
  tune = TuneState{};
  search_.reset();
  space_.reset();
  tune_measured_.clear();
  tune_doc_ = nullptr;
  picked_collection.clear();
  submission_error.clear();
  ++ticket_;
}

void Ranking::request(int index, Host& host, RankStatus& status, std::string& message) {
  model_index = index;
  const std::string refused = host.request_rank(index, ++ticket_);
  if (!refused.empty() && current(ticket_)) {  // the host may have failed it already
    status = RankStatus::Failed;
    message = refused;
  }
}

bool Ranking::start(const Document* doc, int index, Host& host) {
  if (!doc || index < 0 || index >= static_cast<int>(models.size()) || running()) return false;
  job_ = Job::Rank;
  rank = RankState{};
  rank.status = RankStatus::Running;
  rank.model = models[index].name;
  show_tab = true;
  request(index, host, rank.status, rank.message);
  return true;
}

bool Ranking::start_explain(const Document* doc, int index, int64_t config, int64_t against, Host& host) {
  if (!doc || doc->kind != GraphKind::Layout || index < 0 || index >= static_cast<int>(models.size()) || running())
    return false;
  if (config < 0 || config >= doc->info.configs || against < -1 || against >= doc->info.configs || against == config)
    return false;
  job_ = Job::Explain;
  const int64_t serial = explain.serial + 1;
  explain = ExplainState{};
  explain.serial = serial;
  explain.status = RankStatus::Running;
  explain.model = models[index].name;
  explain.config = config;
  explain.against = against;
  request(index, host, explain.status, explain.message);
  return true;
}

bool Ranking::start_tune(const Document* doc, int index, int64_t count, int64_t budget, Host& host) {
  if (!doc || index < 0 || index >= static_cast<int>(models.size()) || running() ||
      count < 1 || budget < 1)
    return false;
  job_ = Job::Tune;
  tune = TuneState{};
  tune.status = RankStatus::Running;
  tune.model = models[index].name;
  tune.count = count;
  tune.budget = budget;
  tune_model_ = index;
  host_ = &host;
  tune_doc_ = doc;
  search_.reset();
  space_.reset();
  request(index, host, tune.status, tune.message);
  return true;
}

void Ranking::tune_scored(const std::vector<double>& scores, const Document& doc, double seconds) {
  search_->tell(scores);
  ++tune.generations;
  tune.scored = search_->scored_new();
  tune.seconds += seconds;
  pending_ = search_->ask();
  if (pending_.empty()) return tune_finish(doc);
  request(tune_model_, *host_, tune.status, tune.message);
}

void Ranking::tune_finish(const Document& doc) {
  const ConfigGroups& groups = doc.groups;
  // The search scored the file's own configs first: the model's ranking of them.
  const std::vector<double>& file_scores = search_->known_scores();
  const int64_t fastest = groups.fastest_measured();
  const bool measured = fastest >= 0 && file_scores.size() == static_cast<size_t>(groups.num_groups());
  tune.best_file_score = file_scores.empty() ? 0 : *std::min_element(file_scores.begin(), file_scores.end());
  ScoreCalibration cal;
  double best_measured_score = 0;
  if (measured) {
    // Configs the file holds without a runtime (0) are neither calibrated
    // against nor picked in the pool.
    const std::vector<char> unmeasured = groups.unmeasured();
    std::vector<double> scores, runtimes;
    for (size_t k = 0; k < unmeasured.size(); ++k)
      if (!unmeasured[k]) scores.push_back(file_scores[k]), runtimes.push_back(groups.best_runtime[k]);
    cal = calibrate_scores(scores, runtimes);
    const size_t best = static_cast<size_t>(fastest);
    best_measured_score = file_scores[best];
    // Pool mode: measurements until one within 0.1 % of the file's best, in
    // the model's order (epsilon-greedy, after a start from the file's most
    // common config, as `fastslow tune` starts) and in random order, 20
    // starts each.
    const double best_runtime = groups.best_runtime[best];
    const auto median_to_target = [&](PickStrategy strategy, StartFrom from) {
      std::vector<double> counts;
      for (uint64_t start = 0; start < 20; ++start) {
        std::vector<char> mask = unmeasured;
        Rng rng(mix_seed(start, 0x706f6f6cull));  // "pool"
        PickSettings pick{strategy};
        double to_target = INFINITY;  // measurements up to and with the first within 0.1 %
        int64_t measured = 0;
        // At most 64 rounds (520 measurements): a pool with a narrow plateau
        // is not searched to the end in the page.
        for (int64_t round = 0; round < 64 && !std::isfinite(to_target); ++round) {
          const std::vector<int64_t> picks = round == 0 ? start_batch(mask, 8, from, tune_common_, rng)
                                                        : pick_batch(file_scores, {}, mask, 8, pick, rng);
          if (picks.empty()) break;
          for (int64_t p : picks) {
            mask[static_cast<size_t>(p)] = 1;
            ++measured;
            if (groups.best_runtime[static_cast<size_t>(p)] <= best_runtime * 1.001) {
              to_target = static_cast<double>(measured);
              break;
            }
          }
        }
        counts.push_back(to_target);
      }
      std::sort(counts.begin(), counts.end());
      return (counts[9] + counts[10]) / 2;
    };
    tune.to_target_model = median_to_target(PickStrategy::Epsilon, StartFrom::Common);
    tune.to_target_random = median_to_target(PickStrategy::Random, StartFrom::Random);
  }
  for (ScoredConfig& c : search_->best_new(tune.count)) {
    const int64_t changed = choices_from_nearest(*space_, c.config.data(), search_->known(), tune_measured_);
    tune.proposals.push_back({std::move(c.config), c.score, measured ? cal.speedup(best_measured_score, c.score) : 0.0, changed});
  }
  tune.status = RankStatus::Done;
}

std::string Ranking::proposals_csv(const Document& doc) const {
  if (tune.proposals.empty()) throw Error("no proposals to download: tune first");
  const int64_t w = doc.config_width();
  const std::vector<std::string>& names = config_feature_names(doc.kind);
  // A layout config is a row per configurable node, a tile config one row of bounds.
  const bool tile = doc.kind == GraphKind::Tile;
  const size_t rows = tile ? 1 : doc.config_nodes.size();
  std::string csv = tile ? "proposal,score,predicted_speedup_over_best_measured,changed_from_measured"
                         : "proposal,score,predicted_speedup_over_best_measured,changed_from_measured,node";
  for (int64_t c = 0; c < w; ++c)
    csv += "," + (w == static_cast<int64_t>(names.size()) ? names[c] : "value_" + std::to_string(c));
  csv += "\n";
  char b[64];
  for (size_t p = 0; p < tune.proposals.size(); ++p) {
    const ProposedConfig& pc = tune.proposals[p];
    for (size_t j = 0; j < rows; ++j) {
      std::snprintf(b, sizeof b, "%zu,%.9g,%.6g,%lld", p, pc.score, pc.speedup, static_cast<long long>(pc.changed));
      csv += b;
      if (!tile) csv += "," + std::to_string(doc.config_nodes[j]);
      for (int64_t c = 0; c < w; ++c) {
        std::snprintf(b, sizeof b, ",%.10g", static_cast<double>(pc.config[j * w + c]));
        csv += b;
      }
      csv += "\n";
    }
  }
  return csv;
}

std::unique_ptr<wasm::RankSession> Ranking::open_session(int ticket, const Document& doc, const std::string& card_json) {
  if (!current(ticket)) throw Error("this ranking was superseded (another file or ranking)");
  const bool explaining = job_ == Job::Explain, tuning = job_ == Job::Tune;
  try {
    ModelCard card = ModelCard::from_json(
        card_json, (explaining ? explain.model : tuning ? tune.model : rank.model) + "/model.json");
    if (job_ == Job::Rank) rank.card_collection = card.collection.value_or("");
    const int khop = card.khop;
    GraphContents known;
    known.groups = doc.groups;
    known.layout_values_only = doc.layout_values_only;
    std::unique_ptr<wasm::RankSession> s = wasm::prepare_rank_session(
        std::move(card), CachedGraph::in_memory(*doc.npz, khop, &known), std::make_unique<SessionWatcher>(*this, ticket));
    if (s->graph.groups.group_of != doc.groups.group_of)  // the views index the document's groups with the scores
      throw Error(doc.name, "", "the prepared configs are not the open file's");
    if (explaining) {
      plan_ = occlusion_rows(s->graph, explain.config, explain.against);
      wasm::set_explicit_rows(*s, std::move(plan_.rows));
      plan_.rows.clear();
    }
    if (tuning) {
      if (!search_) {  // the first generation: the space and the search, from the prepared graph
        const CachedGraph& g = s->graph;
        std::vector<int64_t> all(static_cast<size_t>(g.groups.num_groups()));
        for (size_t k = 0; k < all.size(); ++k) all[k] = static_cast<int64_t>(k);
        std::vector<float> known = g.config_rows(all);
        space_ = config_space(g, known, SpaceKind::Menu);
        const std::vector<char> unmeasured = g.groups.unmeasured();
        const bool any_measured = g.groups.fastest_measured() >= 0;
        // The pool's start must have a runtime to look up.
        tune_common_ = most_common_config(g, known, any_measured ? unmeasured : std::vector<char>{});
        // Anchors: the configs measured fastest (propose_search.h).
        std::vector<int64_t> anchors;
        if (any_measured) {
          std::vector<int64_t> order;
          for (int64_t k : all)
            if (!unmeasured[static_cast<size_t>(k)]) order.push_back(k);
          std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
            return g.groups.best_runtime[static_cast<size_t>(a)] < g.groups.best_runtime[static_cast<size_t>(b)];
          });
          anchors.assign(order.begin(), order.begin() + std::min<size_t>(order.size(), 8));
        }
        tune_measured_.clear();
        if (any_measured)
          for (int64_t k : all)
            if (!unmeasured[static_cast<size_t>(k)]) tune_measured_.push_back(k);
        ProposeSettings settings;
        settings.budget = tune.budget;
        settings.keep = std::max<int64_t>(settings.keep, tune.count);
        search_ = std::make_unique<ProposeSearch>(*space_, settings, std::move(known), anchors);
        pending_ = search_->ask();
      }
      wasm::set_explicit_rows(*s, pending_);
    }
    return s;
  } catch (const std::exception& e) {
    RankState* r = job_ == Job::Rank ? &rank : nullptr;
    (r ? r->status : explaining ? explain.status : tune.status) = RankStatus::Failed;
    (r ? r->message : explaining ? explain.message : tune.message) = e.what();
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
