#include "app.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "c_strings.h"
#include "rank_figure.h"
#include "fastslow/error.h"
#include "fastslow/data/collection.h"
#include "fastslow/graph/node_effects_json.h"
#include "fastslow/rank/metrics_json.h"
#include "rank_session.h"

namespace fastslow::explorer {

void App::open(std::string name, MallocBytes bytes, size_t size, double started_ms) {
  changed();
  status_.clear();
  try {
    doc = open_document(std::move(name), std::move(bytes), size);
  } catch (const std::exception& e) {
    error_ = e.what();  // the previous graph stays
    throw;
  }
  error_.clear();
  heatmap_config = 0;
  heatmap_proposal = against_config = -1;
  ranking.reset();  // a ranking still running is the previous file's
  compare = {};
  file_compare = {};
  graph.show(doc.get());
  effects.reset(doc.get());
  drawn_since_open_ = false;
  stats.open_started_ms = started_ms;
  stats.first_after_open_ms = -1;
}

void App::open_study(std::string name, const std::string& text) {
  changed();
  status_.clear();
  try {
    studies.open(std::move(name), text);
  } catch (const std::exception& e) {
    error_ = e.what();  // the previous study stays
    throw;
  }
  error_.clear();
}

std::unique_ptr<wasm::RankSession> App::open_rank_session(int ticket, const std::string& card_json) {
  changed();
  if (!doc) throw Error("no graph open to rank");
  std::unique_ptr<wasm::RankSession> s = ranking.open_session(ticket, *doc, card_json);
  const nlohmann::json info = wasm::rank_info(*s, doc->name);
  if (info.at("shift").is_object() && ranking.rank.status == RankStatus::Running)
    ranking.rank.shift_warning = info.at("shift").at("warning").get<std::string>();
  return s;
}

bool App::wants_frame(double now_ms) const {
  const bool ranking_runs = ranking.rank.status == RankStatus::Running;
  const bool busy = now_ms - host_.last_input_ms() < 1000 || (changes_ != drawn_changes_ && !ranking_runs);
  return busy || now_ms - last_frame_at_ >= (ranking_runs ? 1000 : 250);
}

void App::show_explanation() {
  const ExplainState& x = ranking.explain;
  shown_explanation_ = x.serial;
  if (!doc || !x.done()) return;
  std::vector<double> values(static_cast<size_t>(doc->graph.num_nodes), std::nan(""));
  for (size_t k = 0; k < x.nodes.size() && k < x.share.size(); ++k)
    if (x.nodes[k] >= 0 && x.nodes[k] < doc->graph.num_nodes) values[static_cast<size_t>(x.nodes[k])] = x.share[k];
  char title[96];
  if (x.against >= 0)
    std::snprintf(title, sizeof title, "share of config %lld - config %lld", static_cast<long long>(x.config),
                  static_cast<long long>(x.against));
  else
    std::snprintf(title, sizeof title, "share of config %lld's score", static_cast<long long>(x.config));
  graph.set_node_values(std::move(values), title);
}

void App::show_effects(bool coloured) {
  changed();
  if (!coloured) {
    if (effects_coloured()) graph.set_node_values({}, "");
    return;
  }
  if (!doc || !MeasuredEffects::apply(*doc)) return;
  if (!effects.found) effects.find(*doc);
  if (!effects.error.empty()) return;
  graph.set_node_values(effects.node_values(doc->graph.num_nodes), kEffectsTitle, "dark: same layout in every config");
  show_summary_ = true;  // its table lists the nodes and their rows
}

void App::compare_configs(int64_t a, int64_t b) {
  changed();
  if (a < 0 || !doc) {
    compare = {};
    graph.set_highlight({}, "");
    return;
  }
  compare = diff_configs(*doc, a, b);
  char title[96];
  std::snprintf(title, sizeof title, "%lld vs %lld: %zu differ", static_cast<long long>(a), static_cast<long long>(b),
                compare.nodes.size());
  graph.set_highlight(compare.nodes, title);
  show_configs_ = true;  // the list of differences is in the Configs tab
}

void App::compare_file(std::string name, MallocBytes bytes, size_t size) {
  changed();
  if (!doc) throw Error("open a graph before comparing " + name + " with it");
  try {
    const std::unique_ptr<Document> other = open_document(std::move(name), std::move(bytes), size, false);
    file_compare = compare_files(*doc, *other);
  } catch (const std::exception& e) {
    error_ = e.what();
    throw;
  }
  error_.clear();
}

void App::show_unmatched() {
  changed();
  if (!file_compare.active()) return;
  graph.set_highlight(file_compare.graph.unmatched_a, std::to_string(file_compare.graph.unmatched_a.size()) +
                                                         " without a partner in " + file_compare.other);
}

void App::frame(float width, float height) {
  last_frame_at_ = host_.now_ms();
  drawn_changes_ = changes_;
  // A new file's first frame shows the graph; its measured effects come in the frame after.
  if (doc && effects.due && drawn_since_open_) {
    effects.find(*doc);
    changed();
  }
  // An explanation that came in since the last frame colours the graph.
  if (ranking.explain.done() && ranking.explain.serial != shown_explanation_) show_explanation();
  const float side = std::min(420.0f * dpr, 0.4f * width);
  const float menu_h = ImGui::GetFrameHeight();
  if (ImGui::BeginMainMenuBar()) {
    if (ImGui::BeginMenu("File")) {
      const char* labels[] = {"Open graph (.npz)...", "Open model (model.onnx + model.json)...",
                              "Open study (trials.jsonl)..."};
      for (int k = 0; k < 3; ++k)
        if (ImGui::MenuItem(labels[k]) && !host_.open_dialog(static_cast<FileKind>(k)))
          status_ = "no file chooser here: give files on the command line or drop them on the window";
      if (studies.study) ImGui::MenuItem("Show the study window", nullptr, &studies.visible);
      if (doc && ImGui::MenuItem("Compare with another file...") && !host_.open_dialog(FileKind::Compare))
        status_ = "no file chooser here: give --compare-file on the command line";
      if (doc && ImGui::MenuItem("Save the graph view as SVG")) {
        try {
          status_ = "saved " + host_.save(export_name("_view.svg"), graph.svg(1));
        } catch (const std::exception& e) {
          error_ = e.what();
        }
      }
      if (doc && host_.can_save_png()) {
        ImGui::SetNextItemWidth(80 * dpr);
        ImGui::InputFloat("##pngscale", &png_scale, 0, 0, "%.1fx");
        png_scale = std::clamp(png_scale, 0.25f, 8.0f);
        ImGui::SameLine();
        if (ImGui::MenuItem("Save the graph view as PNG")) {
          try {
            status_ = "saved " + host_.save_png(export_name("_view.png"), graph.svg(1), png_scale);
          } catch (const std::exception& e) {
            error_ = e.what();
          }
        }
      }
      ImGui::EndMenu();
    }
    if (doc)
      ImGui::TextDisabled("  %s  |  %s  |  %lld nodes  |  %lld configs", doc->name.c_str(), graph_kind_name(doc->kind),
                          static_cast<long long>(doc->graph.num_nodes), static_cast<long long>(doc->info.configs));
    if (!status_.empty()) ImGui::TextColored({0.6f, 0.8f, 1, 1}, "  %s", status_.c_str());
    ImGui::EndMainMenuBar();
  }
  graph.draw(0, menu_h, width - side, height - menu_h, dpr);
  ImGui::SetNextWindowPos({width - side, menu_h});
  ImGui::SetNextWindowSize({side, height - menu_h});
  ImGui::Begin("Panel", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove);
  side_panel();
  ImGui::End();
  inspector();
  const float gap = 8 * dpr;
  studies.window(gap, menu_h + gap, width - side - 2 * gap, height - menu_h - 2 * gap, dpr);
  error_box(width, height);
}

std::string App::export_name(const std::string& suffix) const {
  return (doc ? file_stem(doc->name) : std::string("graph")) + suffix;
}

std::string App::rank_scatter(int64_t* points) const {
  const RankState& r = ranking.rank;
  if (!doc || r.status != RankStatus::Done || r.group_scores.empty())
    throw Error("no ranking to plot: rank the open file with a model first");
  if (doc->runtime.empty()) throw Error(doc->name + " has no measured runtimes to plot the scores against");
  return rank_scatter_svg(doc->name + ": " + r.model + "'s scores", config_scores(), doc->runtime, points);
}


void App::error_box(float width, float height) {
  if (error_.empty()) return;
  ImGui::SetNextWindowPos({0.5f * width, 0.3f * height}, ImGuiCond_Always, {0.5f, 0.5f});
  ImGui::SetNextWindowSize({std::min(560.0f * dpr, 0.9f * width), 0});
  ImGui::Begin("Could not open the file", nullptr, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove);
  ImGui::TextWrapped("%s", error_.c_str());
  if (ImGui::Button("OK")) error_.clear();
  ImGui::End();
}

void App::frame_done(double ms) {
  stats.last_ms = ms;
  stats.avg_ms = stats.frames ? 0.9 * stats.avg_ms + 0.1 * ms : ms;
  ++stats.frames;
  drawn_since_open_ = doc != nullptr;
  if (doc && stats.first_after_open_ms < 0 && stats.open_started_ms > 0)
    stats.first_after_open_ms = host_.now_ms() - stats.open_started_ms;
}

std::vector<double> App::config_scores() const {
  std::vector<double> per_config;
  const RankState& r = ranking.rank;
  if (doc && r.status == RankStatus::Done)
    for (int64_t g : doc->groups.group_of) per_config.push_back(r.group_scores[g]);
  return per_config;
}

std::string App::state_json() const {
  nlohmann::json j;
  j["frames"] = stats.frames;
  j["frame_ms"] = stats.last_ms;
  j["frame_ms_avg"] = stats.avg_ms;
  j["first_frame_ms"] = stats.first_after_open_ms;
  j["error"] = error_;
  j["models"] = nlohmann::json::array();
  j["model_cards"] = nlohmann::json::array();
  for (const ModelSlot& m : ranking.models) {
    j["models"].push_back(m.name);
    j["model_cards"].push_back({{"name", m.name},
                                {"label", m.label()},
                                {"trained_on", m.trained_on},
                                {"generated", m.generated},
                                {"members", m.members}});
  }
  j["selected"] = graph.selected();
  j["search_hits"] = graph.search_hits();
  const NodeSearch& found = graph.search_result();
  j["search"] = {{"error", graph.search_error()}, {"matches", found.starts.size()}, {"nodes", found.nodes.size()},
                 {"steps", found.steps}, {"ms", graph.search_ms()}};
  const View& v = graph.view();
  j["view"] = {{"zoom", v.zoom}, {"center_x", v.center_x}, {"center_y", v.center_y}};
  if (doc) {
    const std::vector<char>& collapsed = graph.collapsed();
    j["graph"] = {{"name", doc->name},
                  {"kind", graph_kind_name(doc->kind)},
                  {"nodes", doc->graph.num_nodes},
                  {"edges", doc->graph.num_edges()},
                  {"configurable_nodes", doc->config_nodes.size()},
                  {"configs", doc->info.configs},
                  {"unique_configs", doc->info.unique_configs},
                  {"layers", doc->drawing.num_layers()},
                  {"computations", collapsed.size()},
                  {"collapsed", std::count(collapsed.begin(), collapsed.end(), 1)},
                  {"display_nodes", graph.display().node_of.size()},
                  {"load_ms", doc->load_ms},
                  {"layout_ms", doc->layout_ms},
                  {"vertices", graph.vertices()}};
    const GraphPanel::DrawStats& ds = graph.draw_stats();
    j["graph"].update({{"edges_drawn", ds.edges_drawn},
                       {"edge_segments", ds.segments},
                       {"overlay_edges", ds.overlay_edges},
                       {"configurable_marked", ds.marks},
                       {"hubs", ds.hubs},
                       {"hidden_nodes", graph.display().hidden},
                       {"chains", graph.chains()},
                       {"folded_chains", graph.folded_chains()},
                       {"blocks", graph.blocks()},
                       {"folded_blocks", graph.folded_blocks()},
                       {"node_set", graph.node_set() == NodeSet::All ? "all" : "model_reads"}});
  } else {
    j["graph"] = nullptr;
  }
  const RankState& r = ranking.rank;
  j["rank"] = {{"status", rank_status_name(r.status)},
               {"done", r.done},
               {"total", r.total},
               {"message", r.message},
               {"model", r.model},
               {"shift_warning", r.shift_warning},
               {"scores", r.group_scores.size()},
               {"configs", r.ranking.size()},
               {"seconds", r.seconds},
               {"collection", doc ? ranking.submission_collection(*doc) : ""}};
  j["rank"].update(metrics_json(r.metrics));
  const ExplainState& x = ranking.explain;
  j["explain"] = {{"status", rank_status_name(x.status)}, {"message", x.message}, {"model", x.model},
                  {"config", x.config}, {"against", x.against}, {"score", x.score}, {"against_score", x.against_score},
                  {"seconds", x.seconds}, {"nodes", x.nodes}, {"share", x.share},
                  {"coloured", explanation_coloured()}, {"log_scale", graph.log_scale()}};
  // The Configs tab's config read against them, as `info --nodes --config N --json`'s "config_effects".
  nlohmann::json config_rows = nlohmann::json::array();
  if (doc && !effects.effects.entries.empty() && heatmap_config >= 0 && heatmap_config < doc->info.configs) {
    try {
      for (const ConfigRowEffect& x : config_row_effects(effects.effects, doc->config_nodes, doc->config_row(heatmap_config)))
        config_rows.push_back({{"nodes", effects.effects.entries[x.entry].nodes},
                               {"row_index", x.row},
                               {"slower", x.row >= 0 ? nlohmann::json(x.slower) : nlohmann::json(nullptr)}});
    } catch (const std::exception&) {
      config_rows = nullptr;
    }
  }
  // No document, no entries: the opcodes are never read then.
  j["effects"] = node_effects_json<nlohmann::json>(effects.effects, doc ? doc->graph.node_opcode : std::vector<int32_t>{});
  j["effects"].update({{"found", effects.found}, {"config", heatmap_config}, {"config_rows", config_rows},
                       {"error", effects.error}, {"entry", effects.entry}, {"ms", effects.ms},
                       {"coloured", effects_coloured()}});
  const TuneState& t = ranking.tune;
  nlohmann::json proposals = nlohmann::json::array();
  for (const ProposedConfig& p : t.proposals) proposals.push_back({{"score", p.score}, {"speedup", p.speedup}, {"changed", p.changed}});
  auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  j["tune"] = {{"status", rank_status_name(t.status)}, {"message", t.message}, {"model", t.model},
               {"count", t.count}, {"budget", t.budget}, {"generations", t.generations}, {"scored", t.scored},
               {"best_file_score", t.best_file_score}, {"proposals", proposals},
               {"to_target_model", finite(t.to_target_model)}, {"to_target_random", finite(t.to_target_random)},
               {"seconds", t.seconds}};
  j["compare"] = {{"a", compare.a}, {"b", compare.b}, {"nodes", compare.nodes}};
  j["file_compare"] = file_compare.active() ? file_comparison_json(file_compare) : nlohmann::json(nullptr);
  j["highlighted"] = graph.highlight().size();
  j["study"] = studies.study ? studies.study->state_json() : nlohmann::json(nullptr);
  return wasm::json_text(j);
}

}  // namespace fastslow::explorer
