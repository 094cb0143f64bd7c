#include "app.h"

#include <imgui.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "c_strings.h"
#include "fastslow/rank/metrics_json.h"
#include "fastslow/view/op_family.h"
#include "js_api.h"

namespace fastslow::explorer {

App& app() {
  static App a;
  return a;
}

void App::open(std::string name, MallocBytes bytes, size_t size, double started_ms) {
  // A failure keeps the previous graph on screen.
  std::unique_ptr<Document> d = open_document(std::move(name), std::move(bytes), size);
  doc = std::move(d);
  error.clear();
  selected = hovered = -1;
  search[0] = 0;
  search_hits.clear();
  heatmap_config = 0;
  rank = RankState{};
  ++rank_ticket;  // a ranking still running is the previous file's
  collapsed.assign(std::max<size_t>(1, doc->node_splits.size()), 0);
  rebuild_display();
  fit_pending = 2;
  open_started_ms = started_ms;
  first_frame_after_open_ms = -1;
}

void App::open_study(std::string name, const std::string& text) {
  study = explorer::open_study(std::move(name), text);
  error.clear();
  show_study = place_study = true;
  dirty = true;
}

void App::rebuild_display() {
  Display d;
  const int64_t n = doc->graph.num_nodes;
  const bool any = std::find(collapsed.begin(), collapsed.end(), 1) != collapsed.end();
  d.display_of.resize(static_cast<size_t>(n));
  std::vector<int64_t> box_of(collapsed.size(), -1);
  for (int64_t v = 0; v < n; ++v) {
    const int32_t c = doc->computation[v];
    if (any && collapsed[c]) {
      if (box_of[c] < 0) {
        box_of[c] = static_cast<int64_t>(d.node_of.size());
        d.node_of.push_back(-1 - c);
        d.members.push_back(0);
      }
      d.display_of[v] = static_cast<int32_t>(box_of[c]);
    } else {
      d.display_of[v] = static_cast<int32_t>(d.node_of.size());
      d.node_of.push_back(v);
      d.members.push_back(0);
    }
    ++d.members[d.display_of[v]];
  }
  if (!any) {
    d.drawing = doc->drawing;  // laid out when the file was opened
    d.edges = doc->graph.edge_index;
  } else {
    const auto& e = doc->graph.edge_index;
    for (size_t k = 0; k + 1 < e.size(); k += 2) {
      const int64_t u = d.display_of[e[k]], v = d.display_of[e[k + 1]];
      if (u != v) d.edges.insert(d.edges.end(), {u, v});
    }
    DrawingOptions o;
    o.layer_gap = 1.6f;
    d.drawing = draw_layered(static_cast<int64_t>(d.node_of.size()), d.edges, o);
  }
  disp = std::move(d);
  std::vector<uint32_t> rgba(disp.node_of.size(), 0);
  renderer.set_graph(disp.drawing, disp.edges, rgba);
  recolor();
  dirty = true;
}

void App::set_collapsed(int64_t computation, bool c) {
  if (!doc || computation < 0 || computation >= static_cast<int64_t>(collapsed.size())) return;
  collapsed[computation] = c ? 1 : 0;
  rebuild_display();
}

void App::frame(float width, float height) {
  const float side = std::min(420.0f * dpr, 0.4f * width);
  const float menu_h = ImGui::GetFrameHeight();
  if (ImGui::BeginMainMenuBar()) {
    if (ImGui::BeginMenu("File")) {
      if (ImGui::MenuItem("Open graph (.npz)...")) js_open_dialog(0);
      if (ImGui::MenuItem("Open model (model.onnx + model.json)...")) js_open_dialog(1);
      if (ImGui::MenuItem("Open study (trials.jsonl)...")) js_open_dialog(2);
      if (study) ImGui::MenuItem("Show the study window", nullptr, &show_study);
      ImGui::EndMenu();
    }
    if (doc) ImGui::TextDisabled("  %s  |  %s  |  %lld nodes  |  %lld configs", doc->name.c_str(), graph_kind_name(doc->kind),
                                 static_cast<long long>(doc->graph.num_nodes), static_cast<long long>(doc->info.configs));
    if (!status.empty()) ImGui::TextColored({0.6f, 0.8f, 1, 1}, "  %s", status.c_str());
    ImGui::EndMainMenuBar();
  }
  graph_view(0, menu_h, width - side, height - menu_h);
  ImGui::SetNextWindowPos({width - side, menu_h});
  ImGui::SetNextWindowSize({side, height - menu_h});
  ImGui::Begin("Panel", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove);
  side_panel();
  ImGui::End();
  inspector();
  const float gap = 8 * dpr;
  study_window(gap, menu_h + gap, width - side - 2 * gap, height - menu_h - 2 * gap);
  if (!error.empty()) {
    ImGui::SetNextWindowPos({0.5f * width, 0.3f * height}, ImGuiCond_Always, {0.5f, 0.5f});
    ImGui::SetNextWindowSize({std::min(560.0f * dpr, 0.9f * width), 0});
    ImGui::Begin("Could not open the file", nullptr, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove);
    ImGui::TextWrapped("%s", error.c_str());
    if (ImGui::Button("OK")) error.clear();
    ImGui::End();
  }
}

void App::frame_done(double ms) {
  last_frame_ms = ms;
  avg_frame_ms = frames ? 0.9 * avg_frame_ms + 0.1 * ms : ms;
  ++frames;
}

std::string App::state_json() const {
  nlohmann::json j;
  j["frames"] = frames;
  j["frame_ms"] = last_frame_ms;
  j["frame_ms_avg"] = avg_frame_ms;
  j["first_frame_ms"] = first_frame_after_open_ms;
  j["error"] = error;
  j["models"] = nlohmann::json::array();
  j["model_cards"] = nlohmann::json::array();
  for (const ModelSlot& m : models) {
    j["models"].push_back(m.name);
    j["model_cards"].push_back({{"name", m.name},
                                {"label", m.label()},
                                {"trained_on", m.trained_on},
                                {"generated", m.generated},
                                {"members", m.members}});
  }
  j["selected"] = selected;
  j["search_hits"] = search_hits.size();
  j["view"] = {{"zoom", view.zoom}, {"center_x", view.center_x}, {"center_y", view.center_y}};
  if (doc) {
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
                  {"display_nodes", disp.node_of.size()},
                  {"load_ms", doc->load_ms},
                  {"layout_ms", doc->layout_ms},
                  {"vertices", renderer.vertices()}};
  } else {
    j["graph"] = nullptr;
  }
  const char* status_names[] = {"idle", "running", "done", "failed", "cancelled"};
  j["rank"] = {{"status", status_names[static_cast<int>(rank.status)]},
               {"done", rank.done},
               {"total", rank.total},
               {"message", rank.message},
               {"model", rank.model},
               {"shift_warning", rank.shift_warning},
               {"scores", rank.group_scores.size()},
               {"configs", rank.ranking.size()},
               {"seconds", rank.seconds},
               {"collection", doc ? submission_collection() : ""}};
  j["rank"].update(metrics_json(rank.metrics));
  j["study"] = study ? study->state_json() : nlohmann::json(nullptr);
  return wasm::json_text(j);
}

}  // namespace fastslow::explorer
