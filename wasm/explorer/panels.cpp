// The side panel (Summary, Configs, Rank) and the node inspector.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "app.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/view/op_family.h"
#include "fastslow/data/collection.h"
#include "fastslow/rank/ranking_csv.h"
#include "fastslow/error.h"
#include "panel_text.h"
#include "plot.h"

namespace fastslow::explorer {

namespace {

const ImVec4 kWarnColor{1.0f, 0.78f, 0.3f, 1.0f};  // distribution shift, models trained on generated data

void histogram(const char* label, const std::vector<float>& values, float height) {
  float hi = 0;
  for (float v : values) hi = std::max(hi, v);
  ImGui::PlotHistogram(label, values.data(), static_cast<int>(values.size()), 0, nullptr, 0, hi * 1.05f,
                       {ImGui::GetContentRegionAvail().x, height});
}

}  // namespace

void App::side_panel() {
  if (!ImGui::BeginTabBar("tabs")) return;
  const ImGuiTabItemFlags summary_flags = show_summary_ ? ImGuiTabItemFlags_SetSelected : 0;
  show_summary_ = false;
  if (ImGui::BeginTabItem("Summary", nullptr, summary_flags)) {
    summary_tab();
    ImGui::EndTabItem();
  }
  const ImGuiTabItemFlags configs_flags = show_configs_ ? ImGuiTabItemFlags_SetSelected : 0;
  show_configs_ = false;
  if (ImGui::BeginTabItem("Configs", nullptr, configs_flags)) {
    configs_tab();
    ImGui::EndTabItem();
  }
  // A ranking started from outside the tab (the page's JS) brings the tab
  // up: its warnings and metrics are what the user asked for.
  const ImGuiTabItemFlags rank_flags = ranking.show_tab ? ImGuiTabItemFlags_SetSelected : 0;
  ranking.show_tab = false;
  if (ImGui::BeginTabItem("Rank", nullptr, rank_flags)) {
    rank_tab();
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

void App::summary_tab() {
  if (!doc) {
    ImGui::TextDisabled("No graph open.");
    return;
  }
  const GraphInfo& i = doc->info;
  ImGui::Text("%s", doc->name.c_str());
  ImGui::Text("kind: %s", graph_kind_name(i.kind));
  ImGui::Text("nodes: %lld   edges: %lld", static_cast<long long>(i.nodes), static_cast<long long>(i.edges));
  if (i.kind == GraphKind::Layout)
    ImGui::Text("configurable nodes: %lld   computations: %lld", static_cast<long long>(i.configurable_nodes),
                static_cast<long long>(i.computations));
  ImGui::Text("configs: %lld (%lld unique)", static_cast<long long>(i.configs), static_cast<long long>(i.unique_configs));
  ImGui::Text("features: %lld per node, %lld per config%s", static_cast<long long>(i.node_feat_width),
              static_cast<long long>(i.config_feat_width), i.kind == GraphKind::Layout ? " and node" : "");
  ImGui::TextDisabled("read in %.0f ms, laid out in %.0f ms", doc->load_ms, doc->layout_ms);

  // Degree statistics.
  int64_t max_in = 0, max_out = 0;
  for (int64_t v = 0; v < doc->graph.num_nodes; ++v) {
    max_in = std::max(max_in, doc->in_ptr[v + 1] - doc->in_ptr[v]);
    max_out = std::max(max_out, doc->out_ptr[v + 1] - doc->out_ptr[v]);
  }
  const double mean = doc->graph.num_nodes ? static_cast<double>(doc->graph.num_edges()) / doc->graph.num_nodes : 0;
  ImGui::Text("degree: mean %.2f, max in %lld, max out %lld", mean, static_cast<long long>(max_in),
              static_cast<long long>(max_out));

  if (!doc->runtime.empty()) {
    section("Runtimes (log scale)");
    // Over the measured configs: 0 is one never measured (a proposal merged in).
    double lo = INFINITY, hi = 0;
    int64_t unmeasured = 0;
    for (double r : doc->runtime) {
      if (r > 0) lo = std::min(lo, r), hi = std::max(hi, r);
      else ++unmeasured;
    }
    std::vector<float> bins(40, 0.0f);
    const double a = std::log(std::max(lo, 1e-12)), b = std::log(std::max(hi, 1e-12));
    for (double r : doc->runtime) {
      if (!(r > 0)) continue;
      const double t = b > a ? (std::log(r) - a) / (b - a) : 0;
      ++bins[std::min<size_t>(39, static_cast<size_t>(t * 40))];
    }
    histogram("##runtime", bins, 80 * dpr);
    ImGui::TextDisabled("min %.4g  max %.4g  (%s)", lo, hi, doc->kind == GraphKind::Tile ? "runtime / normaliser" : "ns");
    if (unmeasured > 0) ImGui::TextDisabled("%lld configs without a runtime (never measured)", static_cast<long long>(unmeasured));
  }
  // What the runtimes depend on comes before the opcode counts: on a file being tuned it is the first question.
  effects_section();
  section("Opcodes");
  std::map<int, int64_t> count;
  for (int32_t op : doc->graph.node_opcode) ++count[op];
  std::vector<std::pair<int64_t, int>> top;
  for (auto [op, c] : count) top.emplace_back(c, op);
  std::sort(top.rbegin(), top.rend());
  const float bar_w = ImGui::GetContentRegionAvail().x * 0.5f;
  for (size_t k = 0; k < top.size() && k < 16; ++k) {
    const uint32_t col = op_family_color(op_family(top[k].second));
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = bar_w * static_cast<float>(top[k].first) / static_cast<float>(top[0].first);
    ImGui::GetWindowDrawList()->AddRectFilled({p.x, p.y + 2}, {p.x + w, p.y + ImGui::GetTextLineHeight() - 1},
                                              IM_COL32((col >> 16) & 255, (col >> 8) & 255, col & 255, 200));
    ImGui::Dummy({bar_w, ImGui::GetTextLineHeight()});
    ImGui::SameLine();
    ImGui::Text("%s %lld", opcode_name(top[k].second), static_cast<long long>(top[k].first));
  }
  if (top.size() > 16) ImGui::TextDisabled("... %zu opcodes in all", top.size());

  computations_section();
  file_compare_section();
  section("Validation");
  if (doc->info.problems.empty()) ImGui::TextDisabled("no problems found");
  for (const Problem& p : doc->info.problems)
    ImGui::TextWrapped("%s: %s%s%s", severity_name(p.severity), p.array.c_str(), p.array.empty() ? "" : ": ",
                       p.message.c_str());
}

void App::file_compare_section() {
  section("Compare with another file");
  if (ImGui::SmallButton("Open a file to compare...") && !host_.open_dialog(FileKind::Compare))
    set_status("no file chooser here: give --compare-file on the command line");
  if (!file_compare.active()) {
    ImGui::TextDisabled("the same graph under other configs, or another graph of its family");
    return;
  }
  const GraphComparison& g = file_compare.graph;
  ImGui::TextWrapped("against %s: %s", file_compare.other.c_str(),
                     g.same_graph ? (g.same_features ? "the same graph" : "the same graph, other node features")
                                  : "another graph");
  ImGui::Text("nodes %lld / %lld   edges %lld / %lld   opcodes %lld / %lld", static_cast<long long>(g.nodes_a),
              static_cast<long long>(g.nodes_b), static_cast<long long>(g.edges_a), static_cast<long long>(g.edges_b),
              static_cast<long long>(g.opcodes_a), static_cast<long long>(g.opcodes_b));
  if (file_compare.configs_compared) {
    const ConfigOverlap& o = file_compare.configs;
    ImGui::Text("distinct configs %lld / %lld, in both %lld", static_cast<long long>(o.distinct_a),
                static_cast<long long>(o.distinct_b), static_cast<long long>(o.both));
    if (std::isfinite(o.median_runtime_ratio))
      ImGui::TextDisabled("a config in both runs %.3fx as long in the other file (median)", o.median_runtime_ratio);
  }
  if (g.same_graph) return;
  ImGui::Text("matched by structure: %lld nodes (%.0f%% of this graph)", static_cast<long long>(g.matched),
              g.nodes_a ? 100.0 * static_cast<double>(g.matched) / static_cast<double>(g.nodes_a) : 0.0);
  if (!g.unmatched_a.empty()) {
    char label[64];
    std::snprintf(label, sizeof label, "Light up the %zu without a partner", g.unmatched_a.size());
    if (ImGui::SmallButton(label)) show_unmatched();
  }
  if (g.opcode_diffs.empty()) return;
  if (ImGui::BeginTable("##opdiff", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("opcode");
    ImGui::TableSetupColumn("here");
    ImGui::TableSetupColumn("other");
    ImGui::TableHeadersRow();
    for (size_t k = 0; k < g.opcode_diffs.size() && k < 12; ++k) {
      const auto& d = g.opcode_diffs[k];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(opcode_name(d.opcode));
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(d.a));
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(d.b));
    }
    ImGui::EndTable();
  }
  if (g.opcode_diffs.size() > 12) ImGui::TextDisabled("... %zu opcodes differ in count", g.opcode_diffs.size());
}

void App::computations_section() {
  const std::vector<char>& collapsed = graph.collapsed();
  if (collapsed.size() < 2) return;
  section("Computations (node_splits)");
  if (ImGui::SmallButton("collapse all")) graph.set_all_collapsed(true);
  ImGui::SameLine();
  if (ImGui::SmallButton("expand all")) graph.set_all_collapsed(false);
  ImGui::SameLine();
  ImGui::Checkbox("outline in the graph", &graph.outline_computations);
  std::vector<int64_t> size(collapsed.size(), 0), configurable(collapsed.size(), 0);
  for (int64_t v = 0; v < doc->graph.num_nodes; ++v) {
    ++size[doc->computation[v]];
    configurable[doc->computation[v]] += doc->configurable[v];
  }
  if (ImGui::BeginTable("comps", 4, ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg, {0, 140 * dpr})) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("collapsed");
    ImGui::TableSetupColumn("computation");
    ImGui::TableSetupColumn("nodes");
    ImGui::TableSetupColumn("configurable");
    ImGui::TableHeadersRow();
    for (size_t k = 0; k < collapsed.size(); ++k) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      bool c = collapsed[k] != 0;
      ImGui::PushID(static_cast<int>(k));
      if (ImGui::Checkbox("##c", &c)) graph.set_collapsed(static_cast<int64_t>(k), c);
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::Text("%zu (from #%lld)", k, static_cast<long long>(k < doc->node_splits.size() ? doc->node_splits[k] : 0));
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(size[k]));
      ImGui::TableNextColumn();
      ImGui::Text("%lld", static_cast<long long>(configurable[k]));
    }
    ImGui::EndTable();
  }
}

void App::configs_tab() {
  if (!doc) {
    ImGui::TextDisabled("No graph open.");
    return;
  }
  const int64_t n = doc->info.configs;
  if (n == 0) {  // std::clamp(x, 0, n - 1) below is undefined then
    ImGui::TextDisabled("This file has no configs.");
    return;
  }
  const bool ranked = ranking.rank.status == RankStatus::Done && static_cast<int64_t>(ranking.rank.position.size()) == n;
  section("Heatmap of one config");
  ImGui::SetNextItemWidth(140 * dpr);
  if (ImGui::InputScalar("config", ImGuiDataType_S64, &heatmap_config)) heatmap_config = std::clamp<int64_t>(heatmap_config, 0, n - 1);
  const bool show_proposal = heatmap_proposal >= 0 && heatmap_proposal < static_cast<int64_t>(ranking.tune.proposals.size());
  const std::vector<float>& row = show_proposal ? ranking.tune.proposals[static_cast<size_t>(heatmap_proposal)].config
                                                : doc->config_row(std::clamp<int64_t>(heatmap_config, 0, n - 1));
  if (show_proposal) ImGui::TextDisabled("showing proposal P%lld (not measured)", static_cast<long long>(heatmap_proposal));
  // Before the heatmap: a long one (a node per row) would push it out of sight.
  config_effects_section(show_proposal ? -1 : std::clamp<int64_t>(heatmap_config, 0, n - 1), row);
  const int64_t w = doc->config_width(), rows = w > 0 ? static_cast<int64_t>(row.size()) / w : 0;
  const float cell = std::max(3.0f, std::min(14.0f * dpr, (ImGui::GetContentRegionAvail().x - 8) / std::max<int64_t>(w, 1)));
  const ImVec2 p = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int64_t shown = std::min<int64_t>(rows, 64);
  for (int64_t r = 0; r < shown; ++r)
    for (int64_t c = 0; c < w; ++c) {
      const float v = row[r * w + c];
      // Layout values run -1..5; tile values are sizes, shown on a log scale.
      const float t = doc->kind == GraphKind::Layout ? (v + 1) / 6.0f : std::min(1.0f, std::log1p(std::max(v, 0.0f)) / 8.0f);
      const ImU32 col = v < 0 ? IM_COL32(40, 40, 48, 255) : static_cast<ImU32>(ImColor::HSV(0.66f - 0.66f * std::clamp(t, 0.0f, 1.0f), 0.7f, 0.9f));
      dl->AddRectFilled({p.x + c * cell, p.y + r * cell}, {p.x + (c + 1) * cell - 1, p.y + (r + 1) * cell - 1}, col);
    }
  ImGui::Dummy({w * cell, shown * cell});
  if (doc->kind == GraphKind::Layout)
    ImGui::TextDisabled("rows: configurable nodes (%lld%s), columns: layout values (-1 = none)", static_cast<long long>(rows),
                        rows > shown ? ", first 64 shown" : "");

  compare_section(n);
  explain_section();
  tune_section();

  section("All configs");
  const int cols = ranked ? 5 : 4;
  if (ImGui::BeginTable("configs", cols, ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV,
                        {0, ImGui::GetContentRegionAvail().y})) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("config");
    ImGui::TableSetupColumn("runtime");
    ImGui::TableSetupColumn("group");
    ImGui::TableSetupColumn("copies");
    if (ranked) ImGui::TableSetupColumn("rank");
    ImGui::TableHeadersRow();
    // Proposed configs (Tune) first, marked: nobody measured them.
    const auto& proposed = ranking.tune.proposals;
    for (size_t k = 0; k < proposed.size(); ++k) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      char label[48];
      std::snprintf(label, sizeof label, "P%zu proposed", k);
      if (ImGui::Selectable(label, heatmap_proposal == static_cast<int64_t>(k), ImGuiSelectableFlags_SpanAllColumns))
        heatmap_proposal = static_cast<int64_t>(k);
      ImGui::TableNextColumn();
      // How far the model extrapolates: far proposals share the models' blind
      // spots. Short, to fit the column ("P0 proposed" says it is unmeasured).
      ImGui::TextDisabled("%lld %s off", static_cast<long long>(proposed[k].changed),
                          doc->kind == GraphKind::Tile ? "values" : "nodes");
      if (ImGui::IsItemHovered())
        ImGui::SetTooltip("not measured: the %s in which it differs from the nearest %s config",
                          doc->kind == GraphKind::Tile ? "tile values" : "configurable nodes",
                          ranking.tune.to_target_model >= 0 ? "measured" : "file's");
      ImGui::TableNextColumn();
      ImGui::TextDisabled("score %.4g", proposed[k].score);
      ImGui::TableNextColumn();
      if (proposed[k].speedup > 0) ImGui::TextDisabled("%.4gx", proposed[k].speedup);
      else ImGui::TextDisabled("-");
      if (ranked) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("-");
      }
    }
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(n));
    while (clip.Step())
      for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
        const int64_t g = doc->groups.group_of[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        // Click: the config; shift-click: the one to compare it with.
        const bool chosen = heatmap_config == i || against_config == i;
        if (ImGui::Selectable(std::to_string(i).c_str(), chosen, ImGuiSelectableFlags_SpanAllColumns)) {
          if (ImGui::GetIO().KeyShift && i != heatmap_config) against_config = i;
          else heatmap_config = i, heatmap_proposal = -1, against_config = against_config == i ? -1 : against_config;
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(doc->runtime.empty() ? "-" : fmt(doc->runtime[i], "%.6g").c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%lld", static_cast<long long>(g));
        ImGui::TableNextColumn();
        ImGui::Text("%lld", static_cast<long long>(doc->groups.group_size[g]));
        if (ranked) {
          ImGui::TableNextColumn();
          ImGui::Text("%lld", static_cast<long long>(ranking.rank.position[i] + 1));
        }
      }
    ImGui::EndTable();
  }
}

// Why is this config slow: occlusion with the Rank tab's model, scored in
// the page (ranking.h's explain job); the graph colours the shares.
void App::compare_section(int64_t n) {
  if (doc->kind != GraphKind::Layout) return;
  section("Compare two configs");
  ImGui::SetNextItemWidth(140 * dpr);
  if (ImGui::InputScalar("against (-1: none)##cmp", ImGuiDataType_S64, &against_config))
    against_config = std::clamp<int64_t>(against_config, -1, n - 1);
  const bool showing = compare.active() && compare.a == heatmap_config && compare.b == against_config;
  if (against_config < 0) ImGui::BeginDisabled();
  char label[96];
  std::snprintf(label, sizeof label, "Show where %lld and %lld differ", static_cast<long long>(heatmap_config),
                static_cast<long long>(std::max<int64_t>(against_config, 0)));
  if (ImGui::Button(label)) {
    try {
      compare_configs(heatmap_config, against_config);
    } catch (const std::exception& e) {
      set_error(e.what());
    }
  }
  if (against_config < 0) ImGui::EndDisabled();
  if (compare.active()) {
    ImGui::SameLine();
    if (ImGui::Button("Clear##cmp")) compare_configs(-1, -1);
  }
  if (!compare.active()) return;
  if (!showing) ImGui::TextDisabled("showing %lld vs %lld", static_cast<long long>(compare.a), static_cast<long long>(compare.b));
  ImGui::Text("%zu of %zu configurable nodes differ", compare.nodes.size(), doc->config_nodes.size());
  // Each differing node and how its values change; a click selects it.
  if (ImGui::BeginTable("diff", 2, ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg,
                        {0, std::min<float>(8.5f, static_cast<float>(compare.nodes.size()) + 0.5f) * ImGui::GetTextLineHeightWithSpacing()})) {
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(compare.nodes.size()));
    while (clip.Step())
      for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
        const int64_t v = compare.nodes[i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        std::snprintf(label, sizeof label, "#%lld %s##diff%d", static_cast<long long>(v), opcode_name(doc->graph.node_opcode[v]), i);
        if (ImGui::Selectable(label, graph.selected() == v, ImGuiSelectableFlags_SpanAllColumns)) graph.select(v, dpr);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(compare.changes[i].c_str());
      }
    ImGui::EndTable();
  }
}

void App::explain_section() {
  if (doc->kind != GraphKind::Layout) return;
  section("Why is this config slow");
  const ExplainState& x = ranking.explain;
  const bool can = !ranking.models.empty() && !ranking.running() && against_config != heatmap_config;
  if (!can) ImGui::BeginDisabled();
  char label[96];
  if (against_config >= 0)
    std::snprintf(label, sizeof label, "Explain config %lld against %lld", static_cast<long long>(heatmap_config),
                  static_cast<long long>(against_config));
  else
    std::snprintf(label, sizeof label, "Explain config %lld", static_cast<long long>(heatmap_config));
  if (ImGui::Button(label)) start_explain(ranking.model_index, heatmap_config, against_config);
  if (!can) ImGui::EndDisabled();
  if (ranking.models.empty()) ImGui::TextDisabled("open a model (Rank tab) to explain configs with it");
  else ImGui::TextDisabled("model: %s (the Rank tab's); shift-click a row to compare", ranking.models[std::clamp<int>(ranking.model_index, 0, static_cast<int>(ranking.models.size()) - 1)].label().c_str());
  if (x.status == RankStatus::Running) ImGui::TextUnformatted("explaining...");
  if (x.status == RankStatus::Failed) ImGui::TextColored({1, 0.4f, 0.4f, 1}, "%s", x.message.c_str());
  if (!x.done()) return;
  bool colour = explanation_coloured();
  if (ImGui::Checkbox("colour the graph by share", &colour)) colour ? show_explanation() : graph.set_node_values({}, "");
  ImGui::SameLine();
  bool log = graph.log_scale();
  if (ImGui::Checkbox("log scale", &log)) graph.set_log_scale(log);
  if (x.against >= 0)
    ImGui::Text("score %.4g vs %.4g (difference %.4g)", x.score, x.against_score, x.score - x.against_score);
  else
    ImGui::Text("score %.4g", x.score);
  // The nodes with the largest shares; a click selects one.
  std::vector<size_t> order(x.share.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return std::abs(x.share[a]) > std::abs(x.share[b]); });
  for (size_t k = 0; k < std::min<size_t>(order.size(), 8); ++k) {
    const int64_t node = x.nodes[order[k]];
    std::snprintf(label, sizeof label, "#%lld %s: %+.4g##share%zu", static_cast<long long>(node),
                  opcode_name(doc->graph.node_opcode[node]), x.share[order[k]], k);
    if (ImGui::SmallButton(label)) graph.select(node, dpr);
  }
  ImGui::TextDisabled("occlusion: each node's layout reset to the file's most common one (shares do not add up)");
}

// Tune: configs nobody measured, proposed with the Rank tab's model
// (ranking.h's tune job), and what-to-measure-next replayed on the file.
void App::tune_section() {
  section("Tune: configs nobody measured");
  ImGui::SetNextItemWidth(100 * dpr);
  ImGui::InputScalar("proposals", ImGuiDataType_S64, &tune_count);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(100 * dpr);
  ImGui::InputScalar("candidates", ImGuiDataType_S64, &tune_budget);
  tune_count = std::clamp<int64_t>(tune_count, 1, 1000);
  tune_budget = std::clamp<int64_t>(tune_budget, 1, 1 << 20);
  const TuneState& t = ranking.tune;
  const bool can = !ranking.models.empty() && !ranking.running();
  if (!can) ImGui::BeginDisabled();
  if (ImGui::Button("Tune")) start_tune(ranking.model_index, tune_count, tune_budget);
  if (!can) ImGui::EndDisabled();
  if (t.status == RankStatus::Running)
    ImGui::Text("searching: generation %lld, %lld of %lld candidates scored", static_cast<long long>(t.generations),
                static_cast<long long>(t.scored), static_cast<long long>(t.budget));
  if (t.status == RankStatus::Failed || t.status == RankStatus::Cancelled)
    ImGui::TextColored({1, 0.4f, 0.4f, 1}, "%s", t.message.c_str());
  if (!t.done()) return;
  ImGui::Text("%zu proposals from %lld candidates (%lld generations, %.1f s)", t.proposals.size(),
              static_cast<long long>(t.scored), static_cast<long long>(t.generations), t.seconds);
  if (!t.proposals.empty() && t.proposals.front().speedup > 0)
    ImGui::Text("best: predicted %.4gx the best measured config", t.proposals.front().speedup);
  auto count = [](double v) { return std::isfinite(v) ? fmt(v, "%.0f") : std::string("over 520"); };
  if (t.to_target_model >= 0)
    ImGui::TextWrapped("what to measure next, replayed on the file: within 0.1 %% of its best after %s measurements "
                       "in the model's order from the file's most common config, %s in random order (medians of 20 starts)",
                       count(t.to_target_model).c_str(), count(t.to_target_random).c_str());
  if (ImGui::Button("Download proposals (CSV)")) {
    try {
      set_status("saved " + host_.save(file_stem(doc->name) + "_proposed.csv", ranking.proposals_csv(*doc)));
    } catch (const std::exception& e) {
      set_error(e.what());
    }
  }
  ImGui::TextDisabled("proposals are the Configs table's first rows, marked; the model's scores, not measurements");
}

void App::rank_tab() {
  const std::vector<ModelSlot>& models = ranking.models;
  int& model_index = ranking.model_index;
  const RankState& rank = ranking.rank;
  if (models.empty()) ImGui::TextDisabled("No model loaded yet.");
  std::vector<std::string> labels;
  for (const ModelSlot& m : models) labels.push_back(m.label());
  std::vector<const char*> names;
  for (const std::string& l : labels) names.push_back(l.c_str());
  ImGui::SetNextItemWidth(200 * dpr);
  if (!models.empty()) ImGui::Combo("model", &model_index, names.data(), static_cast<int>(names.size()));
  ImGui::SameLine();
  if (ImGui::Button("Open model...") && !host_.open_dialog(FileKind::Model))
    set_status("no file chooser here: give model.json and model.onnx on the command line");
  const bool running = rank.status == RankStatus::Running;
  const bool can = doc && !models.empty() && !ranking.running();
  if (!models.empty()) {
    const ModelSlot& m = models[std::clamp<int>(model_index, 0, static_cast<int>(models.size()) - 1)];
    ImGui::TextDisabled("%s model, %lld node / %lld config features, weights %s%s", m.kind.c_str(),
                        static_cast<long long>(m.node_feat_width), static_cast<long long>(m.config_feat_width),
                        m.precision.c_str(), m.onnx_bytes > 0 ? (", " + fmt(m.onnx_bytes / 1024.0, "%.0f") + " KiB").c_str() : "");
    if (m.members > 0)
      ImGui::TextDisabled("ensemble of %lld models (%s), scored as one", static_cast<long long>(m.members),
                          m.combine.c_str());
    if (m.generated) ImGui::TextColored(kWarnColor, "trained on generated data: not validated on real graphs");
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("trained on %s", m.trained_on.c_str());
    ImGui::PopTextWrapPos();
  }
  ImGui::BeginDisabled(!can);
  if (ImGui::Button("Rank", {120 * dpr, 0})) start_rank(model_index);
  ImGui::EndDisabled();
  if (running) {
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ranking.cancel();  // the job stops at its next batch
    const float f = rank.total ? static_cast<float>(rank.done) / static_cast<float>(rank.total) : 0.0f;
    char label[64];
    std::snprintf(label, sizeof label, "%lld / %lld batches", static_cast<long long>(rank.done), static_cast<long long>(rank.total));
    ImGui::ProgressBar(f, {-1, 0}, label);
  }
  if (!rank.shift_warning.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, kWarnColor);
    ImGui::TextWrapped("Warning: %s", rank.shift_warning.c_str());
    ImGui::PopStyleColor();
  }
  if (rank.status == RankStatus::Failed) ImGui::TextColored({1, 0.4f, 0.4f, 1}, "%s", rank.message.c_str());
  if (rank.status == RankStatus::Cancelled) ImGui::TextDisabled("ranking cancelled");
  if (rank.status != RankStatus::Done || !doc) return;

  section("Result");
  ImGui::Text("%zu configs ranked with %s in %.1f s", rank.ranking.size(), rank.model.c_str(), rank.seconds);
  if (!std::isnan(rank.metrics.kendall)) {
    const GraphMetrics& m = rank.metrics;
    ImGui::Text("Kendall tau %s   OPA %s", fmt(m.kendall).c_str(), fmt(m.opa).c_str());
    ImGui::Text("top-1 / 5 / 10 error %s / %s / %s", fmt(m.top1).c_str(), fmt(m.top5).c_str(), fmt(m.top10).c_str());
  } else {
    ImGui::TextDisabled("no measured runtimes in this file: ranking only");
  }
  if (ImGui::Button("Download table")) {
    try {
      set_status("saved " + host_.save(file_stem(doc->name) + "_ranking.csv",
                                       ranking_csv(rank.ranking, doc->groups.group_of, rank.group_scores, doc->runtime)));
    } catch (const std::exception& e) {
      set_error(e.what());
    }
  }
  ImGui::SameLine();
  submission_row_section();
  // Predicted vs measured.
  if (!doc->runtime.empty()) {
    section("Predicted score vs measured runtime");
    const PlotFrame f = plot_frame(fit_axis(rank.group_scores, ScaleChoice::Linear), fit_axis(doc->runtime, ScaleChoice::Log),
                                   "score (lower = predicted faster)", "measured runtime (log scale)",
                                   {ImGui::GetContentRegionAvail().x, 230 * dpr}, dpr);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const size_t n = doc->runtime.size(), step = std::max<size_t>(1, n / 4000);
    for (size_t c = 0; c < n; c += step) {
      const ImVec2 q = f.at(rank.group_scores[doc->groups.group_of[c]], doc->runtime[c]);
      if (!std::isnan(q.x) && !std::isnan(q.y)) dl->AddRectFilled({q.x - 1, q.y - 1}, {q.x + 1, q.y + 1}, kPlotPoint);
    }
    try {
      if (ImGui::SmallButton("Save scatter as SVG")) set_status("saved " + host_.save(export_name("_scatter.svg"), rank_scatter()));
      if (host_.can_save_png()) {
        ImGui::SameLine();
        if (ImGui::SmallButton("as PNG")) set_status("saved " + host_.save_png(export_name("_scatter.png"), rank_scatter(), png_scale));
      }
    } catch (const std::exception& e) {
      set_error(e.what());
    }
  }
  section("Ranking");
  if (ImGui::BeginTable("ranking", 4, ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg, {0, ImGui::GetContentRegionAvail().y})) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("rank");
    ImGui::TableSetupColumn("config");
    ImGui::TableSetupColumn("score");
    ImGui::TableSetupColumn("runtime");
    ImGui::TableHeadersRow();
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(rank.ranking.size()));
    while (clip.Step())
      for (int k = clip.DisplayStart; k < clip.DisplayEnd; ++k) {
        const int64_t c = rank.ranking[k];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%d", k + 1);
        ImGui::TableNextColumn();
        ImGui::Text("%lld", static_cast<long long>(c));
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(fmt(rank.group_scores[doc->groups.group_of[c]], "%.6g").c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(doc->runtime.empty() ? "-" : fmt(doc->runtime[c], "%.6g").c_str());
      }
    ImGui::EndTable();
  }
}

void App::submission_row_section() {
  const std::vector<std::string> choices = ranking.submission_choices(*doc);
  const bool card_names_it = std::find(choices.begin(), choices.end(), ranking.rank.card_collection) != choices.end();
  if (!card_names_it && choices.size() > 1) {
    // The card names no collection of the file's kind: the row's ID needs the user's word.
    std::vector<const char*> names;
    int current = -1;
    for (size_t k = 0; k < choices.size(); ++k) {
      if (choices[k] == ranking.picked_collection) current = static_cast<int>(k);
      names.push_back(choices[k].c_str());
    }
    ImGui::SetNextItemWidth(180 * dpr);
    if (ImGui::Combo("collection", &current, names.data(), static_cast<int>(names.size())))
      ranking.pick_collection(doc.get(), choices[current]);
    ImGui::SameLine();
  }
  const bool known = !ranking.submission_collection(*doc).empty();
  ImGui::BeginDisabled(!known);
  if (ImGui::Button("Download submission row")) {
    try {
      set_status("saved " + host_.save(Ranking::submission_file_name(doc.get()), ranking.submission_csv(doc.get())));
      ranking.submission_error.clear();
    } catch (const std::exception& e) {  // a file name the CSV cannot carry
      ranking.submission_error = e.what();
    }
  }
  ImGui::EndDisabled();
  if (!known) ImGui::TextDisabled("pick the collection the submission row's ID names");
  if (!ranking.submission_error.empty())
    ImGui::TextColored({1, 0.4f, 0.4f, 1}, "%s", ranking.submission_error.c_str());
}

void App::inspector() {
  const int64_t v = graph.selected();
  if (!doc || v < 0 || v >= doc->graph.num_nodes) return;
  bool open = true;
  ImGui::SetNextWindowSize({360 * dpr, 480 * dpr}, ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowPos({ImGui::GetIO().DisplaySize.x - 380 * dpr, 200 * dpr}, ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Node", &open)) {
    ImGui::End();
    return;
  }
  const int op = doc->graph.node_opcode[v];
  ImGui::Text("#%lld  %s", static_cast<long long>(v), opcode_name(op));
  ImGui::TextDisabled("opcode %d, %s, computation %d%s", op, op_family_name(op_family(op)), doc->computation[v],
                      doc->configurable[v] ? ", configurable" : "");
  const std::string shape = node_shape_text(doc->graph, v);
  ImGui::TextDisabled("%s%sarrows: Up an operand, Down a user, Left/Right the layer; Esc clears", shape.c_str(),
                      shape.empty() ? "" : "; ");
  // Each operand and user with its opcode and shape; a click selects it.
  auto neighbours = [&](const char* title, const std::vector<int64_t>& ptr, const std::vector<int32_t>& idx) {
    const int64_t count = ptr[v + 1] - ptr[v];
    section((std::string(title) + " (" + std::to_string(count) + ")").c_str());
    if (count == 0) {
      ImGui::TextDisabled("none");
      return;
    }
    const float rows = static_cast<float>(std::min<int64_t>(count, 6));
    if (!ImGui::BeginTable(title, 3, ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg,
                           {0, (rows + 0.5f) * ImGui::GetTextLineHeightWithSpacing()}))
      return;
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(count));
    while (clip.Step())
      for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
        const int32_t u = idx[ptr[v] + i];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        char label[48];
        std::snprintf(label, sizeof label, "#%d##%s%d", u, title, i);
        if (ImGui::Selectable(label, false, ImGuiSelectableFlags_SpanAllColumns)) graph.select(u, dpr);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(opcode_name(doc->graph.node_opcode[u]));
        ImGui::TableNextColumn();
        const std::string shape = node_shape_text(doc->graph, u);
        if (doc->configurable[u])
          ImGui::TextColored({1.0f, 0.9f, 0.3f, 1}, "%s  configurable", shape.c_str());
        else
          ImGui::TextUnformatted(shape.c_str());
      }
    ImGui::EndTable();
  };
  neighbours("Operands", doc->in_ptr, doc->in_idx);
  neighbours("Users", doc->out_ptr, doc->out_idx);
  if (doc->configurable[v]) effects_inspector(v);
  if (doc->configurable[v]) {
    const int64_t slot = std::find(doc->config_nodes.begin(), doc->config_nodes.end(), v) - doc->config_nodes.begin();
    const int64_t w = doc->config_width();
    const ExplainState& x = ranking.explain;
    const auto at = std::find(x.nodes.begin(), x.nodes.end(), v);
    if (x.done() && at != x.nodes.end()) {
      section("Share of the explained config");
      ImGui::Text("%+.4g of config %lld's score%s", x.share[static_cast<size_t>(at - x.nodes.begin())],
                  static_cast<long long>(x.config), x.against >= 0 ? " minus the other's" : "");
      for (int64_t c : {x.config, x.against}) {
        if (c < 0) continue;
        const std::vector<float>& row = doc->config_row(c);
        std::string values;
        for (int64_t k = 0; k < w; ++k) values += (k ? " " : "") + fmt(row[slot * w + k], "%g");
        ImGui::Text("config %lld: %s", static_cast<long long>(c), values.c_str());
      }
    }
    section("Config values across configs");
    const auto& names = config_feature_names(GraphKind::Layout);
    if (ImGui::BeginTable("cv", static_cast<int>(w + 1), ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_RowBg, {0, 160 * dpr})) {
      ImGui::TableSetupScrollFreeze(1, 1);
      ImGui::TableSetupColumn("config");
      for (int64_t c = 0; c < w; ++c) ImGui::TableSetupColumn(c < static_cast<int64_t>(names.size()) && w == 18 ? names[c].c_str() : std::to_string(c).c_str());
      ImGui::TableHeadersRow();
      ImGuiListClipper clip;
      clip.Begin(static_cast<int>(doc->info.configs));
      while (clip.Step())
        for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
          const std::vector<float>& row = doc->config_row(i);
          ImGui::TableNextRow();
          ImGui::TableNextColumn();
          ImGui::Text("%d", i);
          for (int64_t c = 0; c < w; ++c) {
            ImGui::TableNextColumn();
            ImGui::Text("%g", static_cast<double>(row[slot * w + c]));
          }
        }
      ImGui::EndTable();
    }
  }
  section("Features");
  const auto& names = node_feature_names();
  const bool named = doc->graph.node_feat_width == static_cast<int64_t>(names.size());
  if (!named) ImGui::TextDisabled("%lld columns (not the published 140: names unknown)", static_cast<long long>(doc->graph.node_feat_width));
  if (ImGui::BeginTable("feat", 2, ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg, {0, ImGui::GetContentRegionAvail().y})) {
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(doc->graph.node_feat_width));
    while (clip.Step())
      for (int c = clip.DisplayStart; c < clip.DisplayEnd; ++c) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(named ? names[c].c_str() : std::to_string(c).c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%g", static_cast<double>(doc->graph.node_feat[v * doc->graph.node_feat_width + c]));
      }
    ImGui::EndTable();
  }
  ImGui::End();
  if (!open) graph.select(-1, dpr);
}

}  // namespace fastslow::explorer
