// The Summary tab's "what the runtimes depend on" and the inspector's line
// on it: measured effects (measured_effects.h), read with no model.
#include <imgui.h>

#include <cmath>
#include <string>
#include <vector>

#include "app.h"
#include "fastslow/graph/hlo_tables.h"
#include "fastslow/graph/row_text.h"
#include "panel_text.h"

namespace fastslow::explorer {

namespace {

// The page's way of naming an entry's nodes.
std::string node_list(const std::vector<int64_t>& nodes) { return nodes_text(nodes, 3, "#", ", "); }

// A runtime ratio, red in the slow tail as the rest of the page counts it: over 5 % above the best.
void ratio_cell(double ratio) {
  if (ratio > 1.05)
    ImGui::TextColored({1, 0.45f, 0.35f, 1}, "%.3fx", ratio);
  else
    ImGui::Text("%.3fx", ratio);
}

// One entry's rows: the node's layouts and their configs' median runtime over the file's fastest.
void rows_table(const NodeEffect& e, const char* id, float dpr) {
  const long long owner = static_cast<long long>(e.rows_node);
  if (!e.rows.empty() && e.rows.front().row.size() == 18)
    note("#%lld's rows (output, input, kernel orders; - left to the compiler):", owner);
  else
    note("#%lld's rows (the file's config values):", owner);
  const float lines = static_cast<float>(std::min<size_t>(e.rows.size(), 8)) + 1.5f;
  if (!ImGui::BeginTable(id, 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY,
                         {0, lines * ImGui::GetTextLineHeightWithSpacing()}))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("layout");
  ImGui::TableSetupColumn("median / fastest", ImGuiTableColumnFlags_WidthFixed, 110 * dpr);
  ImGui::TableSetupColumn("configs", ImGuiTableColumnFlags_WidthFixed, 60 * dpr);
  ImGui::TableHeadersRow();
  for (const RowEffect& r : e.rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(layout_row_text(r.row).c_str());
    ImGui::TableNextColumn();
    ratio_cell(r.median_ratio);
    ImGui::TableNextColumn();
    ImGui::Text("%lld", static_cast<long long>(r.configs));
  }
  ImGui::EndTable();
}

}  // namespace

void App::effects_section() {
  if (!doc || !MeasuredEffects::apply(*doc)) return;
  section("What the runtimes depend on (measured, no model)");
  if (effects.due) {
    ImGui::TextDisabled("reading the config rows...");
    return;
  }
  if (!effects.found) {
    ImGui::TextWrapped("%.0f MB of config rows: one pass over them finds the nodes whose layouts the runtimes follow.",
                       static_cast<double>(effects.row_bytes) / (1 << 20));
    if (ImGui::SmallButton("Find the deciding nodes")) show_effects(true);
    return;
  }
  if (!effects.error.empty()) {
    ImGui::TextWrapped("%s", effects.error.c_str());
    return;
  }
  const NodeEffects& e = effects.effects;
  note("%lld measured configs; %lld of %zu configurable nodes never change layout (%.0f ms)",
                      static_cast<long long>(e.configs), static_cast<long long>(e.constant_nodes),
                      doc->config_nodes.size(), effects.ms);
  if (e.entries.empty()) {
    ImGui::TextDisabled("no node changes layout between measured configs");
    return;
  }
  bool colour = effects_coloured();
  if (ImGui::Checkbox("colour the graph by what nodes add##effects", &colour)) show_effects(colour);
  const float lines = static_cast<float>(std::min<size_t>(e.entries.size(), 6)) + 1.5f;
  if (ImGui::BeginTable("effects", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY,
                        {0, lines * ImGui::GetTextLineHeightWithSpacing()})) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("node(s)");
    ImGui::TableSetupColumn("opcode");
    ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthFixed, 60 * dpr);
    ImGui::TableSetupColumn("adds", ImGuiTableColumnFlags_WidthFixed, 60 * dpr);
    ImGui::TableHeadersRow();
    ImGuiListClipper clip;
    clip.Begin(static_cast<int>(e.entries.size()));
    while (clip.Step())
      for (int i = clip.DisplayStart; i < clip.DisplayEnd; ++i) {
        const NodeEffect& x = e.entries[static_cast<size_t>(i)];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        const std::string label = node_list(x.nodes) + "##effect" + std::to_string(i);
        if (ImGui::Selectable(label.c_str(), effects.entry == static_cast<size_t>(i), ImGuiSelectableFlags_SpanAllColumns)) {
          effects.entry = static_cast<size_t>(i);
          graph.select(x.nodes.front(), dpr);
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(opcode_name(doc->graph.node_opcode[static_cast<size_t>(x.nodes.front())]));
        ImGui::TableNextColumn();
        ImGui::Text("%5.1f %%", 100.0 * x.share);
        ImGui::TableNextColumn();
        if (std::isnan(x.adds))
          ImGui::TextDisabled("-");
        else
          ImGui::Text("%5.1f %%", 100.0 * x.adds);
      }
    ImGui::EndTable();
  }
  const NodeEffect& shown = e.entries[std::min(effects.entry, e.entries.size() - 1)];
  if (shown.nodes.size() > 1) note("%s moved together in every config", node_list(shown.nodes).c_str());
  rows_table(shown, "effect_rows", dpr);
  note("share: of the variance of log runtime, explained by a node's layouts taken alone; adds: what they explain "
       "beyond chance on top of the lines above (a forward selection, each pick passing an F test), %.1f %% "
       "together; - not picked: %s. Nodes that always moved together share a line. `fastslow info FILE --nodes` "
       "prints the same.",
       100.0 * e.joint, e.joint_stopped.c_str());
}

void App::config_effects_section(int64_t config, const std::vector<float>& row) {
  if (!doc || !effects.found || !effects.error.empty() || effects.effects.entries.empty()) return;
  std::vector<ConfigRowEffect> read;
  try {
    read = config_row_effects(effects.effects, doc->config_nodes, row);
  } catch (const std::exception&) {
    return;  // a row of another width (a proposal of another file): nothing to read
  }
  section("Measured: where its runtime comes from (no model)");
  const double r = config >= 0 && config < static_cast<int64_t>(doc->runtime.size()) ? doc->runtime[static_cast<size_t>(config)] : 0;
  if (r > 0)
    ImGui::Text("config %lld runs %.3fx the fastest measured config", static_cast<long long>(config),
                r / effects.effects.fastest);
  else
    ImGui::TextDisabled("%s: not measured", config >= 0 ? ("config " + std::to_string(config)).c_str() : "this proposal");
  if (!ImGui::BeginTable("config_effects", 3, ImGuiTableFlags_RowBg)) return;
  ImGui::TableSetupColumn("node(s)");
  ImGui::TableSetupColumn("its row");
  ImGui::TableSetupColumn("slower", ImGuiTableColumnFlags_WidthFixed, 70 * dpr);
  ImGui::TableHeadersRow();
  for (size_t k = 0; k < read.size() && k < 4; ++k) {
    const NodeEffect& e = effects.effects.entries[read[k].entry];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const std::string label = node_list(e.nodes) + "##config_effect" + std::to_string(k);
    if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) {
      effects.entry = read[k].entry;
      graph.select(e.nodes.front(), dpr);
    }
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(read[k].row >= 0 ? layout_row_text(e.rows[static_cast<size_t>(read[k].row)].row).c_str()
                                            : "no measured config holds it");
    ImGui::TableNextColumn();
    if (read[k].row < 0)
      ImGui::TextDisabled("-");
    else
      ratio_cell(read[k].slower);
  }
  ImGui::EndTable();
  note("its row at each node against the node's fastest row, by the median runtimes of the configs holding them "
       "(`fastslow info FILE --nodes --config N`)");
}

void App::effects_inspector(int64_t node) {
  if (!effects.found || !effects.error.empty() || effects.effects.entries.empty()) return;
  section("What the runtimes depend on (measured)");
  const int64_t k = effects.entry_of(node);
  if (k < 0) {
    ImGui::TextDisabled("its layout is the same in every measured config");
    return;
  }
  const NodeEffect& e = effects.effects.entries[static_cast<size_t>(k)];
  if (std::isnan(e.adds))
    ImGui::TextWrapped("%.1f %% of the variance of log runtime alone; not picked by the forward selection (%s; line %lld of %zu)",
                       100.0 * e.share, effects.effects.joint_stopped.c_str(), static_cast<long long>(k + 1),
                       effects.effects.entries.size());
  else
    ImGui::TextWrapped("%.1f %% of the variance of log runtime alone; adds %.1f %% to the nodes above it (line %lld of %zu)",
                       100.0 * e.share, 100.0 * e.adds, static_cast<long long>(k + 1), effects.effects.entries.size());
  if (e.nodes.size() > 1) {
    std::vector<int64_t> others;
    for (int64_t n : e.nodes)
      if (n != node) others.push_back(n);
    note("its layout moved with %s's in every config", node_list(others).c_str());
  }
  rows_table(e, "inspector_effect_rows", dpr);
}

}  // namespace fastslow::explorer
